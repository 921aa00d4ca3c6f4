/*
 * Media of the listing import API: POST /medias hands out a presigned upload URL, the bytes go
 * straight to the blob store, and a listing write attaches the media by externalMediaId.
 *
 * A row's life: AWAITING_UPLOAD (URL issued) -> UPLOADED (bytes stored) -> ATTACHED (a listing
 * references it). With the local backend the upload route marks UPLOADED; S3 uploads bypass
 * immogate, so there the upload is confirmed (HeadObject: present, size, type) when a listing
 * attaches the media. Whatever is not attached by its `delete_after` is swept, rows and blobs.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import type { Environment } from '../../platform/catalogue.js';
import type { ApiDependencies } from '../../platform/module.js';
import { openBlobStore, type BlobStore } from '../../platform/blobs/index.js';
import { BlobTooLarge, LocalBlobStore } from '../../platform/blobs/local.js';
import { inTransaction } from '../../platform/db/pool.js';
import { withTenant, type Tenant } from '../../platform/db/tenant.js';
import type { ScheduledTask } from '../../platform/work/schedule.js';
import type { Logger } from '../../platform/log.js';
import { badRequest, forbidden, payloadTooLarge, Problem, unsupportedMediaType, type FieldError } from '../../platform/http/problems.js';

/** Contract: a presigned URL accepts one upload for 60 seconds. */
export const UPLOAD_URL_SECONDS = 60;
/** Contract: "files up to 40 MB", read generously as 40 MiB so no client counting in decimal megabytes is refused. */
export const MAX_MEDIA_BYTES = 40 * 1024 * 1024;
/**
 * How long a media may stay unattached: after its upload URL expired, or after a listing update
 * or delete let go of it. Long enough to upload a whole gallery and then write the listing, or to
 * move a media from one listing to another in two updates.
 */
export const UNATTACHED_GRACE_SECONDS = 15 * 60;

/** The file types a media may have, by fileName extension; the upload must carry this Content-Type. */
export const MEDIA_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
});

type Db = pg.ClientBase;
type TenantRef = Pick<Tenant, 'environment' | 'agencyId'>;

export interface NewMedia {
  externalMediaId: string;
  fileName: string;
}

export interface MediaCreated {
  externalMediaId: string;
  presignedURL: string;
}

interface MediaRow {
  external_media_id: string;
  environment: Environment;
  state: 'AWAITING_UPLOAD' | 'UPLOADED' | 'ATTACHED';
  storage_key: string;
  content_type: string;
  upload_expires_at: Date;
  listing_id: string | null;
}

// One store per pool (that is, per server or worker process): the local backend's HMAC key is
// read from the database once.
const stores = new WeakMap<object, Promise<BlobStore>>();

/** The configured blob store, opened once per process. */
export function mediaStore(deps: Pick<ApiDependencies, 'config' | 'pool'>): Promise<BlobStore> {
  let store = stores.get(deps.pool);
  if (!store) {
    store = openBlobStore(deps.config, deps.pool);
    stores.set(deps.pool, store);
    store.catch(() => stores.delete(deps.pool));
  }
  return store;
}

export function contentTypeOf(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  return MEDIA_CONTENT_TYPES[fileName.slice(dot + 1).toLowerCase()];
}

/** The media type of a Content-Type header, without parameters, lower case. */
function mediaType(header: string | undefined): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

export interface CreateMediaOptions {
  /** Where the local backend's uploads go: the upload route under the caller's API root. */
  uploadBaseUrl: string;
  maxBytes?: number;
  now?: Date;
}

/**
 * POST /medias. An externalMediaId is unique per agency and environment; it may be reused only
 * when its earlier URL expired without an upload having been confirmed (the client is retrying).
 */
