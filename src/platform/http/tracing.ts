/*
 * W3C trace context: each request continues the caller's trace or starts one; its traceparent is
 * the request id in logs, answers and problem instances.
 */
import { randomFillSync } from 'node:crypto';

/** W3C trace context: version-traceid-parentid-flags, lower-case hex. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * The traceparent of our span for a request: an incoming valid header keeps its trace id and
 * flags with our own span id; anything else (absent, malformed, all-zero ids, version ff)
 * starts a new sampled trace, as the W3C recommendation says.
 */
export function continueTrace(incoming: string | string[] | undefined): string {
  const span = randomHex(8);
  const header = Array.isArray(incoming) ? incoming[0] : incoming;
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (match && match[1] !== 'ff' && match[2] !== ZERO_TRACE && match[3] !== ZERO_SPAN) {
    return `00-${match[2]}-${span}-${match[4]}`;
  }
  return `00-${randomHex(16)}-${span}-01`;
}

// Ids drawn from a pool of random bytes refilled a few kilobytes at a time, as crypto.randomUUID
// does: a call into the random source per request was 1.7% of a classified POST's CPU.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('hex', used - bytes, used);
}

export function traceId(traceparent: string): string {
  return traceparent.slice(3, 35);
}
