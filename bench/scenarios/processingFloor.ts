/*
 * Processing against its own floor (issue 36): the same number of classifieds posted through the
 * API for two agencies, both with a status webhook subscription to the loopback receiver; the first
 * agency's worked off by the minimal processor of processingFloor.ts (the floor), the second's by
 * `immogate start` as a user runs it; same run, same media server, same receiver. Each side's rate
 * is read from the database alike: its classifieds over the time from its first step (its checking
 * status, CREATING, or a webhook attempt) to its last (a terminal status or a delivered webhook).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROCESSING_STREAM } from '../../src/apis/classifieds/jobs.js';
import { WEBHOOKS_STREAM } from '../../src/platform/delivery/index.js';
import type { Measurement } from '../driver.js';
import { loadAtFixedRate } from '../fixedRate.js';
import { dropPendingJobs, pendingJobs } from '../jobs.js';
import { subscribeStatuses, unsubscribeStatuses, startAsUsersRun } from '../userRun.js';
import { CONNECTIONS, USER_AGENT, type Context, type Row, type Scenario } from './types.js';

const FLOOR_AGENCY = 'floor-agency';
const WORKER_AGENCY = 'floor-worker-agency';
/** Classifieds per side for each second of the scenario's length: --seconds 10 posts 1,000 for each. */
const PER_SECOND = 100;
const POST_RATE = 500;
const TERMINAL = ['CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED'];
/** How long a side may take to work off its classifieds before the scenario gives up on it. */
const TIMEOUT_MS = 10 * 60_000;

interface Side {
  classifieds: number;
  terminal: number;
  delivered: number;
  seconds: number;
  perSecond: number;
}

/** Posts `count` publishable classifieds through the server-only child at `base`, their media on the loopback server. */
async function post(base: string, token: string, media: string, count: number, prefix: string): Promise<number> {
  const posted = await loadAtFixedRate({
    url: base,
    path: '/caas/v4/classifieds',
    headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
    body: { kind: 'classified', mediaBase: media, publishable: true },
    rate: POST_RATE,
    seconds: count / POST_RATE,
    connections: CONNECTIONS,
    prefix,
  });
  return posted.sent.filter((sent) => sent.status === 202).length;
}

/** What the agency's processing and webhooks did, read from the database alike for both sides. */
async function measureSide(context: Context, agency: string, classifieds: number, since: Date): Promise<Side> {
  const { rows } = await context.pool.query<{ first: number; last: number; terminal: number; delivered: number }>(
    `WITH s AS (SELECT status, status_date FROM classified_statuses WHERE environment = 'production' AND agency_id = $1 AND status_date >= $3),
          d AS (SELECT delivered_at FROM webhook_deliveries WHERE environment = 'production' AND agency_id = $1 AND state = 'DELIVERED' AND delivered_at >= $3),
          a AS (SELECT attempted_at FROM webhook_attempts WHERE environment = 'production' AND agency_id = $1 AND attempted_at >= $3)
     SELECT extract(epoch FROM least((SELECT min(status_date) FROM s WHERE status = 'CREATING'), (SELECT min(attempted_at) FROM a)))::float8 * 1000 AS first,
            extract(epoch FROM greatest((SELECT max(status_date) FROM s WHERE status = ANY($2::text[])), (SELECT max(delivered_at) FROM d)))::float8 * 1000 AS last,
            (SELECT count(*)::int FROM s WHERE status = ANY($2::text[])) AS terminal,
            (SELECT count(*)::int FROM d) AS delivered`,
    [agency, TERMINAL, since],
  );
  const row = rows[0]!;
  const seconds = (row.last - row.first) / 1000;
  return {
    classifieds,
    terminal: row.terminal,
    delivered: row.delivered,
    seconds,
    perSecond: Math.round((row.terminal / seconds) * 10) / 10,
  };
}

