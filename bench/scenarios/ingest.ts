/*
 * Ingest to terminal status: classifieds posted at a fixed rate, processed with their media.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PROCESSING_STREAM as PROCESS_TASK } from '../../src/apis/classifieds/jobs.js';
import type { Measurement } from '../driver.js';
import { acknowledgedRate } from '../fixedRate.js';
import { ask } from '../ipc.js';
import { pendingJobs } from '../jobs.js';
import { loadWithBacklog, startWorkerChild } from '../endToEnd.js';
import { mediansBySecond, spread } from '../percentiles.js';
import type { Sent } from '../rate.js';
import { wallClock } from '../clock.js';
import { rise } from '../trend.js';
import { warmUp } from '../warmUp.js';
import { CONNECTIONS, USER_AGENT, type Context, type Row, type Scenario } from './types.js';

/**
 * Classifieds posted at half the measured maximum POST rate to an immogate child
 * that runs the server and the worker (as `immogate start` does), each classified with six media
 * served by the loopback helper. Per classified: the time from its POST (when the generator had
 * it due) to its terminal status, as PostgreSQL dated that status.
 */
const AGENCY = 'bench-agency';
const TERMINAL = ['CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED'];
/** How long after the load stops every acknowledged classified has to reach its terminal status: the wait bound and more. */
const GRACE_MS = 30_000;
/**
 * The bound of issue 33 on what waits for a worker (MAX_WAITING_PER_AGENCY, its default): the
 * server admits what processing keeps up with, and refuses the rest with 429, so the backlog stays
 * flat whatever the rate asked for.
 */
const WAIT_BOUND = { MAX_WAITING_PER_AGENCY: '1000' };
const CALIBRATION_SECONDS = 5;

function headers(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' };
}

/** The POST rate of `post` in this invocation; without it, a short maximum-rate run against the server-only child. */
async function maxPostRate(context: Context): Promise<{ rps: number; from: string }> {
  const post = context.rows.find((row) => row.scenario === 'post');
  if (post) return { rps: post.rps, from: 'the post row of this invocation' };
  process.stderr.write(`ingest: no post row in this invocation, measuring the maximum POST rate (${CALIBRATION_SECONDS} s)\n`);
  const measured = await context.autocannon({
    url: context.base,
    method: 'POST',
    path: '/caas/v4/classifieds',
    headers: headers(context.token),
    body: { classified: 'CALIBRATE' },
    connections: CONNECTIONS,
    seconds: CALIBRATION_SECONDS,
  });
  return { rps: measured.rps, from: `a ${CALIBRATION_SECONDS} s maximum-rate POST run` };
}

interface Outcome {
  key: string;
  received: number;
  terminal: number | null;
  status: string | null;
}

/** RECEIVED and terminal status dates (epoch ms) of this run's classifieds, found by their offererEstateId. */
async function outcomes(context: Context, prefix: string): Promise<Outcome[]> {
  const { rows } = await context.pool.query<Outcome>(
    `SELECT c.offerer_estate_id AS key,
            extract(epoch FROM r.status_date)::float8 * 1000 AS received,
            extract(epoch FROM t.status_date)::float8 * 1000 AS terminal,
            t.status
       FROM classifieds c
       JOIN classified_statuses r ON r.classified_id = c.id AND r.revision = 1 AND r.status = 'RECEIVED'
       LEFT JOIN classified_statuses t ON t.classified_id = c.id AND t.revision = 1 AND t.status = ANY($3::text[])
      WHERE c.environment = 'production' AND c.agency_id = $1 AND starts_with(c.offerer_estate_id, $2)`,
    [AGENCY, `${prefix}-`, TERMINAL],
  );
  return rows;
}

