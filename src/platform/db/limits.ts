/*
 * The limits of each pool's connections (README "Deadlines"). A request is answered within a
 * deadline, so its statements are; the worker's statements wait longer, since nobody waits on them
 * but a lease; maintenance (migrations, the CLI, backups) may run as long as its data takes.
 */
import type { DatabaseDeadlines } from '../../config.js';

/**
 * What a pool's connections may take, set on each connection as it opens, so that every statement
 * on it keeps to them (below, each pool's).
 */
export interface PoolLimits {
  /** PostgreSQL cancels a statement running longer (statement_timeout): its transaction rolls back. 0: never. */
  readonly statementTimeoutMs: number;
  /** PostgreSQL fails a statement waiting longer for a lock (lock_timeout). 0: never. */
  readonly lockTimeoutMs: number;
  /**
   * PostgreSQL ends a session that sits in a transaction longer without sending anything
   * (idle_in_transaction_session_timeout): a client that went away mid-transaction cannot leave its
   * locks held, nor send its COMMIT much later. 0: never.
   */
  readonly idleInTransactionTimeoutMs: number;
  /**
   * A query without any answer this long means the database stopped answering (a partition, a dead
   * host): the connection is dropped and the query fails. Longer than statementTimeoutMs, so that a
   * database that answers reports its own timeout first, with its transaction rolled back. 0: never.
   */
  readonly queryTimeoutMs: number;
  /** A checkout waits at most this long for a free connection. */
  readonly checkoutTimeoutMs: number;
}

/** Beyond the statement's deadline, what a database that answers takes to say it cancelled it. */
const ANSWER_MARGIN_MS = 1_000;

/** The request pools': the settings of DATABASE_*_TIMEOUT_MS. */
export function requestLimits(deadlines: DatabaseDeadlines): PoolLimits {
  return {
    statementTimeoutMs: deadlines.statementTimeoutMs,
    lockTimeoutMs: deadlines.lockTimeoutMs,
    // A request's transaction never waits on anything but the database between its statements.
    idleInTransactionTimeoutMs: deadlines.statementTimeoutMs,
    queryTimeoutMs: deadlines.statementTimeoutMs + ANSWER_MARGIN_MS,
    checkoutTimeoutMs: deadlines.checkoutTimeoutMs,
  };
}

/**
 * The worker's: a claim, a recorded outcome or a sweep's batch takes milliseconds, but a worker may
 * share a busy database with a flood of requests. A lock held for longer is somebody else's
 * (an operator's LOCK, a migration): the item goes back to the queue and is tried again later.
 */
export const WORK_LIMITS: PoolLimits = Object.freeze({
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 30_000,
  queryTimeoutMs: 30_000 + ANSWER_MARGIN_MS,
  // The worker runs more items at once than it has connections: each waits its turn.
  checkoutTimeoutMs: 30_000,
});

/** The CLI's and start-up's: a migration, a backup or a restore takes as long as its data takes. */
export const MAINTENANCE_LIMITS: PoolLimits = Object.freeze({
  statementTimeoutMs: 0,
  lockTimeoutMs: 0,
  idleInTransactionTimeoutMs: 0,
  queryTimeoutMs: 0,
  checkoutTimeoutMs: 10_000,
});

/**
 * What /ready, /metrics and the health probe may take: each answers within a second, whatever the
 * request pool is doing, so a locked queue table leaves a gauge out rather than the scrape waiting.
 */
export const PROBE_LIMITS: PoolLimits = Object.freeze({
  statementTimeoutMs: 500,
  lockTimeoutMs: 200,
  idleInTransactionTimeoutMs: 1_000,
  queryTimeoutMs: 800,
  checkoutTimeoutMs: 800,
});