/** The floor processor over the agency's classifieds, in a process of its own; resolves when it has worked them off. */
async function runFloor(context: Context): Promise<{ processed: number; delivered: number }> {
  const child = fork(fileURLToPath(new URL('../processingFloor.js', import.meta.url)), [], {
    env: { ...process.env, DATABASE_URL: context.databaseUrl, DATA_DIR: context.dataDir, FLOOR_AGENCY },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const finished = new Promise<{ processed: number; delivered: number }>((resolve, reject) => {
    child.on('message', (message: { processed?: number; delivered?: number }) => {
      if (message.processed !== undefined) resolve({ processed: message.processed, delivered: message.delivered ?? 0 });
    });
    void exited.then((code) => reject(new Error(`the floor processor exited with ${code} before it finished`)));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
  try {
    return await finished;
  } finally {
    clearTimeout(timer);
    child.send('stop');
    await exited;
  }
}

async function untilWorkedOff(context: Context, agency: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await context.pool.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM caas_processing_queue WHERE environment = 'production' AND agency_id = $1) +
              (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'PENDING' AND environment = 'production' AND agency_id = $1) AS n`,
      [agency],
    );
    if (rows[0]!.n === 0) return;
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`processing-floor: ${agency} not worked off in ${TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function sides(row: Row): { floor: Side; worker: Side } | undefined {
  return row.runs[0]?.details as { floor: Side; worker: Side } | undefined;
}

export const processingFloor: Scenario = {
  name: 'processing-floor',
  about: `classifieds processed per second by \`immogate start\` against a minimal processor doing the same work (bench/processingFloor.ts: six media downloads each with the same client settings, the same rows and statuses, the same status webhooks, delivered), ${PER_SECOND} classifieds per second of the scenario's length for each, same run, same loopback media server and receiver`,
  target: "immogate's worker >= 70% of the floor's classifieds/s (issue 36)",
  ratios: false,
  runs: 1,
  seconds: 15,
  met(row) {
    const found = sides(row);
    return found ? found.worker.perSecond >= 0.7 * found.floor.perSecond : undefined;
  },
  note(row) {
    const found = sides(row);
    if (!found) return undefined;
    const { floor, worker } = found;
    const side = (s: Side) =>
      `${s.perSecond} classifieds/s (${s.terminal} of ${s.classifieds} finished in ${s.seconds.toFixed(1)} s, ${s.delivered} webhooks delivered)`;
    return `floor ${side(floor)}; immogate start ${side(worker)}: ${Math.round((worker.perSecond / floor.perSecond) * 100)}% of the floor`;
  },
  cells: (row) => ({ 'req/s': `${row.rps} classifieds/s`, 'p50 ms': '-', 'p99 ms': '-', 'max ms': '-' }),
  async setup(context) {
    for (const stream of [PROCESSING_STREAM, WEBHOOKS_STREAM]) {
      const dropped = await dropPendingJobs(context.pool, stream);
      if (dropped > 0) process.stderr.write(`processing-floor: dropped ${dropped} pending ${stream} items left by earlier scenarios\n`);
    }
    const loopback = await context.start('loopback', {});
    // A server-only child of its own: the shared one refuses a subscription to a loopback receiver.
    const server = await context.startImmogate({ ALLOW_PRIVATE_TARGETS: 'true' });
    const tokens: [string, string][] = [];
    const stop = async () => {
      for (const [, token] of tokens) await unsubscribeStatuses(server.address, token);
      await server.stop();
      await loopback.stop();
    };
    try {
      for (const agency of [FLOOR_AGENCY, WORKER_AGENCY]) {
        const token = await context.issueToken(server.address, { root: '/caas/v4', agency, scopes: ['caas:*'] });
        await subscribeStatuses(server.address, token, loopback.address, agency);
        tokens.push([agency, token]);
      }
    } catch (error) {
      await stop();
      throw error;
    }
    const run = async (seconds: number): Promise<Measurement> => {
      const count = seconds * PER_SECOND;
      const media = `${loopback.address}/media`;
      const since = new Date();
      const stamp = since.getTime();
      process.stderr.write(`processing-floor: posting ${count} classifieds for the floor, then runs it\n`);
      const floorPosted = await post(server.address, tokens[0]![1], media, count, `floor-${stamp}`);
      const floorFinished = await runFloor(context);
      const floor = await measureSide(context, FLOOR_AGENCY, floorPosted, since);
      process.stderr.write(`processing-floor: floor ${JSON.stringify({ ...floor, ...floorFinished })}\n`);
      process.stderr.write(`processing-floor: posting ${count} classifieds for immogate start, then starts it\n`);
      const workerPosted = await post(server.address, tokens[1]![1], media, count, `worker-${stamp}`);
      const started = await startAsUsersRun(context, 'processing-floor', WORKER_AGENCY);
      try {
        await untilWorkedOff(context, WORKER_AGENCY);
      } finally {
        await started.stop();
      }
      const worker = await measureSide(context, WORKER_AGENCY, workerPosted, since);
      process.stderr.write(`processing-floor: immogate start ${JSON.stringify(worker)}\n`);
      return {
        rps: worker.perSecond,
        p50: 0,
        p99: 0,
        max: 0,
        errors: 2 * count - floorPosted - workerPosted,
        total: floorPosted + workerPosted,
        lost: floorPosted - floor.terminal + (workerPosted - worker.terminal),
        backlog: await pendingJobs(context.pool, PROCESSING_STREAM),
        details: { floor, worker, floorProcessor: floorFinished },
      };
    };
    return { run, stop };
  },
};
