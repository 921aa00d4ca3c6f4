/*
 * Whether an error means "the database cannot serve us now" rather than "this request is wrong"
 * or "our code is wrong": the first is a 503 with Retry-After and one log line per outage, the
 * others are what they are. Read from the error alone, so every caller classifies alike.
 *
 * Two refusals are not outages: a request that met a deadline (its lock wait or statement ran out
 * of time, and PostgreSQL rolled its transaction back) and a request that found no free connection
 * in time (the server is busy). Both are 503s too, but the database is there and serves the rest.
 */

/** The database did not answer the health probe either: requests are refused at once until it does (db/probe.ts). */
export class DatabaseUnreachable extends Error {
  constructor(readonly reason: string) {
    super(`the database is unreachable: ${reason}`);
    this.name = 'DatabaseUnreachable';
  }
}

/** No connection of a request's share of the pool became free in time (db/share.ts). */
export class DatabaseBusy extends Error {
  constructor(
    readonly share: string,
    readonly waitedMs: number,
  ) {
    super(`no database connection of the ${share} share became free within ${waitedMs} ms`);
    this.name = 'DatabaseBusy';
  }
}

export type DeadlineKind = 'lock' | 'statement';

/**
 * A statement that PostgreSQL cancelled at its deadline (lock_timeout: 55P03, statement_timeout:
 * 57014, told apart from NOWAIT and a cancelled backend by their messages): which one, or undefined.
 */
export function deadlineMet(error: unknown): DeadlineKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  const message: unknown = Reflect.get(error, 'message');
  if (typeof message !== 'string') return undefined;
  if (code === '55P03' && message.includes('lock timeout')) return 'lock';
  if (code === '57014' && message.includes('statement timeout')) return 'statement';
  return undefined;
}

/** Whether no connection was free in time: ours (a share's wait) or the pool's own checkout timeout. */
export function isDatabaseBusy(error: unknown): boolean {
  return error instanceof DatabaseBusy || (error instanceof Error && error.message === 'timeout exceeded when trying to connect');
}

// Node's socket errors: the server is down, restarting, unreachable or its name does not resolve.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// SQLSTATEs of a server that is there but will not work for us now. 3D000 (no such database) is
// not among them: that is a configuration to fix, not a fault that passes by waiting.
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown: another backend crashed and the server restarts
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53000', // insufficient_resources
  '53100', // disk_full
  '53200', // out_of_memory
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: a standby, or default_transaction_read_only
  '25P03', // idle_in_transaction_session_timeout: the session ended while our statement was on its way
]);

// pg's own messages when a connection died under a query or was never made.
const PG_MESSAGES = [
  'Connection terminated',
  // A client's own connect timeout (connectionTimeoutMillis), which destroys the socket with this.
  'timeout expired',
  // A query no answer came for (query_timeout): the database stopped answering.
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** Why an error means the database is unavailable (its SQLSTATE or code and message), or undefined when it does not. */
export function unavailability(error: unknown): string | undefined {
  return find(error, 0);
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailability(error) !== undefined;
}

/** Whether the database refused a write because it is read-only (a standby, or set so). */
export function isReadOnly(error: unknown): boolean {
  return unavailability(error)?.startsWith('25006') === true;
}

function find(error: unknown, depth: number): string | undefined {
  // Causes nest a few levels at most; the bound only guards against a cycle.
  if (typeof error !== 'object' || error === null || depth > 8) return undefined;
  if (error instanceof DatabaseUnreachable) return error.message;
  const code: unknown = Reflect.get(error, 'code');
  const message: unknown = Reflect.get(error, 'message');
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string') {
    // Class 08: connection exceptions.
    if (SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SOCKET_CODES.has(code)) return `${code} ${text}`.trim();
    // object_not_in_prerequisite_state, which ALTER DATABASE ... ALLOW_CONNECTIONS false gives at connect.
    if (code === '55000' && text.includes('is not currently accepting connections')) return `${code} ${text}`;
  }
  if (PG_MESSAGES.some((known) => text.startsWith(known))) return text;
  const errors: unknown = Reflect.get(error, 'errors');
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = find(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return find(Reflect.get(error, 'cause'), depth + 1);
}

/** Why the database refused a request, when it is not the request's fault nor ours: each is a 503 of its own. */
export type DatabaseRefusal = 'busy' | 'deadline' | 'unavailable';

export function databaseRefusal(error: unknown): DatabaseRefusal | undefined {
  if (isDatabaseBusy(error)) return 'busy';
  if (deadlineMet(error) !== undefined) return 'deadline';
  if (isDatabaseUnavailable(error)) return 'unavailable';
  return undefined;
}
