/*
 * The backlog of the work streams the end-to-end scenarios watch, read from their queue tables.
 */
import type pg from 'pg';
import { PROCESSING_STREAM } from '../src/apis/classifieds/jobs.js';
import { WEBHOOKS_STREAM } from '../src/platform/delivery/index.js';

/** The queue of each work stream the end-to-end scenarios watch: what is pending there, waiting or running. */
const QUEUES: Record<string, { pending: string; drop: string }> = {
  [PROCESSING_STREAM]: {
    pending: 'SELECT count(*)::int AS n FROM caas_processing_queue',
    drop: 'WITH dropped AS (DELETE FROM caas_processing_queue WHERE claimed_by IS NULL RETURNING 1) SELECT count(*)::int AS n FROM dropped',
  },
  [WEBHOOKS_STREAM]: {
    pending: "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'PENDING'",
    drop: `WITH dropped AS (UPDATE webhook_deliveries SET state = 'CANCELLED', next_attempt_at = NULL, finished_at = now()
                          WHERE state = 'PENDING' AND claimed_by IS NULL RETURNING 1)
           SELECT count(*)::int AS n FROM dropped`,
  },
};

function queue(stream: string): { pending: string; drop: string } {
  const found = QUEUES[stream];
  if (!found) throw new Error(`no queue known for stream ${stream}`);
  return found;
}

/** Items of `stream` pending: waiting, running, or waiting for a retry. */
export async function pendingJobs(pool: pg.Pool, stream: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(queue(stream).pending);
  return rows[0]!.n;
}

/**
 * Drops the pending items of `stream` left by earlier scenarios (the `post` runs leave thousands of
 * unprocessed classifieds behind them, as no worker runs there), so a scenario whose worker would
 * otherwise start by working them off measures only its own load. Returns how many were dropped.
 */
export async function dropPendingJobs(pool: pg.Pool, stream: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(queue(stream).drop);
  return rows[0]!.n;
}
