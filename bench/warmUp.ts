/*
 * The warm-up before a measured run, and the wait for the worker to drain it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { loadAtFixedRate } from './fixedRate.js';
import { pendingJobs } from './jobs.js';
import type { RateLoad } from './rate.js';

const WARM_UP_SECONDS = 3;
const DRAIN_LIMIT_MS = 15_000;

/**
 * The same load for a few seconds before the measured run, then a wait until the worker has no
 * job of `task` left (15 s at most). A freshly started child opens its pool connections, compiles
 * its hot paths and makes its first outbound connections during its first second, which alone
 * would otherwise be several percent of a run's samples, and so its p99.
 */
export async function warmUp(pool: pg.Pool, load: Omit<RateLoad, 'seconds' | 'prefix'>, task: string, label: string): Promise<void> {
  process.stderr.write(`${label}: warming up (${WARM_UP_SECONDS} s at the same rate)\n`);
  await loadAtFixedRate({ ...load, seconds: WARM_UP_SECONDS, prefix: `warmup-${Date.now()}` });
  const started = Date.now();
  let pending = await pendingJobs(pool, task);
  while (pending > 0 && Date.now() - started < DRAIN_LIMIT_MS) {
    await sleep(250);
    pending = await pendingJobs(pool, task);
  }
  if (pending > 0)
    process.stderr.write(
      `${label}: ${pending} ${task} jobs still pending ${DRAIN_LIMIT_MS / 1000} s after the warm-up; measuring anyway\n`,
    );
}
