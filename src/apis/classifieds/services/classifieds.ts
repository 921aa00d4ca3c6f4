/*
 * The classifieds: their writes and reads.
 *
 * The write path: each POST, PUT and DELETE is one transaction that stores the new revision, its
 * RECEIVED status (with its webhooks) and its classified's row in the processing queue, so the
 * 202 is sent only for a write that can no longer be lost. The worker processes a classified's
 * revisions in the order they were acknowledged (services/processing.ts).
 *
 * The reads run inside tenantTransaction, so row-level security confines them to the caller's
 * environment and offerer: another offerer's classified, or one of the other environment, is
 * simply not there (404, the same as an unknown id).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Batcher, eachAlone, settledAt } from '../../../platform/db/batcher.js';
import { execute, transaction, type Statement } from '../../../platform/db/pool.js';
import { confineTo, withTenant, type Tenant } from '../../../platform/db/tenant.js';
import { entityTags } from '../../../platform/http/etags.js';
import { Problem, badRequest, notFound, type FieldError } from '../../../platform/http/problems.js';
import { getOrMake } from '../../../platform/memo.js';
import type { Classified, ClassifiedsQuery } from '../model/classified.js';
import type { NewStatus, Operation } from '../model/statuses.js';
import * as repository from '../repository.js';
import { decodeCursor, pageOf, pageSize, type Page } from './pages.js';

/** A write the database has committed: its classified and the revision it made. */
export interface Accepted {
  classifiedId: string;
  revision: number;
}

/** An unknown classified, another offerer's, the other environment's or a deleted one: all the same 404. */
export function classifiedNotFound(id: string): Problem {
  return notFound(`No classified ${id}`);
}

function mediaUrls(payload: Classified): string[] {
  return (payload.media ?? []).map((media) => media.url);
}

function duplicatedClassified(offererEstateId: string, classifiedId: string): Problem {
  return new Problem(
    400,
    'Duplicated classified',
    `A classified with offererEstateId "${offererEstateId}" already exists: classifiedId ${classifiedId}`,
    {},
    'duplicated-classified',
  );
}

function duplicatedMedia(owner: repository.MediaOwner): Problem {
  return new Problem(
    400,
    'Duplicated media',
    `The media url "${owner.url}" was already sent as mediaId ${owner.media_id} of classifiedId ${owner.classified_id}`,
    {},
    'duplicated-media',
  );
}

/**
 * Checks of a body that need no database: media URLs unique within the body, and the offerer's
 * contact given once, either in data.contact or in a portal's contact block under specific.
 */
export function checkBody(payload: Classified): void {
  const seen = new Map<string, number>();
  const errors: { name: string; reason: string }[] = [];
  (payload.media ?? []).forEach((media, index) => {
    const first = seen.get(media.url);
    if (first === undefined) seen.set(media.url, index);
    else errors.push({ name: `/media/${index}/url`, reason: `duplicates /media/${first}/url: a media url must be unique.` });
  });
  if (errors.length > 0) throw badRequest(errors, 'body');

  const contact = payload.data.contact;
  const portalContacts = Object.entries(payload.specific ?? {}).flatMap(([portal, block]) =>
    Object.keys(block ?? {}).map((member) => `specific.${portal}.${member}`),
  );
  if (contact !== undefined && Object.keys(contact).length > 0 && portalContacts.length > 0) {
    throw badRequest(
      [
        { name: 'data.contact.*', reason: `must not be set together with specific.portal.contact.* (${portalContacts.join(', ')}).` },
        { name: 'specific.portal.contact.*', reason: 'must not be set together with data.contact.*.' },
      ],
      'body',
      'Colliding information',
    );
  }
}

/**
 * Turns a unique-index violation into the problem naming what the write collided with: the
 * writes look for duplicates before writing, so this only meets a concurrent write of the same
 * offererEstateId or media URL that committed first.
 */
function isUniqueViolation(error: unknown): error is { code: '23505'; constraint: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    error.code === '23505' &&
    'constraint' in error &&
    typeof error.constraint === 'string' &&
    error.constraint !== ''
  );
}

async function onUniqueViolation<T>(fn: () => Promise<T>, explain: (constraint: string) => Promise<Problem | undefined>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isUniqueViolation(error)) {
      const problem = await explain(error.constraint);
      if (problem) throw problem;
    }
    throw error;
  }
}

