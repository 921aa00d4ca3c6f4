/*
 * The PostgreSQL pool and how statements reach it: bound parameters always, and a transaction's
 * statements sent in one round trip.
 */
import pg from 'pg';
import { announceAfterCommit } from './announcements.js';
import { MAINTENANCE_LIMITS, type PoolLimits } from './limits.js';
import { OneTransaction, runInOneTransaction } from './oneTransaction.js';
import type { Statement } from './statement.js';
import { isDatabaseUnavailable } from './unavailable.js';

export type { PoolLimits } from './limits.js';
export type { Statement } from './statement.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// Counts come back as bigint strings; our counts fit a JavaScript number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * How long opening a connection may take: short enough that a request meeting a database that
 * does not answer (a dead host, a partition) gets its 503 within 2 s.
 */
export const CONNECT_TIMEOUT_MS = 1_500;

// The pool hands its own options to each client, so the connect timeout, shorter than the
// checkout's, is set by the client class.
class Connection extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(
      typeof config === 'string'
        ? { connectionString: config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS }
        : { ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
    );
  }
}

type QueryTracer = (text: string, name: string | undefined) => (error?: unknown) => void;
const untracedQuery = Connection.prototype.query;

/**
 * Traces every statement of the pools' connections (telemetry/otlp.ts), or stops with undefined.
 * The class's query is replaced only then, so an untraced process runs pg's own. Statements are
 * bound, so the text holds no values. Each statement of a one-exchange transaction is a span; any
 * other Submittable (a cursor) is passed through untraced.
 */
export function traceQueries(tracer: QueryTracer | undefined): void {
  if (!tracer) {
    Connection.prototype.query = untracedQuery;
    return;
  }
  // pg's query is overloaded (promise or callback, text or config); the patch sees plain arguments.
  const query = untracedQuery as (this: pg.Client, ...args: unknown[]) => unknown;
  (Connection.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]): unknown {
    const [first] = args;
    const config =
      typeof first === 'string' ? { text: first } : (first as { text?: unknown; name?: unknown; submit?: unknown } | undefined);
    if (first instanceof OneTransaction) {
      // A span per statement of the exchange, all ending with it.
      const ends = first.statements.map((statement) => tracer(statement.text, statement.name));
      const callback = first.callback;
      first.callback = (error, results) => {
        for (const end of ends) end(error ?? undefined);
        callback(error, results);
      };
      return query.apply(this, args);
    }
    if (!config || typeof config.text !== 'string' || typeof config.submit === 'function') return query.apply(this, args);
    const end = tracer(config.text, typeof config.name === 'string' ? config.name : undefined);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, ...rest: unknown[]) => {
        end(error ?? undefined);
        return callback(error, ...rest);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args) as Promise<unknown>;
    result.then(
      () => end(),
      (error: unknown) => end(error),
    );
    return result;
  };
}

/**
 * Connections pipeline: queries issued without waiting for the previous answer travel together,
 * so a transaction whose statements are known up front costs one round trip (see transaction()).
 * On the 2-core machine round trips, not statements, were most of a write's cost.
 */
export function createPool(url: string, max: number, limits: PoolLimits = MAINTENANCE_LIMITS, { fixed = false } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A fixed pool keeps every connection it opened. One that closed after 30 s idle was opened
    // again at the worst moment: when a table an operator locked held part of the pool, the other
    // requests paid for the new connections (the database starting a process, the connection's
    // first plans). They are not opened ahead: 10 opened at start made POST /classifieds 2.4x
    // slower in the bench (936 against 2,241 req/s, PostgreSQL's CPU per request 1,441 µs
    // against 394), for reasons not found yet; opened as load needs them, they cost nothing.
    min: fixed ? max : 0,
    idleTimeoutMillis: 30_000,
    Client: Connection,
    connectionTimeoutMillis: limits.checkoutTimeoutMs,
    pipeline: true,
    // Sent with the connection's start-up (0 is PostgreSQL's "never", as an unset one is).
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    idle_in_transaction_session_timeout: limits.idleInTransactionTimeoutMs,
    ...(limits.queryTimeoutMs > 0 ? { query_timeout: limits.queryTimeoutMs } : {}),
    // An idle connection whose peer vanished is noticed by the kernel rather than at the next checkout.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client losing its connection (database restart) must not crash the process;
  // the pool replaces it on the next checkout.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // New work and events are announced once the transaction that made them has ended.
  announceAfterCommit(pool);
  return pool;
}

