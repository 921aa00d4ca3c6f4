/*
 * A fixed-rate load run in a process of its own (bench/rate.ts).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RateLoad, RateResult, Sent } from './rate.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** One fixed-rate run in a forked bench/rate.ts, so the generator never shares an event loop with what it measures. */
export function loadAtFixedRate(load: RateLoad): Promise<RateResult> {
  const child = fork(path.join(here, 'rate.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message: RateResult) => resolve(message));
    child.once('exit', (code) => code === 0 || reject(new Error(`rate generator exited with ${code}`)));
    child.send(load);
  });
}

/**
 * Acknowledgements per second, from the first request's due time to the last of `acknowledged`'s
 * answers: below the rate asked for, the server did not keep up and requests queued (their wait
 * is in the latencies).
 */
export function acknowledgedRate(all: Sent[], acknowledged: Sent[]): number {
  if (acknowledged.length === 0) return 0;
  const first = Math.min(...all.map((s) => s.sentAt));
  const last = Math.max(...acknowledged.map((s) => s.answeredAt));
  return Math.round((acknowledged.length * 1000) / (last - first));
}
