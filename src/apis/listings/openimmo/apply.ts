/*
 * One `immobilie` of an OpenImmo transfer applied to the agency's listings, as a JSON create,
 * update or delete would be: the same schema, the same 21 rules, the same media checks. Each
 * object is its own transaction, so one refused object never stops the others, and applying an
 * object twice (a worker that crashed mid-file runs it again) ends as once: an upsert of what is
 * stored already is `unchanged`, a delete of what is gone too.
 *
 * An error's `path` is the element it came from: the mapping says which element each member of
 * the request was read from, and the longest such prefix of the error's pointer names it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ValidateFunction } from 'ajv';
import type pg from 'pg';
import type { BlobStore } from '../../../platform/blobs/index.js';
import { messageOf } from '../../../platform/caught.js';
import type { Outbound } from '../../../platform/delivery/outbound.js';
import { type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { type FieldError, Problem } from '../../../platform/http/problems.js';
import { fieldError, newAjv, splitIntoFunctions } from '../../../platform/http/validation.js';
import { ListingRequest } from '../model/listing.js';
import { MAX_MEDIA_BYTES } from '../model/media.js';
import type { ImportIssue, ImportObject } from '../model/openimmo.js';
import {
  deleteListingRow,
  findListing,
  insertMedia,
  lockListing,
  lockListingRow,
  lockMediaOf,
  markUploaded,
  replaceListingRequest,
} from '../repository.js';
import { type CheckOptions, type CheckResult, isPublished } from '../rules.js';
import { storeNewListing } from '../services/listings.js';
import { attachMedia, contentTypeOf, detachListingMedia, UNATTACHED_GRACE_SECONDS } from '../services/medias.js';
import { markOpenImmoProvider } from './imports.js';
import type { Attachment, TransferObject } from './mapping.js';
import { findFile } from './zip.js';

export interface ApplyContext {
  pool: pg.Pool;
  tenant: TenantScope;
  /** The 21 rules (rules.ts), wherever they run. */
  rules: { check(request: ListingRequest, options?: CheckOptions): Promise<CheckResult> };
  store: () => Promise<BlobStore>;
  /** Fetches REMOTE attachments (and pfad URLs) under the SSRF policy of media downloads. */
  outbound: Outbound;
  /** The ZIP's files by path (empty for a plain XML). */
  files: ReadonlyMap<string, Buffer>;
  /** The XML's name in the ZIP: a pfad may be relative to its folder. */
  xmlName?: string;
  /** The provider's key (anbieternr, else openimmo_anid): what a later VOLL transfer retires by. */
  provider: string;
  signal?: AbortSignal;
}

let validator: ValidateFunction | undefined;

/** The apiRequest schema's findings, as the JSON routes word them. Compiled once per process, on first use. */
function schemaErrors(request: unknown): FieldError[] {
  validator ??= newAjv('body').compile(splitIntoFunctions(ListingRequest));
  if (validator(request)) return [];
  return (validator.errors ?? []).map((error) => fieldError(error as Parameters<typeof fieldError>[0], 'body'));
}

/** The element an error at `pointer` came from: the longest source prefix, else the object itself. */
export function elementOf(pointer: string, sources: Readonly<Record<string, string>>, fallback: string): string {
  for (let prefix = pointer; prefix !== ''; prefix = prefix.slice(0, prefix.lastIndexOf('/'))) {
    const element = sources[prefix];
    if (element !== undefined) return element;
  }
  return fallback;
}

function issuesOf(errors: readonly FieldError[], sources: Readonly<Record<string, string>>, fallback: string): ImportIssue[] {
  return errors.map((error) => ({ path: elementOf(error.name, sources, fallback), reason: error.reason }));
}

function outcome(object: TransferObject, rest: Omit<ImportObject, 'objektnrExtern' | 'path'>): ImportObject {
  const warnings = [...object.warnings, ...(rest.warnings ?? [])];
  const result: ImportObject = { objektnrExtern: object.objektnrExtern ?? null, path: object.path, ...rest };
  if (warnings.length > 0) result.warnings = warnings;
  else delete result.warnings;
  return result;
}

/** A media of this listing keyed by its content: the same file fed again is found, not stored again. */
function mediaIdOf(externalListingId: string, bytes: Buffer): string {
  const digest = createHash('sha256').update(externalListingId).update('\u0000').update(bytes).digest('hex');
  return `openimmo-${digest.slice(0, 40)}`;
}

const URL_PATTERN = /^https?:\/\//i;