/** The one row a statement answers by its nature (an aggregate, an INSERT ... RETURNING of one row). */
export function onlyRow<R>(rows: readonly R[]): R {
  const [row] = rows;
  if (row === undefined || rows.length > 1) throw new Error(`expected one row, got ${rows.length}`);
  return row;
}

/** Runs one statement (a bare string is a statement without values). */
export function execute<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase | pg.Pool,
  statement: Statement | string,
): Promise<pg.QueryResult<R>> {
  if (typeof statement === 'string') return client.query<R>(statement);
  return client.query<R>({
    text: statement.text,
    values: statement.values === undefined ? undefined : [...statement.values],
    name: statement.name,
  });
}

/**
 * What `send` issues on `client` leaves in one write. Queries go out as they are issued, each in a
 * write of its own; corked, they leave together (a write is a system call for us and a wake-up for
 * the database, per query).
 */
export function inOneWrite<T>(client: pg.ClientBase, send: () => T): T {
  // pg's types do not declare the client's connection: a cast, and every member is optional in case it changes.
  const socket = (client as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  socket?.cork?.();
  try {
    return send();
  } finally {
    socket?.uncork?.();
  }
}

/**
 * Sends `statements` back to back and waits for all of them. In a transaction, the first failure
 * aborts it and every later statement fails with "current transaction is aborted": the first
 * failure is the one reported.
 */
export async function pipeline(client: pg.ClientBase, statements: readonly (Statement | string)[]): Promise<pg.QueryResult[]> {
  const issued = inOneWrite(client, () => statements.map((statement) => execute(client, statement)));
  const settled = await Promise.allSettled(issued);
  const results: pg.QueryResult[] = [];
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    results.push(result.value);
  }
  return results;
}

/**
 * Ends a failed transaction; a connection that cannot even roll back is not given back to the pool.
 * One that failed for want of the database (dropped, unanswered) is not asked to roll back: it
 * would wait for the same silence again, and the database rolls back a session that goes away.
 */
async function rollBackAndRelease(client: pg.PoolClient, error: unknown): Promise<void> {
  if (isDatabaseUnavailable(error)) {
    client.release(true);
    return;
  }
  try {
    await client.query('ROLLBACK');
    client.release();
  } catch {
    client.release(true);
  }
}

/**
 * Runs `fn` in a transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws.
 * `begin` are the statements that open it (BEGIN, and whatever must precede `fn`'s queries), sent
 * without waiting: `fn`'s first query travels with them.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  begin: readonly (Statement | string)[] = ['BEGIN'],
): Promise<T> {
  const client = await pool.connect();
  const opened = pipeline(client, begin);
  // Reported below, after fn, whose queries fail too when the opening failed.
  opened.catch(() => undefined);
  let result: T;
  try {
    try {
      result = await fn(client);
    } finally {
      await opened;
    }
    await client.query('COMMIT');
  } catch (error) {
    await rollBackAndRelease(client, error);
    throw error;
  }
  client.release();
  return result;
}

/**
 * A transaction whose statements are all known up front: `opening` and the statements go to the
 * database together and run as one implicit transaction, in one round trip and without BEGIN and
 * COMMIT statements unless one needs a transaction block (see oneTransaction.ts). The first
 * failing statement rolls back the whole transaction; the rest are skipped. Resolves to each
 * statement's result.
 */
export async function transaction<S extends readonly Statement[]>(
  pool: pg.Pool,
  statements: readonly [...S],
  opening: readonly Statement[] = [],
): Promise<ResultsOf<S>> {
  const client = await pool.connect();
  const run = runInOneTransaction(client, [...opening, ...statements]);
  let results: pg.QueryResult[];
  try {
    results = await run.results;
  } catch (error) {
    // A connection that lost its database, or may hold a half-known prepared statement, is not given back.
    client.release(isDatabaseUnavailable(error) || !(await run.reusable()));
    throw error;
  }
  client.release();
  // A cast to the tuple: one result per statement sent, so the slice has one per statement of `statements`.
  return results.slice(opening.length) as ResultsOf<S>;
}

/** One result per statement: a fixed list of statements gives a tuple of results, each there. */
export type ResultsOf<S extends readonly Statement[]> = { -readonly [K in keyof S]: pg.QueryResult };
