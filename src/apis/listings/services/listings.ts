/*
 * Listings: create, update, delete, read one, page through the ids. Every query runs inside
 * withTenant or tenantRead (row-level security) and also names the tenant, so the queries use the per-tenant
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
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BlobStore } from '../../../platform/blobs/index.js';
import { tenantRead, type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { decodeSeqToken, encodeSeqToken } from '../../../platform/http/cursors.js';
import { badRequest, type FieldError, notFound, type Problem } from '../../../platform/http/problems.js';
import {
  type Listing,
  type ListingCreated,
  type ListingPage,
  type ListingRequest,
  PAGE_SIZE,
  type WriteAcknowledgement,
} from '../model/listing.js';
import {
  deleteListingRow,
  findListingStatement,
  insertListing,
  type ListingRow,
  listingIdsAfter,
  lockListing,
  replaceListingRequest,
} from '../repository.js';
import type { RuleChecks } from '../ruleChecks.js';
import { isPublished } from '../rules.js';
import { attachMedia, detachListingMedia } from './medias.js';

/** What createListing acknowledges; the route adds the links. */
export type CreateAcknowledgement = Omit<ListingCreated, 'links'>;

const EXTERNAL_ID_POINTER = '/metadata/source/offererEstateId';

/** Present once the rules passed: rule 10 makes it mandatory. */
function externalIdOf(request: ListingRequest): string | undefined {
  return request.metadata.source?.offererEstateId;
}

function mediaIdsOf(request: ListingRequest): string[] {
  return (request.media ?? []).map((media) => media.externalMediaId);
}

function listingNotFound(externalListingId: string): Problem {
  return notFound(`No listing with externalListingId "${externalListingId}"`);
}

/** A create of an externalListingId the tenant has already. */
function externalIdInUse(externalListingId: string): FieldError {
  return { name: EXTERNAL_ID_POINTER, reason: `externalListingId "${externalListingId}" already exists.` };
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
  tenant: TenantScope,
  request: ListingRequest,
  rules: RuleChecks,
  store?: BlobStore,
): Promise<CreateAcknowledgement> {
  const { errors, warnings } = await rules.check(request);
  if (errors.length > 0) throw rejected(errors);
  const externalListingId = externalIdOf(request);
  if (externalListingId === undefined) throw new Error('rule 10 let a listing without metadata.source.offererEstateId through');
  return withTenant(pool, tenant, async (client) => {
    const listingId = await storeNewListing(client, tenant, externalListingId, request, store);
    return { requestId: randomUUID(), listingId, externalListingId, warnings };
  });
}

/**
 * The database part of a create, in the caller's transaction: the listing under its
 * externalListingId, then its media attached. Throws the 400 of an id in use or of an unusable
 * media (the validation extension runs it too, in a transaction it rolls back).
 */
export async function storeNewListing(
  client: pg.ClientBase,
  tenant: TenantScope,
  externalListingId: string,
  request: ListingRequest,
  store?: BlobStore,
): Promise<string> {
  const listingId = await insertListing(client, tenant, {
    id: randomUUID(),
    externalListingId,
    estateType: request.data.estateType,
    isPublished: isPublished(request),
    request,
  });
  if (listingId === undefined) throw rejected([externalIdInUse(externalListingId)]);
  await attachMedia(client, tenant, listingId, mediaIdsOf(request), store);
  return listingId;
}

/** Replaces the listing's request; media it no longer references are let go of (attachMedia). */
export async function updateListing(
  pool: pg.Pool,
  tenant: TenantScope,
  externalListingId: string,
  request: ListingRequest,
  rules: RuleChecks,
  store?: BlobStore,
): Promise<WriteAcknowledgement> {
  return withTenant(pool, tenant, async (client) => {
    // Locked: a concurrent update or delete waits, so rule 11 is checked against the estateType that stays.
    const existing = await lockListing(client, tenant, externalListingId);
    if (!existing) throw listingNotFound(externalListingId);
    const errors: FieldError[] = [];
    const bodyId = externalIdOf(request);
    // A missing one is rule 10's to report.
    if (bodyId !== undefined && bodyId !== externalListingId) {
      errors.push({ name: EXTERNAL_ID_POINTER, reason: `must equal the externalListingId of the path ("${externalListingId}").` });
    }
    errors.push(...(await rules.check(request, { existingEstateType: existing.estate_type })).errors);
    if (errors.length > 0) throw rejected(errors);
    await replaceListingRequest(client, existing.id, request, isPublished(request));
    await attachMedia(client, tenant, existing.id, mediaIdsOf(request), store);
    return { requestId: randomUUID(), listingId: existing.id, externalListingId };
  });
}

/** Deletes the listing; its media are let go of and swept with the unattached ones (medias.ts). */
export async function deleteListing(pool: pg.Pool, tenant: TenantScope, externalListingId: string): Promise<WriteAcknowledgement> {
  return withTenant(pool, tenant, async (client) => {
    const existing = await lockListing(client, tenant, externalListingId);
    if (!existing) throw listingNotFound(externalListingId);
    await detachListingMedia(client, existing.id);
    await deleteListingRow(client, existing.id);
    return { requestId: randomUUID(), listingId: existing.id, externalListingId };
  });
}

export async function readListing(pool: pg.Pool, tenant: TenantScope, externalListingId: string): Promise<Listing> {
  const [found] = await tenantRead(pool, tenant, [findListingStatement(tenant, externalListingId)]);
  const row = found.rows[0] as ListingRow | undefined;
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

/** A page of the tenant's listings: oldest first (the API's order), or newest first (the console's). */
export async function listListings(
  pool: pg.Pool,
  tenant: TenantScope,
  nextPageToken: string | undefined,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<ListingPage> {
  const after = nextPageToken === undefined ? undefined : decodePageToken(nextPageToken);
  // One row more than a page: it only tells whether another page follows.
  const rows = await withTenant(pool, tenant, (client) => listingIdsAfter(client, tenant, after, PAGE_SIZE + 1, order));
  const page = rows.slice(0, PAGE_SIZE);
  const last = page.at(-1);
  return {
    externalListingIds: page.map((row) => row.external_listing_id),
    nextPageToken: rows.length > PAGE_SIZE && last ? encodePageToken(last.seq) : null,
  };
}
