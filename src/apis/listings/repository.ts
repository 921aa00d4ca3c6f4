/*
 * All the SQL of the listing import: the listings table, the listing_media table, the sandbox
 * retention and the health probe. Values are always bound parameters.
 *
 * The request-path statements run inside withTenant (row-level security) and also name the
 * tenant, so they use the per-tenant indexes. The others run as the owner and act for every
 * agency: the sweeps, and the look-ups of the public upload route, which acts for whichever
 * tenant its signed key belongs to.
 */
import type pg from 'pg';
import type { Environment } from '../../platform/catalogue.js';
import { execute, type Statement } from '../../platform/db/pool.js';
import type { TenantScope } from '../../platform/db/tenant.js';
import type { ListingRequest } from './model/listing.js';

/** A connection, or the pool for a statement that needs no transaction of its own. */
type Db = pg.ClientBase | pg.Pool;

// --- Listings ----------------------------------------------------------------------------------------------

export interface ListingRow {
  id: string;
  seq: number;
  external_listing_id: string;
  estate_type: string;
  is_published: boolean;
  request: ListingRequest;
  created_at: Date;
  last_write_at: Date;
  /** The OpenImmo provider the listing came from (openimmo/imports.ts); null for a listing written as JSON. */
  openimmo_provider: string | null;
}

export interface NewListing {
  id: string;
  externalListingId: string;
  estateType: string;
  isPublished: boolean;
  request: ListingRequest;
}

/**
 * Inserts the listing; undefined when the tenant has one with this externalListingId already.
 * ON CONFLICT instead of a look-up first: two creates of one id at once get one 201 and one 400.
 */
export async function insertListing(db: Db, tenant: TenantScope, listing: NewListing): Promise<string | undefined> {
  const { rows } = await db.query<Pick<ListingRow, 'id'>>(
    `INSERT INTO listings (id, environment, agency_id, external_listing_id, estate_type, is_published, request)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (environment, agency_id, external_listing_id) DO NOTHING
     RETURNING id`,
    [listing.id, tenant.environment, tenant.agencyId, listing.externalListingId, listing.estateType, listing.isPublished, listing.request],
  );
  return rows[0]?.id;
}

/** The listing, locked until the transaction ends (FOR UPDATE): a concurrent update or delete waits. */
export async function lockListing(
  db: Db,
  tenant: TenantScope,
  externalListingId: string,
): Promise<Pick<ListingRow, 'id' | 'estate_type'> | undefined> {
  const { rows } = await db.query<Pick<ListingRow, 'id' | 'estate_type'>>(
    `SELECT id, estate_type FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3 FOR UPDATE`,
    [tenant.environment, tenant.agencyId, externalListingId],
  );
  return rows[0];
}

export async function replaceListingRequest(db: Db, listingId: string, request: ListingRequest, isPublished: boolean): Promise<void> {
  await db.query('UPDATE listings SET request = $2, is_published = $3, last_write_at = now() WHERE id = $1', [
    listingId,
    request,
    isPublished,
  ]);
}

export async function deleteListingRow(db: Db, listingId: string): Promise<void> {
  await db.query('DELETE FROM listings WHERE id = $1', [listingId]);
}

/** The listing of `externalListingId`, as findListing reads it: for a read sent with others (tenantRead). */
export function findListingStatement(tenant: TenantScope, externalListingId: string): Statement {
  return {
    name: 'clim.find_listing',
    text: 'SELECT * FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3',
    values: [tenant.environment, tenant.agencyId, externalListingId],
  };
}

export async function findListing(db: Db, tenant: TenantScope, externalListingId: string): Promise<ListingRow | undefined> {
  const { rows } = await execute<ListingRow>(db, findListingStatement(tenant, externalListingId));
  return rows[0];
}

/** The whole row, locked as lockListing() locks it: for a writer that compares what is stored. */
export async function lockListingRow(db: Db, tenant: TenantScope, externalListingId: string): Promise<ListingRow | undefined> {
  const { rows } = await db.query<ListingRow>(
    'SELECT * FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3 FOR UPDATE',
    [tenant.environment, tenant.agencyId, externalListingId],
  );
  return rows[0];
}

/**
 * The tenant's listings beyond `afterSeq` (undefined: from the start), at most `limit`: oldest
 * first as the API lists them, or newest first as the console does.
 */