export async function createMedia(
  pool: pg.Pool,
  store: BlobStore,
  tenant: TenantRef,
  media: NewMedia,
  options: CreateMediaOptions,
): Promise<MediaCreated> {
  const contentType = contentTypeOf(media.fileName);
  if (contentType === undefined) {
    const allowed = Object.keys(MEDIA_CONTENT_TYPES).join(', ');
    throw badRequest([{ name: '/fileName', reason: `must end in one of the media file extensions: ${allowed}.` }], 'body');
  }
  const now = options.now ?? new Date();
  const key = `listings/${tenant.environment}/${randomUUID()}.${media.fileName.slice(media.fileName.lastIndexOf('.') + 1).toLowerCase()}`;
  const upload = await store.presignUpload({
    key,
    contentType,
    maxBytes: options.maxBytes ?? MAX_MEDIA_BYTES,
    expiresInSeconds: UPLOAD_URL_SECONDS,
    uploadBaseUrl: options.uploadBaseUrl,
  });
  const taken = badRequest(
    [{ name: '/externalMediaId', reason: `is already used by a media of this agency: "${media.externalMediaId}".` }],
    'body',
  );
  const replaced = await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<Pick<MediaRow, 'state' | 'storage_key' | 'upload_expires_at'>>(
      `SELECT state, storage_key, upload_expires_at FROM listing_media
        WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3 FOR UPDATE`,
      [tenant.environment, tenant.agencyId, media.externalMediaId],
    );
    const existing = rows[0];
    const values = [
      tenant.environment,
      tenant.agencyId,
      media.externalMediaId,
      media.fileName,
      key,
      contentType,
      upload.expiresAt,
      UNATTACHED_GRACE_SECONDS,
    ];
    if (existing) {
      if (existing.state !== 'AWAITING_UPLOAD' || existing.upload_expires_at > now) throw taken;
      await client.query(
        `UPDATE listing_media SET file_name = $4, storage_key = $5, content_type = $6, upload_expires_at = $7,
                delete_after = $7::timestamptz + make_interval(secs => $8), size_bytes = NULL, created_at = now(), uploaded_at = NULL
          WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3`,
        values,
      );
      return existing.storage_key;
    }
    const inserted = await client.query(
      `INSERT INTO listing_media (environment, agency_id, external_media_id, file_name, storage_key, state, content_type, upload_expires_at, delete_after)
       VALUES ($1, $2, $3, $4, $5, 'AWAITING_UPLOAD', $6, $7, $7::timestamptz + make_interval(secs => $8))
       ON CONFLICT (environment, agency_id, external_media_id) DO NOTHING`,
      values,
    );
    // A concurrent POST with the same id won.
    if (inserted.rowCount === 0) throw taken;
    return undefined;
  });
  // An S3 upload to the expired URL may have happened unconfirmed; the id now names the new one.
  if (replaced !== undefined) await store.delete(replaced);
  return { externalMediaId: media.externalMediaId, presignedURL: upload.url };
}

/**
 * Makes the media a listing write references ATTACHED to it, in the caller's tenant
 * transaction, and lets go of the ones the listing no longer references. A media that is
 * unknown (to this agency and environment), not uploaded yet or attached to another listing
 * gives a 400 naming `/media/<i>/externalMediaId`. `store` is needed only to confirm uploads
 * made straight to S3; without it such media count as not uploaded.
 */
export async function attachMedia(
  client: Db,
  tenant: TenantRef,
  listingId: string,
  externalMediaIds: string[],
  store?: BlobStore,
): Promise<void> {
  const errors: FieldError[] = [];
  const first = new Map<string, number>();
  const { rows } = await client.query<MediaRow>(
    `SELECT external_media_id, state, storage_key, content_type, listing_id FROM listing_media
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = ANY($3::text[]) FOR UPDATE`,
    [tenant.environment, tenant.agencyId, externalMediaIds],
  );
  const byId = new Map(rows.map((row) => [row.external_media_id, row]));
  const confirmed: { id: string; size: number }[] = [];
  for (const [i, id] of externalMediaIds.entries()) {
    const name = `/media/${i}/externalMediaId`;
    const earlier = first.get(id);
    if (earlier !== undefined) {
      errors.push({ name, reason: `repeats /media/${earlier}/externalMediaId.` });
      continue;
    }
    first.set(id, i);
    const row = byId.get(id);
    if (!row) {
      errors.push({ name, reason: `is not a media of this agency: request its upload with POST /medias first ("${id}").` });
    } else if (row.state === 'AWAITING_UPLOAD') {
      const upload = store?.kind === 's3' ? await confirmRemoteUpload(store, row) : 'missing';
      if (typeof upload === 'number') confirmed.push({ id, size: upload });
      else
        errors.push({
          name,
          reason: upload === 'missing' ? `has not been uploaded yet: PUT the file to its presignedURL first ("${id}").` : upload,
        });
    } else if (row.state === 'ATTACHED' && row.listing_id !== null && row.listing_id !== listingId) {
      errors.push({ name, reason: `is attached to another listing ("${id}").` });
    }
  }
  if (errors.length > 0) throw badRequest(errors, 'body');
  for (const { id, size } of confirmed) {
    await client.query(
      `UPDATE listing_media SET size_bytes = $4, uploaded_at = now()
        WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3`,
      [tenant.environment, tenant.agencyId, id, size],
    );
  }
  await client.query(
    `UPDATE listing_media SET state = 'UPLOADED', listing_id = NULL, delete_after = now() + make_interval(secs => $5)
      WHERE environment = $1 AND agency_id = $2 AND listing_id = $3 AND NOT (external_media_id = ANY($4::text[]))`,
    [tenant.environment, tenant.agencyId, listingId, externalMediaIds, UNATTACHED_GRACE_SECONDS],
  );
  await client.query(
    `UPDATE listing_media SET state = 'ATTACHED', listing_id = $3, delete_after = NULL
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = ANY($4::text[])`,
    [tenant.environment, tenant.agencyId, listingId, externalMediaIds],
  );
}

