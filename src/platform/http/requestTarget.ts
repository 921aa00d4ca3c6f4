/*
 * The request-target (path and query, as sent) is bounded before the router or any hook reads it:
 * one over the limit is answered 414 at once. Fastify's rewriteUrl runs first of all, so the router
 * and every hook see a short fixed path instead of the long one, which no route serves, and the
 * error handling's first hook (errors.ts) answers it. Node's parser already caps the request line
 * with the headers (16 KiB, then 431); this bound is the one the documents state.
 */
import type { IncomingMessage } from 'node:http';
import { Problem } from './problems.js';

/** The longest request-target (path and query, as sent) answered otherwise than 414. */
export const MAX_REQUEST_TARGET_BYTES = 4096;

/** What the router sees instead of a target over the limit: a path no route serves. */
const STAND_IN = '/.request-target-too-long';

const tooLong = new WeakSet<IncomingMessage>();

/**
 * Fastify's rewriteUrl: a target over the limit is replaced by the stand-in and its request marked.
 * Node reads the request line as latin1, one character a byte, so the length is the size as sent.
 */
export function boundRequestTarget(request: IncomingMessage): string {
  const url = request.url ?? '/';
  if (url.length <= MAX_REQUEST_TARGET_BYTES) return url;
  tooLong.add(request);
  return STAND_IN;
}

/** Whether boundRequestTarget replaced the target of `request`. */
export function targetTooLong(request: IncomingMessage): boolean {
  return tooLong.has(request);
}

export function uriTooLong(): Problem {
  return new Problem(414, 'URI too long', `The request target (path and query) exceeds ${MAX_REQUEST_TARGET_BYTES} bytes`);
}