export async function listingIdsAfter(
  db: Db,
  tenant: TenantScope,
  afterSeq: number | undefined,
  limit: number,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<Pick<ListingRow, 'seq' | 'external_listing_id'>[]> {
  const [beyond, direction] = order === 'newest' ? ['<', 'DESC'] : ['>', 'ASC'];
  const { rows } = await db.query<Pick<ListingRow, 'seq' | 'external_listing_id'>>(
    `SELECT seq, external_listing_id FROM listings
      WHERE environment = $1 AND agency_id = $2 AND ($3::bigint IS NULL OR seq ${beyond} $3)
      ORDER BY seq ${direction} LIMIT $4`,
    [tenant.environment, tenant.agencyId, afterSeq ?? null, limit],
  );
  return rows;
}

/** Deletes the sandbox listings last written before `cutoff`, of every agency; answers how many. */
export async function deleteSandboxListingsWrittenBefore(db: Db, cutoff: Date): Promise<number> {
  const { rows } = await db.query<Pick<ListingRow, 'id'>>(
    `DELETE FROM listings WHERE environment = 'sandbox' AND last_write_at < $1 RETURNING id`,
    [cutoff],
  );
  return rows.length;
}

// --- Media -------------------------------------------------------------------------------------------------

type MediaState = 'AWAITING_UPLOAD' | 'UPLOADED' | 'ATTACHED';

export interface MediaRow {
  external_media_id: string;
  environment: Environment;
  state: MediaState;
  storage_key: string;
  content_type: string;
  upload_expires_at: Date;
  listing_id: string | null;
}

/** A media's upload as POST /medias issues it. */
export interface MediaUpload {
  externalMediaId: string;
  fileName: string;
  storageKey: string;
  contentType: string;
  uploadExpiresAt: Date;
  /** How long after its URL expired the media may stay unattached. */
  graceSeconds: number;
}

function uploadValues(tenant: TenantScope, upload: MediaUpload): unknown[] {
  return [
    tenant.environment,
    tenant.agencyId,
    upload.externalMediaId,
    upload.fileName,
    upload.storageKey,
    upload.contentType,
    upload.uploadExpiresAt,
    upload.graceSeconds,
  ];
}

/** The tenant's media with this externalMediaId, locked until the transaction ends. */
export async function lockMedia(
  db: Db,
  tenant: TenantScope,
  externalMediaId: string,
): Promise<Pick<MediaRow, 'state' | 'storage_key' | 'upload_expires_at'> | undefined> {
  const { rows } = await db.query<Pick<MediaRow, 'state' | 'storage_key' | 'upload_expires_at'>>(
    `SELECT state, storage_key, upload_expires_at FROM listing_media
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3 FOR UPDATE`,
    [tenant.environment, tenant.agencyId, externalMediaId],
  );
  return rows[0];
}

/** Gives an existing media row a new upload, as if it had just been created. */
export async function reissueMediaUpload(db: Db, tenant: TenantScope, upload: MediaUpload): Promise<void> {
  await db.query(
    `UPDATE listing_media SET file_name = $4, storage_key = $5, content_type = $6, upload_expires_at = $7,
            delete_after = $7::timestamptz + make_interval(secs => $8), size_bytes = NULL, created_at = now(), uploaded_at = NULL
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3`,
    uploadValues(tenant, upload),
  );
}

/** Inserts a media awaiting its upload; false when a concurrent insert took its externalMediaId. */
export async function insertMedia(db: Db, tenant: TenantScope, upload: MediaUpload): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO listing_media (environment, agency_id, external_media_id, file_name, storage_key, state, content_type, upload_expires_at, delete_after)
     VALUES ($1, $2, $3, $4, $5, 'AWAITING_UPLOAD', $6, $7, $7::timestamptz + make_interval(secs => $8))
     ON CONFLICT (environment, agency_id, external_media_id) DO NOTHING`,
    uploadValues(tenant, upload),
  );
  return inserted.rowCount !== 0;
}

export type AttachableMedia = Pick<MediaRow, 'external_media_id' | 'state' | 'storage_key' | 'content_type' | 'listing_id'>;

/** The tenant's media among `externalMediaIds`, locked until the transaction ends. */
export async function lockMediaOf(db: Db, tenant: TenantScope, externalMediaIds: string[]): Promise<AttachableMedia[]> {
  const { rows } = await db.query<AttachableMedia>(
    `SELECT external_media_id, state, storage_key, content_type, listing_id FROM listing_media
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = ANY($3::text[]) FOR UPDATE`,
    [tenant.environment, tenant.agencyId, externalMediaIds],
  );
  return rows;
}

/** Records an upload confirmed at the blob store (made straight to S3). */
export async function recordConfirmedUpload(db: Db, tenant: TenantScope, externalMediaId: string, sizeBytes: number): Promise<void> {
  await db.query(
    `UPDATE listing_media SET size_bytes = $4, uploaded_at = now()
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3`,
    [tenant.environment, tenant.agencyId, externalMediaId, sizeBytes],
  );
}

/** Lets go of the listing's media other than `keptIds`: unattached, swept after `graceSeconds`. */
export async function releaseMediaNotIn(
  db: Db,
  tenant: TenantScope,
  listingId: string,
  keptIds: string[],
  graceSeconds: number,
): Promise<void> {
  await db.query(
    `UPDATE listing_media SET state = 'UPLOADED', listing_id = NULL, delete_after = now() + make_interval(secs => $5)
      WHERE environment = $1 AND agency_id = $2 AND listing_id = $3 AND NOT (external_media_id = ANY($4::text[]))`,
    [tenant.environment, tenant.agencyId, listingId, keptIds, graceSeconds],
  );
}

export async function attachMediaRows(db: Db, tenant: TenantScope, listingId: string, externalMediaIds: string[]): Promise<void> {
  await db.query(
    `UPDATE listing_media SET state = 'ATTACHED', listing_id = $3, delete_after = NULL
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = ANY($4::text[])`,
    [tenant.environment, tenant.agencyId, listingId, externalMediaIds],
  );
}

/** Lets go of all of the listing's media, swept after `graceSeconds`; answers how many. */
export async function releaseListingMedia(db: Db, listingId: string, graceSeconds: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE listing_media SET state = 'UPLOADED', listing_id = NULL, delete_after = now() + make_interval(secs => $2)
      WHERE listing_id = $1`,
    [listingId, graceSeconds],
  );
  return rowCount ?? 0;
}