/**
 * An S3 presigned PUT cannot limit the size, so the object is checked here: present, of the
 * presigned type, at most MAX_MEDIA_BYTES. An oversized object is deleted at once.
 * Returns the size, 'missing', or the reason it is refused.
 */
async function confirmRemoteUpload(store: BlobStore, row: MediaRow): Promise<number | 'missing' | string> {
  const stat = await store.stat(row.storage_key);
  if (!stat) return 'missing';
  if (stat.size > MAX_MEDIA_BYTES) {
    await store.delete(row.storage_key);
    return `was larger than ${MAX_MEDIA_BYTES} bytes and has been deleted: upload a smaller file ("${row.external_media_id}").`;
  }
  if (mediaType(stat.contentType) !== row.content_type) {
    return `was uploaded as ${stat.contentType}, not ${row.content_type} ("${row.external_media_id}").`;
  }
  return stat.size;
}

/** On listing delete: its media are let go of and swept after the grace period. */
export async function detachListingMedia(client: Db, listingId: string): Promise<number> {
  const { rowCount } = await client.query(
    `UPDATE listing_media SET state = 'UPLOADED', listing_id = NULL, delete_after = now() + make_interval(secs => $2)
      WHERE listing_id = $1`,
    [listingId, UNATTACHED_GRACE_SECONDS],
  );
  return rowCount ?? 0;
}

/** The media a listing references, in no particular order (for reads and tests). */
export async function listingMedia(
  client: Db,
  listingId: string,
): Promise<{ externalMediaId: string; fileName: string; contentType: string; sizeBytes: number | null }[]> {
  const { rows } = await client.query<{ external_media_id: string; file_name: string; content_type: string; size_bytes: number | null }>(
    'SELECT external_media_id, file_name, content_type, size_bytes FROM listing_media WHERE listing_id = $1 ORDER BY external_media_id',
    [listingId],
  );
  return rows.map((row) => ({
    externalMediaId: row.external_media_id,
    fileName: row.file_name,
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
  }));
}

export interface UploadRequest {
  environment: Environment;
  key: string;
  expires: string | undefined;
  signature: string | undefined;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: Readable;
}

export interface UploadResult {
  etag: string;
}

const INVALID_URL = 'The upload URL is not valid: request a new one with POST /medias';
const USED_UP = 'The file of this media has been uploaded already: an upload URL accepts one upload';

function conflict(detail: string): Problem {
  return new Problem(409, 'Conflict', detail);
}

/**
 * The local backend's presigned PUT. Checks cost nothing before the body is read: URL
 * (signature over key, type, limit and expiry; then expiry), one upload only, Content-Type,
 * declared length. The body then streams to a staging file with a byte guard, and becomes the
 * blob only if the row is still awaiting its upload (two racing PUTs: one wins, one gets 409).
 * A refused or broken upload leaves nothing behind and does not use the URL up.
 */