/** The bytes of an attachment: in the ZIP, inline, or at its URL; a string says why not. */
async function bytesOf(attachment: Attachment, context: ApplyContext): Promise<Buffer | string> {
  if (attachment.inline !== undefined) return attachment.inline;
  const pfad = attachment.pfad;
  if (pfad === undefined || pfad === '') return 'has no daten/pfad or anhanginhalt: nothing to store.';
  if (attachment.location === 'REMOTE' || URL_PATTERN.test(pfad)) {
    try {
      const response = await context.outbound.request({ url: pfad, maxBytes: MAX_MEDIA_BYTES, signal: context.signal });
      if (response.status !== 200) return `could not be fetched: ${pfad} answered ${response.status}.`;
      return response.body;
    } catch (error) {
      return `could not be fetched: ${messageOf(error)}.`;
    }
  }
  const file = findFile(context.files, pfad, context.xmlName);
  if (file === undefined) {
    return context.files.size === 0
      ? `names the file "${pfad}", but an XML posted alone has no files: post a ZIP with it.`
      : `names the file "${pfad}", which the ZIP does not hold.`;
  }
  return file.data;
}

function fileNameOf(attachment: Attachment): string {
  const pfad = attachment.pfad ?? '';
  const name = pfad.slice(pfad.lastIndexOf('/') + 1).split('?')[0] ?? '';
  return name !== '' ? name.slice(0, 255) : `attachment.${(attachment.format ?? 'bin').toLowerCase()}`;
}

/**
 * Stores the object's attachments as media of the agency (each once: by content) and answers the
 * request's `media` with the sources of its members, and a warning for each attachment kept out.
 */
async function storeAttachments(
  object: TransferObject,
  externalListingId: string,
  context: ApplyContext,
): Promise<{ media: NonNullable<ListingRequest['media']>; sources: Record<string, string>; warnings: ImportIssue[] }> {
  const media: NonNullable<ListingRequest['media']> = [];
  const sources: Record<string, string> = {};
  const warnings: ImportIssue[] = [];
  for (const attachment of object.attachments) {
    const fileName = fileNameOf(attachment);
    const contentType = contentTypeOf(fileName) ?? contentTypeOf(`file.${attachment.format ?? ''}`);
    if (contentType === undefined) {
      warnings.push({ path: attachment.path, reason: `not stored: "${fileName}" is not of a media type the listing import accepts.` });
      continue;
    }
    const bytes = await bytesOf(attachment, context);
    if (typeof bytes === 'string') {
      warnings.push({ path: attachment.path, reason: `not stored: it ${bytes}` });
      continue;
    }
    if (bytes.length === 0 || bytes.length > MAX_MEDIA_BYTES) {
      const why = bytes.length === 0 ? 'is empty' : `is larger than ${MAX_MEDIA_BYTES} bytes`;
      warnings.push({ path: attachment.path, reason: `not stored: the file ${why}.` });
      continue;
    }
    const externalMediaId = mediaIdOf(externalListingId, bytes);
    if (media.some((earlier) => earlier.externalMediaId === externalMediaId)) {
      warnings.push({ path: attachment.path, reason: 'not stored: the same file is attached to this object already.' });
      continue;
    }
    await storeMediaOnce(context, externalMediaId, fileName, contentType, bytes);
    sources[`/media/${media.length}`] = attachment.path;
    media.push({
      externalMediaId,
      mediaType: attachment.mediaType as NonNullable<ListingRequest['media']>[number]['mediaType'],
      ...(attachment.category !== undefined
        ? { category: attachment.category as NonNullable<ListingRequest['media']>[number]['category'] }
        : {}),
      ...(attachment.title !== undefined ? { title: attachment.title } : {}),
    });
  }
  return { media, sources, warnings };
}

/** The media row and its blob, unless the agency has them already (an unchanged re-feed stores nothing). */
async function storeMediaOnce(context: ApplyContext, externalMediaId: string, fileName: string, contentType: string, bytes: Buffer) {
  const { pool, tenant } = context;
  const [known] = await withTenant(pool, tenant, (client) => lockMediaOf(client, tenant, [externalMediaId]));
  if (known !== undefined && known.state !== 'AWAITING_UPLOAD') return;
  const storageKey = `listings/${tenant.environment}/${randomUUID()}.${fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase()}`;
  const store = await context.store();
  // The blob first: a row is never UPLOADED without its bytes. A crash between the two leaves a
  // blob no row names, which nothing serves.
  await store.write(storageKey, bytes, contentType);
  await withTenant(pool, tenant, async (client) => {
    const inserted = await insertMedia(client, tenant, {
      externalMediaId,
      fileName,
      storageKey,
      contentType,
      uploadExpiresAt: new Date(),
      graceSeconds: UNATTACHED_GRACE_SECONDS,
    });
    if (inserted) await markUploaded(client, storageKey, bytes.length);
  });
}