async function duplicateProblem(
  pool: pg.Pool,
  tenant: Tenant,
  constraint: string,
  payload: Classified,
  selfId: string,
): Promise<Problem | undefined> {
  return withTenant(pool, tenant, async (client) => {
    if (constraint === 'classifieds_offerer_estate_id') {
      const offererEstateId = payload.data.metaData.source.offererEstateId;
      const existing = await repository.findByOffererEstateId(client, offererEstateId);
      return existing ? duplicatedClassified(offererEstateId, existing) : undefined;
    }
    if (constraint === 'classified_media_url') {
      const owner = await repository.findMediaOfOthers(client, mediaUrls(payload), selfId);
      return owner ? duplicatedMedia(owner) : undefined;
    }
    return undefined;
  });
}

/**
 * What a POST of `payload` would be refused for as a duplicate, looked up as the write path explains
 * a collision (validation: nothing is written). Each is named by the field it is about.
 */
export async function duplicatesOf(pool: pg.Pool, tenant: Tenant, payload: Classified): Promise<FieldError[]> {
  const offererEstateId = payload.data.metaData.source.offererEstateId;
  const urls = mediaUrls(payload);
  // No classified has this id: the media of every stored one count.
  const none = '00000000-0000-0000-0000-000000000000';
  const [existing, owner] = await withTenant(pool, tenant, (client) =>
    Promise.all([repository.findByOffererEstateId(client, offererEstateId), repository.findMediaOfOthers(client, urls, none)]),
  );
  const errors: FieldError[] = [];
  if (existing)
    errors.push({ name: '/data/metaData/source/offererEstateId', reason: duplicatedClassified(offererEstateId, existing).detail });
  if (owner) errors.push({ name: `/media/${urls.indexOf(owner.url)}/url`, reason: duplicatedMedia(owner).detail });
  return errors;
}

function receivedMessage(operation: Operation, revision: number): string {
  return `The ${operation} of revision ${revision} was received and is queued for processing`;
}

/** The RECEIVED status of an acknowledged write. */
function received(tenant: Tenant, ack: { id: string; revision: number; operation: Operation; portals: readonly string[] }): NewStatus {
  return {
    classifiedId: ack.id,
    environment: tenant.environment,
    agencyId: tenant.agencyId,
    revision: ack.revision,
    status: 'RECEIVED',
    subStatus: `RECEIVED_${ack.operation}`,
    message: receivedMessage(ack.operation, ack.revision),
    portals: ack.portals,
  };
}

// ---- creates, committed in groups ----

interface CreateRequest {
  tenant: Tenant;
  id: string;
  payload: Classified;
  /** The payload as JSON text. */
  json: string;
  offererEstateId: string;
  urls: string[];
}

/**
 * Creates that share nothing: no two with the same offererEstateId or media URL, so that one
 * statement can check all of them against what is stored before writing any.
 */
function disjointRounds(requests: CreateRequest[]): CreateRequest[][] {
  const rounds: { estateIds: Set<string>; urls: Set<string>; requests: CreateRequest[] }[] = [];
  for (const request of requests) {
    let round = rounds.find(
      (candidate) => !candidate.estateIds.has(request.offererEstateId) && request.urls.every((url) => !candidate.urls.has(url)),
    );
    if (!round) {
      round = { estateIds: new Set(), urls: new Set(), requests: [] };
      rounds.push(round);
    }
    round.estateIds.add(request.offererEstateId);
    for (const url of request.urls) round.urls.add(url);
    round.requests.push(request);
  }
  return rounds.map((round) => round.requests);
}

function createStatement(tenant: Tenant, requests: CreateRequest[]): Statement {
  const statuses = requests.map((request) =>
    received(tenant, { id: request.id, revision: 1, operation: 'POST', portals: request.payload.portals }),
  );
  return repository.createClassifieds(tenant.environment, tenant.agencyId, requests, statuses);
}

