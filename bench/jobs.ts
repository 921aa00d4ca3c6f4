import type pg from 'pg';

/**
 * graphile-worker's queue as the end-to-end scenarios see it. A job leaves graphile_worker.jobs
 * when it completes; one still there with attempts left is pending (waiting, running, or waiting
 * for a retry).
 */
export async function pendingJobs(pool: pg.Pool, task: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1 AND attempts < max_attempts',
    [task],
  );
  return rows[0]!.n;
}

/**
 * Drops the pending jobs of `task` left by earlier scenarios (the `post` runs leave thousands of
 * unprocessed classifieds behind them, as no worker runs there), so a scenario whose worker would
 * otherwise start by working them off measures only its own load. Returns how many were dropped.
 */
export async function dropPendingJobs(pool: pg.Pool, task: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM graphile_worker.complete_jobs(
       ARRAY(SELECT id FROM graphile_worker.jobs WHERE task_identifier = $1 AND locked_at IS NULL))`,
    [task],
  );
  return rows[0]!.n;
}
