/*
 * POST and GET of classifieds against `immogate start` as a user runs it (issue 36): the worker
 * beside the server really processes what is posted, its media from the loopback server (no
 * status webhook subscription, as for `post` and `ingest`: the POST's own work stays the same). Judged against the same-run floors (baseline-b for
 * POST, baseline-r for GET), which must run in the same invocation.
 */
import { PROCESSING_STREAM } from '../../src/apis/classifieds/jobs.js';
import { classifiedJson } from '../body.js';
import type { Measurement } from '../driver.js';
import { dropPendingJobs, pendingJobs } from '../jobs.js';
import { startAsUsersRun } from '../userRun.js';
import { CONNECTIONS, USER_AGENT, type Row, type Scenario } from './types.js';

const AGENCY = 'bench-agency';
const TERMINAL = ['CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED'];

/** Terminal statuses the agency's classifieds have reached so far: what the worker finished. */
async function terminalStatuses(context: Parameters<Scenario['setup']>[0]): Promise<number> {
  const { rows } = await context.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM classified_statuses WHERE environment = 'production' AND agency_id = $1 AND status = ANY($2::text[])",
    [AGENCY, TERMINAL],
  );
  return rows[0]!.n;
}

function processedNote(row: Row): string | undefined {
  const processed = row.runs.map((run) => (run.details as { processedPerSecond?: number } | undefined)?.processedPerSecond);
  if (processed.some((n) => n === undefined)) return undefined;
  return `the worker beside it finished ${processed.join(', ')} classifieds/s during the runs; backlog ${row.backlog ?? '-'} when the last ended`;
}

export const postStarted: Scenario = {
  name: 'post-start',
  about:
    'post against `immogate start` (server and worker, as a user runs it): publishable classifieds, six media each from the loopback server (no status webhook subscription), quotas above the load',
  target: '>= 85% of baseline-b, p99 <= 50 ms (issue 36)',
  met: (row) => (row.ofBaselineB === undefined ? undefined : row.ofBaselineB >= 0.85 && row.p99 <= 50),
  note: processedNote,
  async setup(context) {
    const dropped = await dropPendingJobs(context.pool, PROCESSING_STREAM);
    if (dropped > 0) process.stderr.write(`post-start: dropped ${dropped} pending classifieds left by earlier scenarios\n`);
    const started = await startAsUsersRun(context, 'post-start', AGENCY);
    const load = {
      url: started.base,
      method: 'POST' as const,
      path: '/caas/v4/classifieds',
      headers: { authorization: `Bearer ${started.token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
      body: { classified: `START-${Date.now()}`, mediaBase: `${started.loopback.address}/media`, publishable: true },
      connections: CONNECTIONS,
    };
    const run = async (seconds: number): Promise<Measurement> => {
      const before = await terminalStatuses(context);
      const measured = await context.autocannon({ ...load, seconds });
      const processedPerSecond = Math.round((((await terminalStatuses(context)) - before) / seconds) * 10) / 10;
      return { ...measured, backlog: await pendingJobs(context.pool, PROCESSING_STREAM), details: { processedPerSecond } };
    };
    return { run, stop: () => started.stop() };
  },
};

export const getStarted: Scenario = {
  name: 'get-start',
  about:
    'get against `immogate start` (server and worker, as a user runs it), quotas above the load; the backlog earlier scenarios left is dropped first (the drain scenario measures GET while the worker is busy)',
  target: '>= 80% of baseline-r (issue 36)',
  met: (row) => (row.ofBaselineR === undefined ? undefined : row.ofBaselineR >= 0.8),
  async setup(context) {
    const dropped = await dropPendingJobs(context.pool, PROCESSING_STREAM);
    if (dropped > 0) process.stderr.write(`get-start: dropped ${dropped} pending classifieds left by earlier scenarios\n`);
    const started = await startAsUsersRun(context, 'get-start', AGENCY);
    try {
      const headers = { authorization: `Bearer ${started.token}`, 'user-agent': USER_AGENT };
      const response = await fetch(`${started.base}/caas/v4/classifieds`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: classifiedJson(`GET-START-${Date.now()}`, `${started.loopback.address}/media`, { publishable: true }),
      });
      if (response.status !== 202) throw new Error(`get-start: POST failed: ${response.status} ${await response.text()}`);
      const { classifiedId } = (await response.json()) as { classifiedId: string };
      return {
        load: { url: started.base, method: 'GET', path: `/caas/v4/classifieds/${classifiedId}`, headers, connections: CONNECTIONS },
        stop: () => started.stop(),
      };
    } catch (error) {
      await started.stop();
      throw error;
    }
  },
};
