/*
 * Bounded deletes for retention tasks: batch after batch, each its own short transaction.
 */
import type { Pool } from '../db/pool.js';

/** Rows one sweep statement deletes at most: short transactions, no long lock on a busy table. */
export const SWEEP_BATCH = 1000;

/**
 * Repeats a deleting statement until it deletes fewer than a batch (or the worker stops): a
 * retention sweep that stops half-way has still done its part, and the next run goes on. The
 * statement takes the batch size as $1 (then `values`) and deletes at most that many rows.
 * Returns the rows deleted.
 */
export async function sweep(pool: Pool, text: string, values: readonly unknown[], signal: AbortSignal): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(text, [SWEEP_BATCH, ...values]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < SWEEP_BATCH || signal.aborted) return total;
  }
}