export interface ListingMediaRow {
  external_media_id: string;
  file_name: string;
  state: MediaRow['state'];
  content_type: string;
  size_bytes: number | null;
}

export async function mediaOfListing(db: Db, listingId: string): Promise<ListingMediaRow[]> {
  const { rows } = await db.query<ListingMediaRow>(
    'SELECT external_media_id, file_name, state, content_type, size_bytes FROM listing_media WHERE listing_id = $1 ORDER BY external_media_id',
    [listingId],
  );
  return rows;
}

/** The media a storage key belongs to, whichever tenant's. */
export async function findMediaByStorageKey(
  db: Db,
  storageKey: string,
): Promise<Pick<MediaRow, 'environment' | 'state' | 'content_type'> | undefined> {
  const { rows } = await db.query<Pick<MediaRow, 'environment' | 'state' | 'content_type'>>(
    'SELECT environment, state, content_type FROM listing_media WHERE storage_key = $1',
    [storageKey],
  );
  return rows[0];
}

export async function lockMediaByStorageKey(db: Db, storageKey: string): Promise<Pick<MediaRow, 'state'> | undefined> {
  const { rows } = await db.query<Pick<MediaRow, 'state'>>('SELECT state FROM listing_media WHERE storage_key = $1 FOR UPDATE', [
    storageKey,
  ]);
  return rows[0];
}

export async function markUploaded(db: Db, storageKey: string, sizeBytes: number): Promise<void> {
  await db.query("UPDATE listing_media SET state = 'UPLOADED', size_bytes = $2, uploaded_at = now() WHERE storage_key = $1", [
    storageKey,
    sizeBytes,
  ]);
}

/**
 * Deletes at most `batch` media not attached in time (by `delete_after`, or `graceSeconds` after
 * the upload URL expired) and media attached to a listing row that is gone; answers their
 * storage keys. SKIP LOCKED: a media a write holds is left to the next round.
 */
export async function deleteExpiredMedia(db: Db, now: Date, batch: number, graceSeconds: number): Promise<string[]> {
  const { rows } = await db.query<Pick<MediaRow, 'storage_key'>>(
    `WITH batch AS MATERIALIZED (
       SELECT environment, agency_id, external_media_id FROM listing_media
        WHERE (state <> 'ATTACHED' AND coalesce(delete_after, upload_expires_at + make_interval(secs => $3)) <= $1)
           OR (state = 'ATTACHED' AND listing_id IS NULL)
        LIMIT $2 FOR UPDATE SKIP LOCKED)
     DELETE FROM listing_media m USING batch
      WHERE (m.environment, m.agency_id, m.external_media_id) = (batch.environment, batch.agency_id, batch.external_media_id)
     RETURNING m.storage_key`,
    [now, batch, graceSeconds],
  );
  return rows.map((row) => row.storage_key);
}

// --- Health ------------------------------------------------------------------------------------------------

/** Resolves when the database answers a trivial query. */
export async function probeDatabase(db: Db): Promise<void> {
  await db.query('SELECT 1');
}
