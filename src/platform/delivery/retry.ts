/*
 * When to try a failed delivery again. The schedule (WEBHOOK_RETRY_SCHEDULE) gives the wait
 * before each retry; every wait is stretched by a random 0-25% so that deliveries failed by the
 * same outage do not all return at the same instant. Jitter only ever adds: a retry never comes
 * sooner than the schedule (or the receiver's Retry-After) says.
 */

/** A receiver cannot park a delivery for longer than this with Retry-After; it still counts as an attempt. */
export const RETRY_AFTER_CAP_SECONDS = 3600;
const JITTER = 0.25;

/**
 * Seconds a Retry-After header asks for (delta-seconds or an HTTP date), at most the cap;
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    seconds = Math.max(0, (date - nowMs) / 1000);
  }
  return Math.min(seconds, RETRY_AFTER_CAP_SECONDS);
}

/**
 * Seconds until retry number `retry` (0 for the first retry), or undefined when the schedule is
 * used up and the delivery has failed.
 */
export function retryDelaySeconds(
  schedule: readonly number[],
  retry: number,
  retryAfterSeconds?: number,
  random = Math.random(),
): number | undefined {
  const base = schedule[retry];
  if (base === undefined) return undefined;
  return Math.max(base * (1 + JITTER * random), retryAfterSeconds ?? 0);
}
