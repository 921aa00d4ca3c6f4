import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withTenant, type Tenant } from '../../platform/db/tenant.js';
import { decodeSeqToken, encodeSeqToken } from '../../platform/http/cursors.js';
import { badRequest, notFound, type FieldError, type Problem } from '../../platform/http/problems.js';
import type { BlobStore } from '../../platform/blobs/index.js';
import { attachMedia, detachListingMedia } from './medias.js';
import { checkListing, isPublished, type Warning } from './model/rules.js';
import type { ListingRequest } from './model/types.js';

/**
 * Listings: create, update, delete, read one, page through the ids. Every query runs inside
 * withTenant (row-level security) and also names the tenant, so the queries use the per-tenant
 * indexes: a listing of another agency or environment is simply not there (404).
 *
 * A listing is keyed by the client's externalListingId (metadata.source.offererEstateId), unique per
 * agency and environment; its listingId is ours. Writes are checked synchronously (the spec: "Writes
 * are validated synchronously") and stored at once, so the 201/202 means the write is done.
 *
 * GET /listings pages oldest first by `seq` (creation order), PAGE_SIZE ids a page, keyset on seq:
 * a page ends at the seq of its last listing and the next starts above it. Seqs never change, so a
 * listing deleted meanwhile does not shift later pages, and listings created meanwhile come on later
 * pages (oldest first is why: a client syncing its list also learns of them in the same pass). A
 * create whose transaction drew its seq before a page was read and committed only after it can be
 * missed by that pass: the next pass lists it.
 */

export const PAGE_SIZE = 100;

export interface WriteAcknowledgement {
  requestId: string;
  listingId: string;
  externalListingId: string;
}

export interface CreateAcknowledgement extends WriteAcknowledgement {
  warnings: Warning[];
}

/** A listing as served: the stored request plus what the service knows about it. */
export interface Listing extends ListingRequest {
  listingId: string;
  externalListingId: string;
  isPublished: boolean;
  creationDate: string;
  lastUpdateDate: string;
}

export interface ListingPage {
  externalListingIds: string[];
  nextPageToken: string | null;
}

interface ListingRow {
  id: string;
  external_listing_id: string;
  estate_type: string;
  is_published: boolean;
  request: ListingRequest;
  created_at: Date;
  last_write_at: Date;
}

const EXTERNAL_ID_POINTER = '/metadata/source/offererEstateId';

/** Present once checkListing passed: rule 10 makes it mandatory. */
function externalIdOf(request: ListingRequest): string | undefined {
  return request.metadata.source?.offererEstateId;
}

function mediaIdsOf(request: ListingRequest): string[] {
  return (request.media ?? []).map((media) => media.externalMediaId);
}

function listingNotFound(externalListingId: string): Problem {
  return notFound(`No listing with externalListingId "${externalListingId}"`);
}

function rejected(errors: FieldError[]): Problem {
  return badRequest(errors, 'body');
}

/**
 * `store` lets media uploaded straight to S3 be confirmed while attaching them (see attachMedia);
 * the write fails with the listing's media problems, and stores nothing, when one is not usable.
 */
