/*
 * Where the 21 rules of a listing run. Measured (test/hostile/event-loop.test.ts): rule 1 and rule
 * 21 read every text, and a 1 MiB body holds about 260 texts of 3999 characters; even in linear
 * time that is 15-40 ms of JavaScript on this machine's cores, and more while other processes
 * share them, which kept GET /ready waiting near the 100 ms bound. A body with that much text is
 * therefore checked on a worker thread (piscina) while the event loop serves other requests; the
 * request travels there by structured clone, which copies a few large strings cheaply. A body
 * with less text is checked on the loop, where a worker's round trip would cost more than the
 * rules.
 */
import { WorkerThreads } from '../../platform/workerThreads.js';
import type { ListingRequest } from './model/listing.js';
import { type CheckOptions, type CheckResult, checkListing } from './rules.js';

/** Characters of text above which the rules run on a worker thread: about 16 texts at the limit of rule 1. */
export const WORKER_ABOVE_TEXT_CHARS = 64 * 1024;

/** Whether the strings of `value` hold more than `limit` characters in all (stops counting there). */
function moreTextThan(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') {
      total += node.length;
      if (total > limit) return true;
    } else if (Array.isArray(node)) {
      stack.push(...node);
    } else if (typeof node === 'object' && node !== null) {
      stack.push(...Object.values(node));
    }
  }
  return false;
}

export class RuleChecks {
  private readonly threads = new WorkerThreads(new URL('./rulesWorker.js', import.meta.url));

  /** checkListing, on a worker thread when the request holds more text than WORKER_ABOVE_TEXT_CHARS. */
  async check(request: ListingRequest, options: CheckOptions = {}): Promise<CheckResult> {
    if (!moreTextThan(request, WORKER_ABOVE_TEXT_CHARS)) return checkListing(request, options);
    // The worker answers with checkListing's result, cloned back.
    return this.threads.run<CheckResult>({ request, options });
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}
