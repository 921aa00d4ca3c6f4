/*
 * One clock for every process of a run: wall-clock milliseconds, sub-millisecond precise.
 */
import { performance } from 'node:perf_hooks';

/**
 * Wall-clock milliseconds with sub-millisecond precision. The end-to-end scenarios subtract times
 * taken in different processes (load generator, receivers) and by PostgreSQL (status dates): all
 * read the same system clock, which a per-process monotonic clock would not.
 */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}