export async function createListing(
  pool: pg.Pool,
  tenant: Tenant,
  request: ListingRequest,
  store?: BlobStore,
): Promise<CreateAcknowledgement> {
  const { errors, warnings } = checkListing(request);
  if (errors.length > 0) throw rejected(errors);
  const externalListingId = externalIdOf(request);
  if (externalListingId === undefined) throw new Error('rule 10 let a listing without metadata.source.offererEstateId through');
  return withTenant(pool, tenant, async (client) => {
    // ON CONFLICT instead of a look-up first: two creates of one id at once get one 201 and one 400.
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO listings (id, environment, agency_id, external_listing_id, estate_type, is_published, request)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (environment, agency_id, external_listing_id) DO NOTHING
       RETURNING id`,
      [randomUUID(), tenant.environment, tenant.agencyId, externalListingId, request.data.estateType, isPublished(request), request],
    );
    const listingId = rows[0]?.id;
    if (listingId === undefined)
      throw rejected([{ name: EXTERNAL_ID_POINTER, reason: `externalListingId "${externalListingId}" already exists.` }]);
    await attachMedia(client, tenant, listingId, mediaIdsOf(request), store);
    return { requestId: randomUUID(), listingId, externalListingId, warnings };
  });
}

/** Replaces the listing's request; media it no longer references are let go of (attachMedia). */
export async function updateListing(
  pool: pg.Pool,
  tenant: Tenant,
  externalListingId: string,
  request: ListingRequest,
  store?: BlobStore,
): Promise<WriteAcknowledgement> {
  return withTenant(pool, tenant, async (client) => {
    // FOR UPDATE: a concurrent update or delete waits, so rule 11 is checked against the estateType that stays.
    const { rows } = await client.query<Pick<ListingRow, 'id' | 'estate_type'>>(
      `SELECT id, estate_type FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3 FOR UPDATE`,
      [tenant.environment, tenant.agencyId, externalListingId],
    );
    const existing = rows[0];
    if (!existing) throw listingNotFound(externalListingId);
    const errors: FieldError[] = [];
    const bodyId = externalIdOf(request);
    // A missing one is rule 10's to report.
    if (bodyId !== undefined && bodyId !== externalListingId) {
      errors.push({ name: EXTERNAL_ID_POINTER, reason: `must equal the externalListingId of the path ("${externalListingId}").` });
    }
    errors.push(...checkListing(request, { existingEstateType: existing.estate_type }).errors);
    if (errors.length > 0) throw rejected(errors);
    await client.query('UPDATE listings SET request = $2, is_published = $3, last_write_at = now() WHERE id = $1', [
      existing.id,
      request,
      isPublished(request),
    ]);
    await attachMedia(client, tenant, existing.id, mediaIdsOf(request), store);
    return { requestId: randomUUID(), listingId: existing.id, externalListingId };
  });
}

/** Deletes the listing; its media are let go of and swept with the unattached ones (medias.ts). */
export async function deleteListing(pool: pg.Pool, tenant: Tenant, externalListingId: string): Promise<WriteAcknowledgement> {
  return withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      'SELECT id FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3 FOR UPDATE',
      [tenant.environment, tenant.agencyId, externalListingId],
    );
    const listingId = rows[0]?.id;
    if (listingId === undefined) throw listingNotFound(externalListingId);
    await detachListingMedia(client, listingId);
    await client.query('DELETE FROM listings WHERE id = $1', [listingId]);
    return { requestId: randomUUID(), listingId, externalListingId };
  });
}

export async function readListing(pool: pg.Pool, tenant: Tenant, externalListingId: string): Promise<Listing> {
  const row = await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<ListingRow>(
      'SELECT * FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3',
      [tenant.environment, tenant.agencyId, externalListingId],
    );
    return rows[0];
  });
  if (!row) throw listingNotFound(externalListingId);
  return {
    ...row.request,
    listingId: row.id,
    externalListingId: row.external_listing_id,
    isPublished: row.is_published,
    creationDate: row.created_at.toISOString(),
    lastUpdateDate: row.last_write_at.toISOString(),
  };
}

// A keyset token of kind l (platform/http/cursors.ts); anything else is a clean 400.
function encodePageToken(seq: number): string {
  return encodeSeqToken('l', seq);
}

function decodePageToken(token: string): number {
  const seq = decodeSeqToken('l', token);
  if (seq === undefined)
    throw badRequest([{ name: 'nextPageToken', reason: 'is not a nextPageToken this endpoint returned.' }], 'requestParameter');
  return seq;
}

export async function listListings(pool: pg.Pool, tenant: Tenant, nextPageToken: string | undefined): Promise<ListingPage> {
  const after = nextPageToken === undefined ? 0 : decodePageToken(nextPageToken);
  const rows = await withTenant(pool, tenant, async (client) => {
    // One row more than a page: it only tells whether another page follows.
    const result = await client.query<{ seq: number; external_listing_id: string }>(
      `SELECT seq, external_listing_id FROM listings
        WHERE environment = $1 AND agency_id = $2 AND seq > $3
        ORDER BY seq LIMIT $4`,
      [tenant.environment, tenant.agencyId, after, PAGE_SIZE + 1],
    );
    return result.rows;
  });
  const page = rows.slice(0, PAGE_SIZE);
  const last = page.at(-1);
  return {
    externalListingIds: page.map((row) => row.external_listing_id),
    nextPageToken: rows.length > PAGE_SIZE && last ? encodePageToken(last.seq) : null,
  };
}
