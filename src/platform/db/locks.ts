/*
 * The one order in which transactions lock the rows of subscriptions, deliveries and work, so
 * that no two of them can wait for each other (a deadlock needs two transactions taking two
 * locks in opposite orders):
 *
 *   0. a new lead's ROW EXCLUSIVE lock on the leads table (what its INSERT takes anyway), taken
 *      first so that a lead waiting for the table (an operator's LOCK TABLE) holds nothing its
 *      agency's other leads wait for; ROW EXCLUSIVE conflicts with no lock immogate takes;
 *   1. advisory locks of an agency (the lead API's ingestion lock), if any;
 *   2. the subscription's row (lead_webhook_subscriptions, caas_webhook_subscriptions): locked or
 *      changed before any of its deliveries, and several of them in ascending id;
 *   3. webhook_deliveries rows, in ascending id: a statement changing several first locks them
 *      all with `SELECT ... ORDER BY id FOR UPDATE` (lockedInOrder), because an UPDATE or DELETE
 *      locks in the order it happens to scan, whatever the order of an `= ANY($1)` array;
 *   4. webhook_attempts rows, only while holding their delivery's row;
 *   5. classifieds' rows in ascending id (an API write locks its one classified first, a
 *      processing write its group's), then what belongs to them (revisions, media, statuses),
 *      then their work rows (caas_processing_queue).
 *
 * Inserting new rows (a lead's notifications, a status's webhooks) waits for no lock and may
 * come anywhere.
 * A transaction may skip a level, never go back up one. Statements that need no order because
 * they never wait use SKIP LOCKED: the claims (a locked item is left for the next claim), lease
 * renewals (a lease skipped once is renewed at the next round, long before it runs out) and
 * retention sweeps (a finished row someone holds goes at the next run).
 *
 * What still fails with a deadlock or a serialization failure (a path outside this order, the
 * planner's choices in a statement joining several tables) is retried whole by
 * retryingConflicts: it is not the receiver's fault nor a reason to record an attempt as
 * interrupted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';

/** SQLSTATEs of a transaction that lost a lock conflict: retrying it whole is the remedy. */
const CONFLICTS = new Set([
  // deadlock_detected
  '40P01',
  // serialization_failure
  '40001',
]);

/** Whether `error` is PostgreSQL ending a transaction to break a deadlock or a serialization conflict. */
export function isLockConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && CONFLICTS.has((error as { code?: unknown }).code as string);
}

export interface ConflictRetries {
  /** Tries in all (5). */
  tries?: number;
  /** Pause before the second try, doubled for each later one, jittered ±50% (20 ms). */
  firstPauseMs?: number;
  /** Told of each conflict that is retried. */
  onRetry?: (error: unknown, tryNumber: number) => void;
}

/**
 * Runs `work` (a whole transaction: it must begin and end inside) again when it fails with a
 * deadlock or a serialization failure, after a short jittered pause, so two transactions that
 * collided do not collide again in step. Any other error, or the last try's conflict, is thrown.
 */
export async function retryingConflicts<T>(work: () => Promise<T>, options: ConflictRetries = {}): Promise<T> {
  const { tries = 5, firstPauseMs = 20, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isLockConflict(error) || attempt >= tries) throw error;
      onRetry?.(error, attempt);
      await sleep(firstPauseMs * 2 ** (attempt - 1) * (0.5 + Math.random()));
    }
  }
}

/**
 * An onRetry that logs each retried conflict as a warning: one that still happens is a path out
 * of the lock order, which an operator (and the soak bench, counting `deadlock detected`) should see.
 */
export function conflictLogged(logger: Logger, what: string): (error: unknown, tryNumber: number) => void {
  return (error, tryNumber) => logger.warn({ err: error, try: tryNumber }, `${what} met a lock conflict; trying the transaction again`);
}

/**
 * SQL text of a CTE, `name`, that locks the rows of `table` matching `where` in ascending `id`
 * and yields their ids: the statement's UPDATE or DELETE then joins it (`WHERE t.id = name.id`),
 * and only ever waits here, in order. MATERIALIZED keeps it from being folded into the join.
 * `where` is SQL text over the table's columns, its values bound parameters of the statement.
 * The strength is the one the statement takes anyway: NO KEY UPDATE for an UPDATE that leaves
 * the key alone (it does not hold off the key-share locks of foreign key checks), UPDATE for a
 * DELETE; `skipLocked` for a statement that must not wait at all.
 */
export function lockedInOrder(
  name: string,
  table: string,
  where: string,
  options: { skipLocked?: boolean; id?: string; strength?: 'NO KEY UPDATE' | 'UPDATE' } = {},
): string {
  const { id = 'id', strength = 'NO KEY UPDATE', skipLocked = false } = options;
  return `${name} AS MATERIALIZED (
    SELECT ${id} AS id FROM ${table} WHERE ${where} ORDER BY ${id} FOR ${strength}${skipLocked ? ' SKIP LOCKED' : ''})`;
}
