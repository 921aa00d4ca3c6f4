/*
 * The parts the end-to-end scenarios (ingest, leads) share: their immogate child, the loopback
 * helper, and a fixed-rate load with the backlog sampled every second.
 */
import type pg from 'pg';
import { loadAtFixedRate } from './fixedRate.js';
import { dropPendingJobs, pendingJobs } from './jobs.js';
import type { RateLoad, RateResult } from './rate.js';
import type { Context, Started } from './scenarios/types.js';

/**
 * What the end-to-end scenarios (ingest, leads) share: their own server+worker child beside the
 * loopback helper, and a fixed-rate load with the backlog of their jobs sampled every second.
 */
export interface WorkerSetUp {
  /** How many jobs were dropped before starting. */
  dropped: number;
  loopback: Started;
  immogate: Started;
  stop(): Promise<void>;
}

/**
 * Drops the `task` jobs earlier scenarios left (a worker starting on thousands of unprocessed
 * classifieds from the post runs would be late for that reason alone), then starts the loopback
 * helper and an immogate child running server and worker, allowed to reach loopback.
 */
export async function startWorkerChild(
  context: Context,
  task: string,
  label: string,
  env: Record<string, string> = {},
): Promise<WorkerSetUp> {
  const dropped = await dropPendingJobs(context.pool, task);
  if (dropped > 0) process.stderr.write(`${label}: dropped ${dropped} pending ${task} jobs left by earlier scenarios\n`);
  const loopback = await context.start('loopback', {});
  const immogate = await context.startImmogate({ BENCH_WORKER: '1', ALLOW_PRIVATE_TARGETS: 'true', ...env });
  return {
    dropped,
    loopback,
    immogate,
    async stop() {
      await immogate.stop();
      await loopback.stop();
    },
  };
}

/** The load, the pending `task` jobs sampled each second during it, and those left when it stopped. */
export async function loadWithBacklog(
  pool: pg.Pool,
  task: string,
  load: RateLoad,
): Promise<{ generated: RateResult; backlogSamples: number[]; backlog: number }> {
  const backlogSamples: number[] = [];
  const sampler = setInterval(
    () =>
      void pendingJobs(pool, task).then(
        (n) => backlogSamples.push(n),
        () => undefined,
      ),
    1000,
  );
  const generated = await loadAtFixedRate(load).finally(() => clearInterval(sampler));
  return { generated, backlogSamples, backlog: await pendingJobs(pool, task) };
}
