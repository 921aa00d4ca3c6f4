/*
 * Retries of refused or failed calls. A 429 means the request was not processed, so any method
 * is sent again; a 5xx or a connection that failed may or may not have been processed, so only an
 * idempotent method is. The wait is exponential backoff with full jitter (clients retrying together
 * spread out), or the server's Retry-After when it gives one; both are bounded per wait and in
 * total, and a Retry-After beyond those bounds ends the retries at once rather than being cut short.
 * A POST with an Idempotency-Key counts as idempotent, and its 409 with Retry-After (the first
 * attempt with that key still runs on the server) is waited out and retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterMs } from './errors.js';

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Its status, or undefined when the connection failed. */
  status: number | undefined;
  error: unknown;
  /** How long the client waits before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Attempts after the first (default 3). */
  maxRetries?: number;
  /** The first backoff's ceiling; each next one doubles it (default 250 ms). */
  baseDelayMs?: number;
  /** The longest single wait; a Retry-After beyond it is not waited for (default 30 s). */
  maxDelayMs?: number;
  /** The most waited in total over one call's retries (default 60 s). */
  maxTotalDelayMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** Reads and drops a body nobody will read, so its connection goes back to the pool. */
export async function discard(response: Response): Promise<void> {
  await response.arrayBuffer().catch(() => undefined);
}

export class RetryPolicy {
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxTotalDelayMs: number;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(options: RetryOptions | false = {}) {
    const given = options === false ? { maxRetries: 0 } : options;
    this.maxRetries = given.maxRetries ?? 3;
    this.baseDelayMs = given.baseDelayMs ?? 250;
    this.maxDelayMs = given.maxDelayMs ?? 30_000;
    this.maxTotalDelayMs = given.maxTotalDelayMs ?? 60_000;
    this.onRetry = given.onRetry;
    for (const [name, value] of Object.entries({
      maxRetries: this.maxRetries,
      baseDelayMs: this.baseDelayMs,
      maxDelayMs: this.maxDelayMs,
      maxTotalDelayMs: this.maxTotalDelayMs,
    })) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry.${name} must be a number of at least 0, not ${value}`);
    }
  }

  /**
   * Runs `send` until it answers something not worth retrying, or the bounds are reached: then the
   * last answer is returned (or the last connection error thrown) for the caller to report.
   * `idempotent` says whether a 5xx or a failed connection may be retried.
   */
  async run(
    request: { method: string; url: string; idempotent: boolean; keyed?: boolean },
    send: () => Promise<Response>,
  ): Promise<Response> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await send();
      } catch (caught) {
        // fetch rejects with a TypeError when no answer came (refused, reset, DNS); anything else is not a transport failure.
        if (!(caught instanceof TypeError)) throw caught;
        error = caught;
      }
      const delayMs =
        attempt > this.maxRetries ? undefined : this.delayBefore(attempt, response, request.idempotent, request.keyed === true);
      if (delayMs === undefined || waited + delayMs > this.maxTotalDelayMs) {
        if (response) return response;
        throw error;
      }
      this.onRetry?.({ method: request.method, url: request.url, attempt, status: response?.status, error, delayMs });
      if (response) await discard(response);
      await sleep(delayMs);
      waited += delayMs;
    }
  }

  /** The wait before retrying after `attempt` answered `response` (none: a connection failure), or undefined: do not retry. */
  private delayBefore(attempt: number, response: Response | undefined, idempotent: boolean, keyed: boolean): number | undefined {
    const inFlight = keyed && response?.status === 409 && response.headers.has('retry-after');
    const retryable = response === undefined ? idempotent : response.status === 429 || inFlight || (response.status >= 500 && idempotent);
    if (!retryable) return undefined;
    const asked = response === undefined ? undefined : retryAfterMs(response.headers.get('retry-after'));
    if (asked !== undefined) return asked <= this.maxDelayMs ? asked : undefined;
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(Math.random() * ceiling);
  }
}
