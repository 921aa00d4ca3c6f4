/*
 * The API while a backlog drains: classifieds posted to a server without a worker, then
 * `immogate start` as a user runs it, read through the API while its worker works the backlog off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROCESSING_STREAM as PROCESS_TASK } from '../../src/apis/classifieds/jobs.js';
import { freePort } from '../../test/helpers.js';
import { monotonicUs } from '../cpuProfile.js';
import type { Measurement } from '../driver.js';
import { acknowledgedRate, loadAtFixedRate } from '../fixedRate.js';
import { startCommand, stopCommand, untilReady } from '../immogateCommand.js';
import { dropPendingJobs, pendingJobs } from '../jobs.js';
import { CONNECTIONS, LOAD_TEST_LIMITS, USER_AGENT, type Row, type Scenario } from './types.js';

const AGENCY = 'bench-agency';
const CAAS = '/caas/v4';
/** BENCH_DRAIN_COUNT sets another backlog (fewer for a quick look). */
const COUNT = Number(process.env.BENCH_DRAIN_COUNT ?? 8_000);
/** The rate the backlog is posted at; the server-only child takes more, so this bounds how long posting takes. */
const POST_RATE = 1_000;
/** Classifieds the GETs go to in turn: rows the worker is writing while they are read. */
const READ_TARGETS = 100;

interface DrainDetails {
  posted: number;
  accepted: number;
  postedPerSecond: number;
  droppedJobsBefore: number;
  readyAfterMs: number;
  backlogAtSpawn: number;
  backlogAtReady: number;
  backlogAtLoadStart: number;
  backlogAtEnd: number;
  backlogEverySecond: number[];
  log: string;
}

export const drain: Scenario = {
  name: 'drain',
  about: `${COUNT} publishable classifieds (six media each from the loopback server) posted to the server-only child, then \`node bin/immogate.js start\` on the same database: GET /caas/v4/classifieds/{id} (${READ_TARGETS} of them in turn), ${CONNECTIONS} connections, while its worker drains the backlog`,
  target: 'API p99 <= 100 ms while the backlog drains (issue 25)',
  met: (row) => row.p99 <= 100,
  runs: 1,
  seconds: 30,
  note(row: Row) {
    const details = row.runs[0]?.details as DrainDetails | undefined;
    if (!details) return undefined;
    return (
      `ready ${Math.round(details.readyAfterMs)} ms after the spawn; backlog ${details.backlogAtSpawn} at the spawn, ` +
      `${details.backlogAtLoadStart} when the GETs started, ${details.backlogAtEnd} when they ended`
    );
  },
  async setup(context) {
    const droppedJobsBefore = await dropPendingJobs(context.pool, PROCESS_TASK);
    const loopback = await context.start('loopback', {});
    try {
      const prefix = `drain-${Date.now()}`;
      const headers = { authorization: `Bearer ${context.token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' };
      process.stderr.write(`drain: posting ${COUNT} classifieds to the server-only child (${POST_RATE}/s at most)\n`);
      const posted = await loadAtFixedRate({
        url: context.base,
        path: `${CAAS}/classifieds`,
        headers,
        body: { kind: 'classified', mediaBase: `${loopback.address}/media`, publishable: true },
        rate: POST_RATE,
        seconds: COUNT / POST_RATE,
        connections: CONNECTIONS,
        prefix,
      });
      const accepted = posted.sent.filter((sent) => sent.status === 202);
      if (accepted.length < COUNT)
        process.stderr.write(`drain: ${accepted.length} of ${COUNT} accepted; first failure: ${posted.firstFailure}\n`);
      const { rows } = await context.pool.query<{ id: string }>(
        `SELECT id FROM classifieds
          WHERE environment = 'production' AND agency_id = $1 AND starts_with(offerer_estate_id, $2)
          ORDER BY offerer_estate_id LIMIT $3`,
        [AGENCY, `${prefix}-`, READ_TARGETS],
      );
      if (rows.length === 0) throw new Error('drain: none of the posted classifieds is in the database');
      const paths = rows.map((row) => `${CAAS}/classifieds/${row.id}`);

      const run = async (seconds: number): Promise<Measurement> => {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-drain-')), 'immogate.log');
        // What a user sets, plus the bench's DATA_DIR: its secrets.key unseals the signing keys the database holds.
        const env = {
          ...process.env,
          DATABASE_URL: context.databaseUrl,
          DATA_DIR: context.dataDir,
          PORT: String(port),
          ALLOW_PRIVATE_TARGETS: 'true',
          LOG_LEVEL: 'warn',
          ...LOAD_TEST_LIMITS,
        };
        const backlogAtSpawn = await pendingJobs(context.pool, PROCESS_TASK);
        const command = startCommand(env, log, context.profileFlags());
        try {
          const readyAfterMs = await untilReady(command, base, { pollMs: 10, timeoutMs: 60_000 });
          const backlogAtReady = await pendingJobs(context.pool, PROCESS_TASK);
          const token = await context.issueToken(base, { root: CAAS, agency: AGENCY, scopes: ['caas:*'] });
          const backlogAtLoadStart = await pendingJobs(context.pool, PROCESS_TASK);
          process.stderr.write(`drain: immogate start ready after ${Math.round(readyAfterMs)} ms; backlog ${backlogAtLoadStart}\n`);
          const backlogEverySecond: number[] = [];
          const sampler = setInterval(
            () =>
              void pendingJobs(context.pool, PROCESS_TASK).then(
                (n) => backlogEverySecond.push(n),
                () => undefined,
              ),
            1000,
          );
          const from = monotonicUs();
          const measured = await context
            .autocannon({
              url: base,
              method: 'GET',
              path: paths[0]!,
              paths,
              headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT },
              connections: CONNECTIONS,
              seconds,
            })
            .finally(() => clearInterval(sampler));
          const window = { from, to: monotonicUs() };
          const backlogAtEnd = await pendingJobs(context.pool, PROCESS_TASK);
          const details: DrainDetails = {
            posted: posted.sent.length,
            accepted: accepted.length,
            postedPerSecond: acknowledgedRate(posted.sent, accepted),
            droppedJobsBefore,
            readyAfterMs: Math.round(readyAfterMs),
            backlogAtSpawn,
            backlogAtReady,
            backlogAtLoadStart,
            backlogAtEnd,
            backlogEverySecond,
            log,
          };
          process.stderr.write(`drain: backlog each second ${JSON.stringify(backlogEverySecond)}; log ${log}\n`);
          return { ...measured, backlog: backlogAtEnd, details: { ...details }, window };
        } finally {
          await stopCommand(command);
        }
      };
      return { run, stop: () => loopback.stop() };
    } catch (error) {
      await loopback.stop();
      throw error;
    }
  },
};
