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
import { type BlobStore, openBlobStore } from '../../../platform/blobs/index.js';
import { BlobTooLarge, type LocalBlobStore } from '../../../platform/blobs/local.js';
import type { Environment } from '../../../platform/catalogue.js';
import { inTransaction } from '../../../platform/db/pool.js';
import { type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { badRequest, type FieldError, forbidden, Problem, payloadTooLarge, unsupportedMediaType } from '../../../platform/http/problems.js';
import { mediaType } from '../../../platform/http/mediaType.js';
import type { Logger } from '../../../platform/log.js';
import type { ApiDependencies } from '../../../platform/module.js';
import { MAX_MEDIA_BYTES, MEDIA_CONTENT_TYPES, type MediaCreated, type NewMedia, UPLOAD_URL_SECONDS } from '../model/media.js';
import {
  attachMediaRows,
  deleteExpiredMedia,
  findMediaByStorageKey,
  insertMedia,
  lockMedia,
  lockMediaByStorageKey,
  lockMediaOf,
  type AttachableMedia,
  type MediaUpload,
  markUploaded,
  mediaOfListing,
  recordConfirmedUpload,
  reissueMediaUpload,
  releaseListingMedia,
  releaseMediaNotIn,
} from '../repository.js';

/**
 * How long a media may stay unattached: after its upload URL expired, or after a listing update
 * or delete let go of it. Long enough to upload a whole gallery and then write the listing, or to
 * move a media from one listing to another in two updates.
 */
export const UNATTACHED_GRACE_SECONDS = 15 * 60;

type Db = pg.ClientBase;

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
  tenant: TenantScope,
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
  const row: MediaUpload = {
    externalMediaId: media.externalMediaId,
    fileName: media.fileName,
    storageKey: key,
    contentType,
    uploadExpiresAt: upload.expiresAt,
    graceSeconds: UNATTACHED_GRACE_SECONDS,
  };
  // A retry after an expired URL: the object that URL may have received unconfirmed is deleted
  // first, so a store that fails refuses the request (503) before anything changed, and the
  // client's retry is the same request again, not one whose id is taken by now.
  const earlier = await withTenant(pool, tenant, (client) => lockMedia(client, tenant, media.externalMediaId));
  const retried = earlier?.state === 'AWAITING_UPLOAD' && earlier.upload_expires_at <= now ? earlier.storage_key : undefined;
  if (retried !== undefined) await store.delete(retried);
  const replaced = await withTenant(pool, tenant, async (client) => {
    const existing = await lockMedia(client, tenant, media.externalMediaId);
    if (existing) {
      if (existing.state !== 'AWAITING_UPLOAD' || existing.upload_expires_at > now) throw taken;
      await reissueMediaUpload(client, tenant, row);
      return existing.storage_key;
    }
    // A concurrent POST with the same id won.
    if (!(await insertMedia(client, tenant, row))) throw taken;
    return undefined;
  });
  // Another retry of the same id replaced a later URL meanwhile: its object goes too.
  if (replaced !== undefined && replaced !== retried) await store.delete(replaced);
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
  tenant: TenantScope,
  listingId: string,
  externalMediaIds: string[],
  store?: BlobStore,
): Promise<void> {
  const errors: FieldError[] = [];
  const first = new Map<string, number>();
  const rows = await lockMediaOf(client, tenant, externalMediaIds);
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
  for (const { id, size } of confirmed) await recordConfirmedUpload(client, tenant, id, size);
  await releaseMediaNotIn(client, tenant, listingId, externalMediaIds, UNATTACHED_GRACE_SECONDS);
  await attachMediaRows(client, tenant, listingId, externalMediaIds);
}

/**
 * An S3 presigned PUT cannot limit the size, so the object is checked here: present, of the
 * presigned type, at most MAX_MEDIA_BYTES. An oversized object is deleted at once.
 * Returns the size, 'missing', or the reason it is refused.
 */
async function confirmRemoteUpload(store: BlobStore, row: AttachableMedia): Promise<number | 'missing' | string> {
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
export function detachListingMedia(client: Db, listingId: string): Promise<number> {
  return releaseListingMedia(client, listingId, UNATTACHED_GRACE_SECONDS);
}

/** The media a listing references, in no particular order (for reads and tests). */
export async function listingMedia(
  client: Db,
  listingId: string,
): Promise<{ externalMediaId: string; fileName: string; contentType: string; sizeBytes: number | null }[]> {
  const rows = await mediaOfListing(client, listingId);
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
  const row = await findMediaByStorageKey(pool, upload.key);
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
      const locked = await lockMediaByStorageKey(client, upload.key);
      if (!locked) throw forbidden(INVALID_URL);
      if (locked.state !== 'AWAITING_UPLOAD') throw conflict(USED_UP);
      await staged.commit();
      await markUploaded(client, upload.key, staged.size);
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
    const keys = await deleteExpiredMedia(pool, now, batch, UNATTACHED_GRACE_SECONDS);
    for (const key of keys) {
      await store.delete(key).catch((error: unknown) => logger.warn({ err: error, key }, 'could not delete the blob of a swept media'));
    }
    deleted += keys.length;
    if (keys.length < batch) break;
  }
  return deleted;
}