export async function receiveUpload(
  pool: pg.Pool,
  store: LocalBlobStore,
  upload: UploadRequest,
  maxBytes = MAX_MEDIA_BYTES,
  now = Date.now(),
): Promise<UploadResult> {
  // The upload route is public: it acts for whichever tenant the signed key belongs to.
  const { rows } = await pool.query<MediaRow>('SELECT environment, state, content_type FROM listing_media WHERE storage_key = $1', [
    upload.key,
  ]);
  const row = rows[0];
  if (!row || row.environment !== upload.environment) throw forbidden(INVALID_URL);
  const verdict = store.verifyUpload(
    { key: upload.key, contentType: row.content_type, maxBytes, expires: upload.expires, signature: upload.signature },
    now,
  );
  if (verdict === 'invalid') throw forbidden(INVALID_URL);
  if (verdict === 'expired') throw forbidden('The upload URL has expired: request a new one with POST /medias');
  if (row.state !== 'AWAITING_UPLOAD') throw conflict(USED_UP);
  if (mediaType(upload.contentType) !== row.content_type) throw unsupportedMediaType(upload.contentType, [row.content_type]);
  if (upload.contentLength !== undefined && Number(upload.contentLength) > maxBytes) throw payloadTooLarge(maxBytes);

  const staged = await store.receive(upload.key, upload.body, { contentType: row.content_type, maxBytes }).catch((error: unknown) => {
    throw error instanceof BlobTooLarge ? payloadTooLarge(maxBytes) : error;
  });
  if (staged.size === 0) {
    await staged.discard();
    throw badRequest([{ name: '', reason: 'is empty: send the bytes of the file.' }], 'body');
  }
  try {
    await inTransaction(pool, async (client) => {
      const locked = await client.query<MediaRow>('SELECT state FROM listing_media WHERE storage_key = $1 FOR UPDATE', [upload.key]);
      if (!locked.rows[0]) throw forbidden(INVALID_URL);
      if (locked.rows[0].state !== 'AWAITING_UPLOAD') throw conflict(USED_UP);
      await staged.commit();
      await client.query("UPDATE listing_media SET state = 'UPLOADED', size_bytes = $2, uploaded_at = now() WHERE storage_key = $1", [
        upload.key,
        staged.size,
      ]);
    });
  } catch (error) {
    await staged.discard();
    throw error;
  }
  return { etag: `"${staged.md5}"` };
}

/**
 * Deletes every media not attached in time (rows first, then their blobs; a blob whose delete
 * fails is logged and left behind, never a row without its blob), and media whose listing row
 * disappeared without letting go of them. Returns how many were deleted.
 */
export async function sweepMedia(
  pool: pg.Pool,
  store: BlobStore,
  logger: Pick<Logger, 'warn'>,
  now = new Date(),
  batch = 500,
): Promise<number> {
  let deleted = 0;
  // Bounded: a backlog larger than this is finished by the next run.
  for (let round = 0; round < 100; round++) {
    const { rows } = await pool.query<{ storage_key: string }>(
      `DELETE FROM listing_media WHERE (environment, agency_id, external_media_id) IN (
         SELECT environment, agency_id, external_media_id FROM listing_media
          WHERE (state <> 'ATTACHED' AND coalesce(delete_after, upload_expires_at + make_interval(secs => $3)) <= $1)
             OR (state = 'ATTACHED' AND listing_id IS NULL)
          LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING storage_key`,
      [now, batch, UNATTACHED_GRACE_SECONDS],
    );
    for (const { storage_key: key } of rows) {
      await store.delete(key).catch((error: unknown) => logger.warn({ err: error, key }, 'could not delete the blob of a swept media'));
    }
    deleted += rows.length;
    if (rows.length < batch) break;
  }
  return deleted;
}

/** An upload file untouched this long was abandoned: no upload may go quiet for an hour (see slowClients.ts). */
export const ABANDONED_UPLOAD_MS = 3600_000;

export const mediaSweepTask: ScheduledTask = {
  name: 'listings:sweep_media',
  everySeconds: 5 * 60,
  async run({ pool, config, logger }) {
    const store = await mediaStore({ pool, config });
    const deleted = await sweepMedia(pool, store, logger);
    if (deleted > 0) logger.info({ deleted }, 'swept unattached listing media');
    if (store instanceof LocalBlobStore) {
      const abandoned = await store.sweepIncoming(ABANDONED_UPLOAD_MS);
      if (abandoned > 0) logger.info({ abandoned }, 'swept uploads a crash left unfinished');
    }
  },
};

export { BlobTooLarge, LocalBlobStore };
