/*
 * The one catalogue of API errors. Every non-2xx answer of the APIs is an RFC 7807 problem
 * rendered by errors.ts from one of these; the token endpoint has its own RFC 6749 shape.
 */
export type ErrorSource = 'body' | 'requestParameter' | 'header' | 'contentType';

export interface FieldError {
  name: string;
  reason: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The members a problem adds to RFC 7807's: ours (errors, errorSource) typed, any other an API adds. */
export interface ProblemMembers {
  errors?: FieldError[];
  errorSource?: ErrorSource;
  [member: string]: unknown;
}

// Relative URI references (RFC 7807 allows them), resolved against the server's own address.
export const TYPE_BASE = '/problems/';

export class Problem extends Error {
  readonly type: string;
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly extra: ProblemMembers = {},
    type?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.type = TYPE_BASE + (type ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  }

  /** Fastify and other error consumers read the status from here. */
  get statusCode(): number {
    return this.status;
  }

  body(instance: string): Record<string, unknown> {
    return { type: this.type, title: this.title, status: this.status, detail: this.detail, instance, ...this.extra };
  }
}

export const VALIDATION_DETAIL = 'Your request has not been validated';

/** Beyond this many field errors a problem lists no more, so a bad body cannot make a much larger answer. */
export const MAX_FIELD_ERRORS = 100;

/** `found`: how many errors there are in all, when the caller stopped collecting them at the limit. */
export function badRequest(errors: FieldError[], errorSource: ErrorSource, detail = VALIDATION_DETAIL, found = errors.length): Problem {
  return new Problem(400, 'Bad request', detail, { errors: bounded(errors, found), errorSource }, 'bad-request');
}

/**
 * The most characters of a field error's name or reason: both can repeat what the client sent (an
 * unknown member's name, a path), and a refusal is stored with its Idempotency-Key. With at most
 * MAX_FIELD_ERRORS errors, a refusal stays below 64 KB whatever was sent.
 */
export const MAX_ERROR_TEXT = 256;

/** `text` cut to MAX_ERROR_TEXT characters, saying how long it was (never splitting a surrogate pair). */
export function clipped(text: string): string {
  if (text.length <= MAX_ERROR_TEXT) return text;
  const tail = `… (${text.length} characters)`;
  let end = MAX_ERROR_TEXT - tail.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + tail;
}

function bounded(all: FieldError[], found: number): FieldError[] {
  const errors = all.map((error) =>
    error.name.length > MAX_ERROR_TEXT || error.reason.length > MAX_ERROR_TEXT
      ? { name: clipped(error.name), reason: clipped(error.reason) }
      : error,
  );
  if (found <= MAX_FIELD_ERRORS) return errors;
  const listed = errors.slice(0, MAX_FIELD_ERRORS - 1);
  const more = found - listed.length;
  return [...listed, { name: '', reason: `${more} more errors were found and are not listed; correct these first.` }];
}

/** RFC 6750 section 3: the bare challenge when no token came, with `invalid_token` when one was refused. */
export function unauthorized(detail: string, error?: 'invalid_token'): Problem {
  return new Problem(401, 'Unauthorized', detail, {}, undefined, { 'www-authenticate': error ? `Bearer error="${error}"` : 'Bearer' });
}

/** A 401 of the console, whose credential is a session cookie: no Bearer challenge. */
export function signInRequired(detail: string): Problem {
  return new Problem(401, 'Unauthorized', detail);
}

export function forbidden(detail: string): Problem {
  return new Problem(403, 'Forbidden', detail);
}

/** RFC 6750 section 3.1: a 403 naming the scope that would have been enough. */
export function insufficientScope(scope: string): Problem {
  return new Problem(403, 'Forbidden', `The access token lacks the scope ${scope}`, {}, undefined, {
    'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  });
}

export function notFound(detail: string): Problem {
  return new Problem(404, 'Not found', detail, {}, 'not-found');
}

export function methodNotAllowed(method: string, allowed: string[]): Problem {
  return new Problem(405, 'Method not allowed', `${method} is not allowed here; allowed: ${allowed.join(', ')}`, {}, undefined, {
    allow: allowed.join(', '),
  });
}

export function payloadTooLarge(limit: number): Problem {
  return new Problem(413, 'Payload too large', `The request body exceeds ${limit} bytes`);
}

export function unsupportedMediaType(contentType: string | undefined, accepted: string[]): Problem {
  return new Problem(
    415,
    'Unsupported media type',
    `Content type ${contentType ? `"${contentType}"` : '(none)'} is not accepted; send ${accepted.join(' or ')}`,
    { errors: [{ name: 'Content-Type', reason: `must be ${accepted.join(' or ')}` }], errorSource: 'contentType' },
  );
}

/**
 * A JSON API's answer to a body of another content type: the contracts list a content type
 * failing validation among the 400s, with errorSource contentType (not HTTP's 415).
 */
export function contentTypeRefused(contentType: string | undefined): Problem {
  const given = contentType === undefined || contentType === '' ? 'none was given' : `got "${contentType}"`;
  return badRequest([{ name: 'Content-Type', reason: `must be application/json, ${given}.` }], 'contentType');
}

export function tooManyRequests(retryAfterSeconds: number, detail: string): Problem {
  return new Problem(429, 'Too many requests', detail, {}, undefined, { 'retry-after': String(retryAfterSeconds) });
}

export function internalError(): Problem {
  return new Problem(500, 'Internal server error', 'The server could not complete the request; quote the instance when reporting it');
}

export function serviceUnavailable(detail: string): Problem {
  return new Problem(503, 'Service unavailable', detail);
}

/** Seconds a client is asked to wait after a 503 or 507: about how long a database restart or failover takes. */
export const RETRY_AFTER_SECONDS = 5;

/** The database could not serve the request (unreachable, restarting, read-only, out of connections). */
export function databaseUnavailable(): Problem {
  return new Problem(503, 'Service unavailable', 'The database is unavailable; retry later', {}, undefined, {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
}

/** Seconds a client is asked to wait when the server is busy or a request met its deadline: a moment, not a restart. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** No database connection became free within DATABASE_CHECKOUT_TIMEOUT_MS: the server has more requests than it can serve now. */
export function databaseBusy(): Problem {
  return new Problem(
    503,
    'Service unavailable',
    'The server is busy: no database connection became free in time; retry later',
    {},
    undefined,
    {
      'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
    },
  );
}

/**
 * PostgreSQL cancelled a statement of the request at its deadline (DATABASE_LOCK_TIMEOUT_MS: the
 * data it needs is locked by other work; DATABASE_STATEMENT_TIMEOUT_MS: it ran too long) and
 * rolled its transaction back.
 */
export function databaseDeadline(kind: 'lock' | 'statement'): Problem {
  const why = kind === 'lock' ? 'the data it needs is locked by other work' : 'the database took too long';
  return new Problem(503, 'Service unavailable', `The request did not complete within its deadline: ${why}; retry later`, {}, undefined, {
    'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
  });
}

/**
 * The S3 store of listing media did not answer (unreachable, timing out, or its own 5xx): the
 * request is fine and may be retried, as after a database outage.
 */
export function blobStoreUnavailable(cause: unknown): Problem {
  const problem = new Problem(503, 'Service unavailable', 'The media store is unavailable; retry later', {}, undefined, {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
  // For the log line of the failed request: what the store's client saw.
  problem.cause = cause;
  return problem;
}

/** A request that arrived while the server shuts down: another process (or this one, restarted) will take it. */
export function shuttingDown(): Problem {
  return new Problem(503, 'Service unavailable', 'The server is shutting down; retry later', {}, undefined, {
    'retry-after': String(RETRY_AFTER_SECONDS),
    connection: 'close',
  });
}

/** Seconds to wait after a 507: freeing disk space is an operator's work, not a restart's. */
export const DISK_RETRY_AFTER_SECONDS = 60;

/** RFC 4918's 507: a write refused while free disk space is below MIN_FREE_DISK_MB; reads still work. */
export function insufficientStorage(): Problem {
  return new Problem(
    507,
    'Insufficient storage',
    'The server is low on disk space and accepts no writes now; reads still work; retry later',
    {},
    undefined,
    { 'retry-after': String(DISK_RETRY_AFTER_SECONDS) },
  );
}