/** A create's outcome: done, refused with the problem naming what it duplicates, or undefined when a concurrent write took its offererEstateId. */
function createResult(outcome: repository.CreateOutcome, request: CreateRequest): PromiseSettledResult<void> | undefined {
  if (outcome.created) return { status: 'fulfilled', value: undefined };
  // The same classified sent again is named as such first (as a PUT and a validation name it),
  // not by the first of its media URLs: the answer tells the CRM which classifiedId to PUT to.
  if (outcome.taken_by !== null) return { status: 'rejected', reason: duplicatedClassified(request.offererEstateId, outcome.taken_by) };
  // The three media columns come from one joined row: all set or none.
  if (outcome.media_url !== null && outcome.media_id !== null && outcome.media_owner !== null) {
    return {
      status: 'rejected',
      reason: duplicatedMedia({ url: outcome.media_url, media_id: outcome.media_id, classified_id: outcome.media_owner }),
    };
  }
  return undefined;
}

/**
 * Writes a group of creates in one transaction: per tenant, its confinement and one statement per
 * disjoint round (a later round sees what an earlier one wrote, so a duplicate within the group
 * is refused like any other). If the transaction fails, each create is written alone, so that
 * only the one at fault fails.
 */
async function writeCreates(pool: pg.Pool, requests: CreateRequest[]): Promise<PromiseSettledResult<void>[]> {
  const byTenant = new Map<string, { tenant: Tenant; requests: CreateRequest[] }>();
  for (const request of requests) {
    const key = JSON.stringify([request.tenant.environment, request.tenant.agencyId]);
    getOrMake(byTenant, key, () => ({ tenant: request.tenant, requests: [] })).requests.push(request);
  }
  const statements: Statement[] = [];
  const answered: { index: number; requests: CreateRequest[] }[] = [];
  for (const { tenant, requests: group } of byTenant.values()) {
    statements.push(confineTo(tenant));
    for (const round of disjointRounds(group)) {
      answered.push({ index: statements.length, requests: round });
      statements.push(createStatement(tenant, round));
    }
  }
  try {
    const results = await transaction(pool, statements);
    const byRequest = new Map<CreateRequest, PromiseSettledResult<void>>();
    for (const { index, requests: round } of answered) {
      const result = results[index];
      for (const outcome of result ? repository.createOutcomes(result) : []) {
        const request = round[outcome.n];
        const result = request && createResult(outcome, request);
        if (request && result) byRequest.set(request, result);
      }
    }
    // Beaten by a concurrent write: written again, it sees that write and names it.
    const raced = requests.filter((request) => !byRequest.has(request));
    const again = raced.length > 0 ? await writeCreates(pool, raced) : [];
    return requests.map((request) => byRequest.get(request) ?? settledAt(again, raced.indexOf(request)));
  } catch (error) {
    if (requests.length > 1) {
      return eachAlone(requests, (one) => writeCreates(pool, one));
    }
    const [request] = requests;
    if (request === undefined) return [];
    const explained = await onUniqueViolation(
      () => Promise.reject(error),
      (constraint) => duplicateProblem(pool, request.tenant, constraint, request.payload, request.id),
    ).catch((reason: unknown) => reason);
    return [{ status: 'rejected', reason: explained }];
  }
}

const creators = new WeakMap<pg.Pool, Batcher<CreateRequest, void>>();

/** Creates are committed in groups (group commit, see Batcher): one statement and one commit for all the POSTs of a moment. */
function creatorFor(pool: pg.Pool): Batcher<CreateRequest, void> {
  return getOrMake(creators, pool, () => new Batcher((requests) => writeCreates(pool, requests), { maxBatch: 64, maxInFlight: 4 }));
}

/** `json` is the payload as JSON text, if the caller has it already. */
export async function createClassified(
  pool: pg.Pool,
  tenant: Tenant,
  payload: Classified,
  json = JSON.stringify(payload),
): Promise<Accepted> {
  checkBody(payload);
  const id = randomUUID();
  await creatorFor(pool).submit({
    tenant,
    id,
    payload,
    json,
    offererEstateId: payload.data.metaData.source.offererEstateId,
    urls: mediaUrls(payload),
  });
  return { classifiedId: id, revision: 1 };
}

// ---- updates and deletes: read the current revision, then write ----

