/*
 * Sandbox retention (spec: "The sandbox deletes listings automatically 90 days after the last write
 * or update to them"). A sandbox listing whose last write is more than 90 days (of 24 hours) before
 * `now` is deleted; one written exactly 90 days before `now` is kept until the next sweep. The task
 * runs daily, so a listing goes at the first sweep after its 90 days: between 90 and 91 days after
 * its last write. Production listings are never touched.
 *
 * It runs as the owner role, outside withTenant: it acts for every agency.
 */
import type pg from 'pg';
import { inTransaction } from '../../../platform/db/pool.js';
import { deleteSandboxListingsWrittenBefore } from '../repository.js';

export const SANDBOX_RETENTION_DAYS = 90;
const DAY_MS = 24 * 3600 * 1000;

/** Deletes the sandbox listings last written before now - 90 days; answers how many. */
export async function sweepSandboxListings(pool: pg.Pool, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SANDBOX_RETENTION_DAYS * DAY_MS);
  return inTransaction(pool, (client) => deleteSandboxListingsWrittenBefore(client, cutoff));
}