/** Applies one object; what it answers is its line of the import's outcome. */
export async function applyObject(object: TransferObject, context: ApplyContext): Promise<ImportObject> {
  const { pool, tenant } = context;
  const externalListingId = object.objektnrExtern;
  if (object.errors.length > 0 || externalListingId === undefined) {
    const errors =
      object.errors.length > 0 ? object.errors : [{ path: `${object.path}/verwaltung_techn`, reason: 'has no objektnr_extern.' }];
    return outcome(object, { action: 'refused', errors });
  }
  if (object.action === 'delete') return deleteObject(object, externalListingId, context);

  const mapped = object.request;
  if (mapped === undefined) throw new Error(`the mapping gave no request for ${object.path}`);
  const found = schemaErrors(mapped);
  if (found.length > 0) return outcome(object, { action: 'refused', errors: issuesOf(found, object.sources, object.path) });

  const existing = await withTenant(pool, tenant, (client) => findListing(client, tenant, externalListingId));
  const attached = await storeAttachments(object, externalListingId, context);
  const request: ListingRequest = attached.media.length > 0 ? { ...mapped, media: attached.media } : mapped;
  const sources = { ...object.sources, ...attached.sources };
  const checked = await context.rules.check(request, existing ? { existingEstateType: existing.estate_type } : {});
  if (checked.errors.length > 0) {
    return outcome(object, { action: 'refused', errors: issuesOf(checked.errors, sources, object.path), warnings: attached.warnings });
  }
  const store = request.media !== undefined ? await context.store() : undefined;
  try {
    return await withTenant(pool, tenant, async (client) => {
      const locked = await lockListingRow(client, tenant, externalListingId);
      if (!locked) {
        const listingId = await storeNewListing(client, tenant, externalListingId, request, store);
        await markOpenImmoProvider(client, listingId, context.provider);
        return outcome(object, { action: 'created', externalListingId, listingId, warnings: attached.warnings });
      }
      if (isDeepStrictEqual(locked.request, request) && locked.openimmo_provider === context.provider) {
        return outcome(object, { action: 'unchanged', externalListingId, listingId: locked.id, warnings: attached.warnings });
      }
      if (locked.estate_type !== request.data.estateType) {
        // Rule 11, checked again under the lock: a JSON update may have come in between.
        const rule11 = await context.rules.check(request, { existingEstateType: locked.estate_type });
        if (rule11.errors.length > 0) throw new Problem(400, 'Bad request', 'rule 11', { errors: rule11.errors });
      }
      await replaceListingRequest(client, locked.id, request, isPublished(request));
      await attachMedia(
        client,
        tenant,
        locked.id,
        attached.media.map((media) => media.externalMediaId),
        store,
      );
      await markOpenImmoProvider(client, locked.id, context.provider);
      return outcome(object, { action: 'updated', externalListingId, listingId: locked.id, warnings: attached.warnings });
    });
  } catch (error) {
    // The 400 of a write (an id in use, an unusable media): the object is refused, nothing of it stored.
    if (!(error instanceof Problem) || error.status !== 400) throw error;
    const errors = (error.extra.errors ?? []) as FieldError[];
    return outcome(object, { action: 'refused', errors: issuesOf(errors, sources, object.path), warnings: attached.warnings });
  }
}

async function deleteObject(object: TransferObject, externalListingId: string, context: ApplyContext): Promise<ImportObject> {
  const { pool, tenant } = context;
  const deleted = await withTenant(pool, tenant, async (client) => {
    const locked = await lockListing(client, tenant, externalListingId);
    if (!locked) return undefined;
    await detachListingMedia(client, locked.id);
    await deleteListingRow(client, locked.id);
    return locked.id;
  });
  if (deleted === undefined) {
    const warnings = [
      {
        path: `${object.path}/verwaltung_techn/aktion`,
        reason: `DELETE of a listing this agency does not have ("${externalListingId}"): nothing to do.`,
      },
    ];
    return outcome(object, { action: 'unchanged', externalListingId, warnings });
  }
  return outcome(object, { action: 'deleted', externalListingId, listingId: deleted });
}

/** A listing a VOLL transfer retires: its provider's, absent from the file. */
export async function retireListing(
  context: Pick<ApplyContext, 'pool' | 'tenant'>,
  listing: { id: string; external_listing_id: string },
  providerPath: string,
): Promise<ImportObject | undefined> {
  const { pool, tenant } = context;
  const gone = await withTenant(pool, tenant, async (client) => {
    const locked = await lockListing(client, tenant, listing.external_listing_id);
    if (!locked || locked.id !== listing.id) return false;
    await detachListingMedia(client, locked.id);
    await deleteListingRow(client, locked.id);
    return true;
  });
  if (!gone) return undefined;
  return {
    objektnrExtern: listing.external_listing_id,
    path: providerPath,
    action: 'deleted',
    externalListingId: listing.external_listing_id,
    listingId: listing.id,
    warnings: [
      { path: '/openimmo/uebertragung/@umfang', reason: 'VOLL: this listing of the provider is not in the file, so it was deleted.' },
    ],
  };
}
