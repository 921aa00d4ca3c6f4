/*
 * The OpenImmo imports table (migrations/023): an import is written with its file in the
 * transaction of the 202, claimed by a worker like the other queues (a lease, fair between
 * agencies), and finished with its per-object outcome, its file dropped.
 */
import type pg from 'pg';
import type { TenantScope } from '../../../platform/db/tenant.js';
import { busyArrays, type FairQueue, fairPick } from '../../../platform/work/fairClaim.js';
import type { QueueDepth } from '../../../platform/work/stream.js';
import type { ImportIssue, ImportObject, ImportProblem, ImportStatus, Umfang } from '../model/openimmo.js';

type Db = pg.ClientBase;

export interface ImportRow {
  id: string;
  seq: string;
  environment: string;
  agency_id: string;
  status: ImportStatus;
  kind: 'zip' | 'xml';
  size_bytes: string;
  umfang: Umfang | null;
  objects: ImportObject[];
  warnings: ImportIssue[];
  problem: ImportProblem | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A claimed import: what the worker needs to run it. */
export interface ClaimedImport {
  id: string;
  environment: string;
  agency_id: string;
  kind: 'zip' | 'xml';
  attempts: number;
  shares: string[];
}

export async function insertImport(db: Db, tenant: TenantScope, row: { id: string; kind: 'zip' | 'xml'; payload: Buffer }): Promise<void> {
  await db.query({
    name: 'clim.openimmo_insert',
    text: `INSERT INTO openimmo_imports (id, environment, agency_id, kind, payload, size_bytes) VALUES ($1, $2, $3, $4, $5, $6)`,
    values: [row.id, tenant.environment, tenant.agencyId, row.kind, row.payload, row.payload.length],
  });
}

const COLUMNS = 'id, seq, environment, agency_id, status, kind, size_bytes, umfang, objects, warnings, problem, created_at, finished_at';

export async function findImport(db: Db, tenant: TenantScope, id: string): Promise<ImportRow | undefined> {
  const { rows } = await db.query<ImportRow>({
    name: 'clim.openimmo_find',
    text: `SELECT ${COLUMNS} FROM openimmo_imports WHERE environment = $1 AND agency_id = $2 AND id = $3`,
    values: [tenant.environment, tenant.agencyId, id],
  });
  return rows[0];
}

/** The tenant's imports, newest first, from before `beforeSeq` (arrival order) when given. */
export async function recentImports(db: Db, tenant: TenantScope, limit: number, beforeSeq?: number): Promise<ImportRow[]> {
  const { rows } = await db.query<ImportRow>({
    name: 'clim.openimmo_recent',
    text: `SELECT ${COLUMNS} FROM openimmo_imports
            WHERE environment = $1 AND agency_id = $2 AND ($3::bigint IS NULL OR seq < $3)
            ORDER BY seq DESC LIMIT $4`,
    values: [tenant.environment, tenant.agencyId, beforeSeq ?? null, limit],
  });
  return rows;
}

/** The agency's imports not finished yet: what a new one waits behind (capacity). */
export async function unfinishedImports(db: Db, tenant: TenantScope, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>({
    name: 'clim.openimmo_unfinished',
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM openimmo_imports
            WHERE environment = $1 AND agency_id = $2 AND status = 'PROCESSING' LIMIT $3) unfinished`,
    values: [tenant.environment, tenant.agencyId, limit],
  });
  return rows[0]?.n ?? 0;
}

const QUEUE: FairQueue = {
  table: 'openimmo_imports',
  id: 'id',
  due: 'due_at',
  claimable: (q) => `${q}.status = 'PROCESSING'`,
  lane: ['environment', 'agency_id'],
  shares: [{ key: (q) => `'a:' || ${q}.environment || '/' || ${q}.agency_id`, cap: '$6' }],
  turns: 0,
};

export async function claimImports(
  pool: pg.Pool,
  claim: { workerId: string; leaseSeconds: number; limit: number; busy: ReadonlyMap<string, number>; perAgency: number },
): Promise<ClaimedImport[]> {
  const { rows } = await pool.query<ClaimedImport>({
    name: 'clim.openimmo_claim',
    text: `
    WITH RECURSIVE ${fairPick(QUEUE, { limit: '$3', busyKeys: '$4', busyCounts: '$5' })}
    UPDATE openimmo_imports q SET due_at = now() + make_interval(secs => $2), claimed_by = $1, attempts = q.attempts + 1
      FROM picked WHERE q.id = picked.id
    RETURNING q.id, q.environment, q.agency_id, q.kind, q.attempts, picked.shares`,
    values: [claim.workerId, claim.leaseSeconds, claim.limit, ...busyArrays(claim.busy), claim.perAgency],
  });
  return rows;
}

/** The file of an import the worker holds; undefined when it is no longer held (a lease lost) or done. */
export async function claimedPayload(pool: pg.Pool, id: string, workerId: string): Promise<Buffer | undefined> {
  const { rows } = await pool.query<{ payload: Buffer | null }>({
    name: 'clim.openimmo_payload',
    text: `SELECT payload FROM openimmo_imports WHERE id = $1 AND claimed_by = $2 AND status = 'PROCESSING'`,
    values: [id, workerId],
  });
  return rows[0]?.payload ?? undefined;
}

export async function renewImports(pool: pg.Pool, workerId: string, leaseSeconds: number, ids: readonly string[]): Promise<void> {
  await pool.query({
    name: 'clim.openimmo_renew',
    text: `UPDATE openimmo_imports SET due_at = now() + make_interval(secs => $2) WHERE id = ANY($3::uuid[]) AND claimed_by = $1`,
    values: [workerId, leaseSeconds, ids],
  });
}

/** Ends an import the worker holds with its outcome; its file goes. False when the worker no longer held it. */
export async function finishImport(
  db: pg.Pool,
  id: string,
  workerId: string,
  outcome: { status: 'DONE' | 'FAILED'; umfang?: Umfang; objects: ImportObject[]; warnings?: ImportIssue[]; problem?: ImportProblem },
): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'clim.openimmo_finish',
    text: `UPDATE openimmo_imports SET status = $3, umfang = $4, objects = $5, problem = $6, warnings = $7, payload = NULL,
                  finished_at = now(), claimed_by = NULL, last_error = NULL
            WHERE id = $1 AND claimed_by = $2 AND status = 'PROCESSING'`,
    values: [
      id,
      workerId,
      outcome.status,
      outcome.umfang ?? null,
      JSON.stringify(outcome.objects),
      outcome.problem ?? null,
      JSON.stringify(outcome.warnings ?? []),
    ],
  });
  return rowCount === 1;
}

export async function giveBackImport(
  pool: pg.Pool,
  id: string,
  workerId: string,
  delaySeconds: number,
  error: string | null,
): Promise<void> {
  await pool.query({
    name: 'clim.openimmo_give_back',
    text: `UPDATE openimmo_imports SET due_at = now() + make_interval(secs => $3), claimed_by = NULL, last_error = $4
            WHERE id = $1 AND claimed_by = $2`,
    values: [id, workerId, delaySeconds, error],
  });
}

export async function nextImportDue(pool: pg.Pool): Promise<Date | undefined> {
  const { rows } = await pool.query<{ at: Date | null }>({
    name: 'clim.openimmo_next_due',
    text: `SELECT min(due_at) AS at FROM openimmo_imports WHERE status = 'PROCESSING' AND due_at > now()`,
  });
  return rows[0]?.at ?? undefined;
}

export async function importQueueDepth(pool: pg.Pool): Promise<QueueDepth> {
  const { rows } = await pool.query<QueueDepth>({
    name: 'clim.openimmo_depth',
    text: `SELECT count(*) FILTER (WHERE due_at <= now() AND claimed_by IS NULL)::int AS ready,
                  count(*) FILTER (WHERE due_at > now() AND claimed_by IS NULL)::int AS scheduled,
                  count(*) FILTER (WHERE claimed_by IS NOT NULL)::int AS locked
             FROM openimmo_imports WHERE status = 'PROCESSING'`,
  });
  return rows[0] ?? { ready: 0, scheduled: 0, locked: 0 };
}

/** The listings of `provider` (an anbieter's key) that a VOLL transfer did not name. */
export async function providerListingsNotIn(
  db: Db,
  tenant: TenantScope,
  provider: string,
  named: readonly string[],
): Promise<{ id: string; external_listing_id: string }[]> {
  const { rows } = await db.query<{ id: string; external_listing_id: string }>({
    name: 'clim.openimmo_absent',
    text: `SELECT id, external_listing_id FROM listings
            WHERE environment = $1 AND agency_id = $2 AND openimmo_provider = $3 AND NOT (external_listing_id = ANY($4::text[]))
            ORDER BY external_listing_id`,
    values: [tenant.environment, tenant.agencyId, provider, named],
  });
  return rows;
}

export async function markOpenImmoProvider(db: Db, listingId: string, provider: string): Promise<void> {
  await db.query({
    name: 'clim.openimmo_mark',
    text: 'UPDATE listings SET openimmo_provider = $2 WHERE id = $1 AND openimmo_provider IS DISTINCT FROM $2',
    values: [listingId, provider],
  });
}

/** Deletes at most `batch` imports finished more than `days` ago; answers how many. */
export async function deleteFinishedImports(pool: pg.Pool, days: number, batch: number): Promise<number> {
  const { rowCount } = await pool.query({
    name: 'clim.openimmo_retention',
    text: `WITH batch AS MATERIALIZED (
             SELECT id FROM openimmo_imports WHERE status <> 'PROCESSING' AND finished_at < now() - make_interval(days => $1)
              LIMIT $2 FOR UPDATE SKIP LOCKED)
           DELETE FROM openimmo_imports i USING batch WHERE i.id = batch.id`,
    values: [days, batch],
  });
  return rowCount ?? 0;
}