function checkIfMatch(ifMatch: string | undefined, revision: number): void {
  if (ifMatch === undefined) return;
  const etag = `"${revision}"`;
  const wanted = entityTags(ifMatch);
  if (!wanted.includes('*') && !wanted.includes(etag)) {
    throw new Problem(412, 'Precondition failed', `If-Match ${ifMatch} does not match the current ETag ${etag}`, {}, 'precondition-failed');
  }
}

export async function updateClassified(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  payload: Classified,
  ifMatch: string | undefined,
  json = JSON.stringify(payload),
): Promise<Accepted> {
  checkBody(payload);
  const offererEstateId = payload.data.metaData.source.offererEstateId;
  const urls = mediaUrls(payload);
  return onUniqueViolation(
    () =>
      withTenant(pool, tenant, async (client) => {
        const current = await repository.lockCurrent(client, id, json, offererEstateId, urls);
        if (!current || current.delete_requested_at !== null) throw classifiedNotFound(id);
        checkIfMatch(ifMatch, current.revision);
        if (current.taken_by !== null) throw duplicatedClassified(offererEstateId, current.taken_by);
        if (current.media_owner !== null) throw duplicatedMedia(current.media_owner);
        const revision = current.revision + 1;
        const row = { id, environment: tenant.environment, agencyId: tenant.agencyId, revision };
        const receivedStatus = received(tenant, { id, revision, operation: 'PUT', portals: payload.portals });
        if (current.unchanged) {
          // Nothing to process: the write is acknowledged and recorded as an unchanged update.
          const unchanged: NewStatus = {
            ...receivedStatus,
            status: 'UPDATED',
            subStatus: undefined,
            message: `Unchanged: the payload equals revision ${current.revision}; nothing was processed`,
          };
          await execute(client, repository.recordUnchanged({ ...row, statuses: [receivedStatus, unchanged] }));
        } else {
          await execute(client, repository.updateClassified({ ...row, offererEstateId, payload: json, urls, received: receivedStatus }));
        }
        return { classifiedId: id, revision };
      }),
    (constraint) => duplicateProblem(pool, tenant, constraint, payload, id),
  );
}

export async function deleteClassified(pool: pg.Pool, tenant: Tenant, id: string): Promise<Accepted> {
  return withTenant(pool, tenant, async (client) => {
    const current = await repository.lockCurrent(client, id, null, null, []);
    if (!current) throw classifiedNotFound(id);
    // A DELETE repeated before the first is processed is acknowledged again, with nothing new to do.
    if (current.delete_requested_at !== null) return { classifiedId: id, revision: current.revision };
    const revision = current.revision + 1;
    const status = received(tenant, { id, revision, operation: 'DELETE', portals: current.portals });
    await execute(
      client,
      repository.requestDelete({
        id,
        environment: tenant.environment,
        agencyId: tenant.agencyId,
        revision,
        received: status,
      }),
    );
    return { classifiedId: id, revision };
  });
}

// ---- reads ----

/**
 * A page of live classifieds (a DELETE not yet processed still lists), each as JSON text of its
 * payload plus `classifiedId`. The payloads are large and stored as JSON already: the caller
 * splices the database's text into the response instead of parsing and re-serialising them.
 */
export async function listClassifieds(pool: pg.Pool, tenant: Tenant, query: ClassifiedsQuery): Promise<Page<string>> {
  const before = decodeCursor('classifieds', query.nextToken);
  const size = pageSize(query.limit);
  const rows = await repository.listClassifieds(pool, tenant, { before, offererEstateId: query.offererEstateId, rows: size + 1 });
  return pageOf(rows, size, 'classifieds');
}

export type ReadOne = { notModified: true; revision: number } | { notModified: false; revision: number; item: string };

/**
 * One live classified as JSON text, or only its revision when it matches `ifNoneMatch` (the
 * entity tags of If-None-Match, `*` for any): a client revalidating an unchanged classified
 * costs no payload transfer from the database.
 */
export async function readClassified(pool: pg.Pool, tenant: Tenant, id: string, ifNoneMatch: string[]): Promise<ReadOne> {
  const row = await repository.readClassified(pool, tenant, id, ifNoneMatch);
  if (!row) throw classifiedNotFound(id);
  return row.item === null ? { notModified: true, revision: row.revision } : { notModified: false, revision: row.revision, item: row.item };
}