async function finished(context: Context, prefix: string): Promise<number> {
  const { rows } = await context.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM classifieds c JOIN classified_statuses t ON t.classified_id = c.id AND t.revision = 1 AND t.status = ANY($3::text[])
      WHERE c.environment = 'production' AND c.agency_id = $1 AND starts_with(c.offerer_estate_id, $2)`,
    [AGENCY, `${prefix}-`, TERMINAL],
  );
  return rows[0]!.n;
}

/** The backlog's rise over the run (see trend.ts) and the rate, from the run's details. */
function backlogTrend(row: Row): { rise: number | undefined; rate: number; fromEnvironment: boolean } | undefined {
  const details = row.runs[0]?.details as { rate?: number; backlogEverySecond?: number[]; maxPostRateFrom?: string } | undefined;
  if (!details?.rate || !details.backlogEverySecond) return undefined;
  return { rise: rise(details.backlogEverySecond), rate: details.rate, fromEnvironment: details.maxPostRateFrom === 'BENCH_INGEST_RATE' };
}

export const ingest: Scenario = {
  name: 'ingest',
  about:
    'POST /caas/v4/classifieds at half the max POST rate for 30 s to a server+worker child with its wait bound, six media each from a loopback server: POST (due time) to terminal status of the admitted ones',
  target:
    'at half the max POST rate: backlog flat (issue 33: the bound on waiting work admits what processing keeps up with), p99 <= 250 ms (issue 25)',
  met(row) {
    const details = backlogTrend(row);
    // At a rate BENCH_INGEST_RATE chose, the target (half the maximum) is not what ran.
    if (!details || details.fromEnvironment || details.rise === undefined) return undefined;
    return details.rise <= details.rate / 2 && row.p99 <= 250;
  },
  note(row) {
    const details = backlogTrend(row);
    if (!details || details.rise === undefined) return undefined;
    return `backlog rose by ${Math.round(details.rise)} from the first quarter of the run to the last (flat: less than half a second of POSTs, ${details.rate / 2})`;
  },
  ratios: false,
  runs: 1,
  seconds: 30,
  async setup(context) {
    // BENCH_INGEST_RATE=<POSTs per second> replaces half the maximum, to find the rate processing keeps up with.
    const chosen = Number(process.env.BENCH_INGEST_RATE ?? 0);
    const max = chosen > 0 ? { rps: chosen * 2, from: 'BENCH_INGEST_RATE' } : await maxPostRate(context);
    const rate = Math.max(1, Math.round(max.rps / 2));
    const { dropped, loopback, immogate, stop } = await startWorkerChild(context, PROCESS_TASK, 'ingest', WAIT_BOUND);
    try {
      const token = await context.issueToken(immogate.address, { root: '/caas/v4', agency: AGENCY, scopes: ['caas:*'] });
      process.stderr.write(`ingest: ${rate} POST/s (half of ${max.rps.toFixed(0)} req/s, from ${max.from})\n`);

      const load = {
        url: immogate.address,
        path: '/caas/v4/classifieds',
        headers: headers(token),
        body: { kind: 'classified', mediaBase: `${loopback.address}/media`, publishable: true },
        rate,
        connections: CONNECTIONS,
      } as const;
      await warmUp(context.pool, load, PROCESS_TASK, 'ingest');

      const run = async (seconds: number): Promise<Measurement> => {
        const prefix = `ingest-${Date.now()}`;
        const servedBefore = (await ask<{ mediaServed: number }>(loopback.child, 'counts')).mediaServed;
        const { generated, backlogSamples, backlog } = await loadWithBacklog(context.pool, PROCESS_TASK, { ...load, seconds, prefix });
        const accepted = generated.sent.filter((sent) => sent.status === 202);
        const graceStart = Date.now();
        while ((await finished(context, prefix)) < accepted.length && Date.now() - graceStart < GRACE_MS) await sleep(250);
        const graceUsedMs = Date.now() - graceStart;
        const graceEnd = wallClock();
        const backlogAfterGrace = await pendingJobs(context.pool, PROCESS_TASK);

        const sentByKey = new Map<string, Sent>(accepted.map((sent) => [sent.key, sent]));
        const found = (await outcomes(context, prefix)).filter((outcome) => sentByKey.has(outcome.key));
        const done = found.filter((outcome): outcome is Outcome & { terminal: number; status: string } => outcome.terminal !== null);
        // A classified still unfinished counts with the time it had waited when the grace ended: the
        // percentiles are then lower bounds, rather than figures that leave out the slowest.
        const finishedKeys = new Set(done.map((outcome) => outcome.key));
        const unfinished = accepted.filter((sent) => !finishedKeys.has(sent.key)).map((sent) => graceEnd - sent.sentAt);
        const postToTerminal = spread([...done.map((outcome) => outcome.terminal - sentByKey.get(outcome.key)!.sentAt), ...unfinished]);
        const receivedToTerminal = spread(done.map((outcome) => outcome.terminal - outcome.received));
        const statuses: Record<string, number> = {};
        for (const outcome of done) statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
        const answers: Record<string, number> = {};
        for (const sent of generated.sent) answers[sent.status] = (answers[sent.status] ?? 0) + 1;
        const mediaServed = (await ask<{ mediaServed: number }>(loopback.child, 'counts')).mediaServed - servedBefore;
        const details = {
          rate,
          maxPostRate: Math.round(max.rps),
          maxPostRateFrom: max.from,
          droppedJobsBefore: dropped,
          answers,
          postToTerminal,
          unfinishedCountedAtGraceEnd: unfinished.length,
          receivedToTerminal,
          postToTerminalMedianEachSecond: mediansBySecond(
            done.map((outcome) => {
              const sentAt = sentByKey.get(outcome.key)!.sentAt;
              return { at: sentAt, value: outcome.terminal - sentAt };
            }),
          ),
          postAnswer: spread(accepted.map((sent) => sent.answeredAt - sent.sentAt)),
          acknowledgedPerSecond: acknowledgedRate(generated.sent, accepted),
          statuses,
          backlogEverySecond: backlogSamples,
          backlogAfterGrace,
          graceUsedMs,
          mediaServed,
          generatorMaxLagMs: Math.round(generated.maxLagMs),
          ...(generated.firstFailure === undefined ? {} : { firstFailure: generated.firstFailure }),
        };
        if (generated.firstFailure) process.stderr.write(`ingest: first failure: ${generated.firstFailure}\n`);
        process.stderr.write(
          `ingest: ${accepted.length} accepted of ${generated.sent.length}; POST to terminal, median of each second ${JSON.stringify(details.postToTerminalMedianEachSecond)}; RECEIVED to terminal p50 ${receivedToTerminal.p50} ms, p99 ${receivedToTerminal.p99} ms; ` +
            `202 p50 ${details.postAnswer.p50} ms, p99 ${details.postAnswer.p99} ms (${details.acknowledgedPerSecond} acknowledged/s); statuses ${JSON.stringify(statuses)}; ` +
            `backlog each second ${JSON.stringify(backlogSamples)}, ${backlogAfterGrace} after ${graceUsedMs} ms grace; ${mediaServed} media served\n`,
        );
        return {
          rps: details.acknowledgedPerSecond,
          p50: postToTerminal.p50,
          p99: postToTerminal.p99,
          max: postToTerminal.max,
          errors: generated.sent.length - accepted.length,
          total: generated.sent.length,
          lost: accepted.length - done.length,
          backlog,
          details,
        };
      };
      return { run, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  },
};
