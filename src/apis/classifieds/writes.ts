import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Tenant } from '../../platform/db/tenant.js';
import { script, type Sql } from '../../platform/db/sql.js';
import { tenantBatch, withTenant } from '../../platform/db/tenant.js';
import { entityTags } from '../../platform/http/etags.js';
import { Problem, badRequest } from '../../platform/http/problems.js';
import { addJob } from '../../platform/jobs/queue.js';
import { classifiedNotFound } from './problems.js';
import type { Classified } from './schema/classified.js';
import * as repository from './repository.js';
import { insertStatus, recordStatus, type NewStatus, type Operation } from './statuses.js';

/**
 * The write path: each POST, PUT and DELETE is one transaction that stores the new revision,
 * its RECEIVED status and its processing job, so the 202 is sent only for a write that can no
 * longer be lost. The job goes to a queue of its own classified, so its writes are processed in
 * the order they were acknowledged.
 */
export const PROCESS_TASK = 'caas:process_revision';

export interface Acknowledgement {
  classifiedId: string;
  revision: number;
}

export function queueOf(classifiedId: string): string {
  return `caas:classified:${classifiedId}`;
}

/** Canonical JSON (keys sorted) so that equal payloads hash equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

function hashOf(payload: Classified): string {
  return createHash('sha256').update(canonical(payload)).digest('hex');
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
    Object.keys((block ?? {}) as object).map((member) => `specific.${portal}.${member}`),
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
 * Turns a unique-index violation into the problem naming what the write collided with: for a
 * create that is how duplicates are found, for an update it covers a race with another write.
 */
async function onUniqueViolation<T>(fn: () => Promise<T>, explain: (constraint: string) => Promise<Problem | undefined>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const pgError = error as { code?: string; constraint?: string };
    if (pgError.code === '23505' && pgError.constraint) {
      const problem = await explain(pgError.constraint);
      if (problem) throw problem;
    }
    throw error;
  }
}

async function duplicateProblem(pool: pg.Pool, tenant: Tenant, constraint: string, payload: Classified, selfId: string): Promise<Problem | undefined> {
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

/** The RECEIVED status of an acknowledged write; its webhooks are scheduled by the processing job. */
function received(tenant: Tenant, ack: { id: string; revision: number; operation: Operation; portals: readonly string[] }): NewStatus {
  return {
    classifiedId: ack.id,
    environment: tenant.environment,
    agencyId: tenant.agencyId,
    revision: ack.revision,
    status: 'RECEIVED',
    subStatus: `RECEIVED_${ack.operation}`,
    message: `The ${ack.operation} of revision ${ack.revision} was received and is queued for processing`,
    portals: ack.portals,
  };
}

function processing(id: string, revision: number): Sql {
  return addJob({ task: PROCESS_TASK, payload: { classifiedId: id, revision }, queue: queueOf(id) });
}

/**
 * A create is one round trip: every statement of its transaction goes in one message. Duplicates
 * (offererEstateId, media URLs) are not looked up first, here or in an update: the unique indexes
 * refuse them and onUniqueViolation names the owner.
 */
export async function createClassified(pool: pg.Pool, tenant: Tenant, payload: Classified): Promise<Acknowledgement> {
  checkBody(payload);
  const id = randomUUID();
  const offererEstateId = payload.data.metaData.source.offererEstateId;
  const urls = mediaUrls(payload);
  const row = { id, environment: tenant.environment, agencyId: tenant.agencyId };
  await onUniqueViolation(
    () =>
      tenantBatch(pool, tenant, [
        repository.insertClassified({ ...row, offererEstateId, payload: payload as never, payloadHash: hashOf(payload) }),
        repository.insertRevision({ ...row, revision: 1, operation: 'POST', payload: payload as never }),
        repository.replaceMediaUrls(row, urls),
        insertStatus(received(tenant, { id, revision: 1, operation: 'POST', portals: payload.portals })),
        processing(id, 1),
      ]),
    (constraint) => duplicateProblem(pool, tenant, constraint, payload, id),
  );
  return { classifiedId: id, revision: 1 };
}

export async function updateClassified(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  payload: Classified,
  ifMatch: string | undefined,
): Promise<Acknowledgement> {
  checkBody(payload);
  const offererEstateId = payload.data.metaData.source.offererEstateId;
  const urls = mediaUrls(payload);
  return onUniqueViolation(
    () =>
      withTenant(pool, tenant, async (client) => {
        const current = await repository.findLive(client, id, true);
        if (!current || current.delete_requested_at !== null) throw classifiedNotFound(id);
        const etag = `"${current.revision}"`;
        if (ifMatch !== undefined) {
          const wanted = entityTags(ifMatch);
          if (!wanted.includes('*') && !wanted.includes(etag)) {
            throw new Problem(412, 'Precondition failed', `If-Match ${ifMatch} does not match the current ETag ${etag}`, {}, 'precondition-failed');
          }
        }
        const revision = current.revision + 1;
        const row = { id, environment: tenant.environment, agencyId: tenant.agencyId };
        const payloadHash = hashOf(payload);
        if (payloadHash === current.payload_hash) {
          // Nothing to process: the write is acknowledged and recorded as an unchanged update.
          await client.query(script([repository.bumpRevision(id, revision), repository.insertRevision({ ...row, revision, operation: 'PUT', payload: null, unchanged: true })]));
          // No job will run for it: both statuses are recorded, and their webhooks scheduled, here.
          await recordStatus(client, received(tenant, { id, revision, operation: 'PUT', portals: payload.portals }));
          await recordStatus(client, {
            ...row,
            classifiedId: id,
            revision,
            status: 'UPDATED',
            message: `Unchanged: the payload equals revision ${current.revision}; nothing was processed`,
            portals: payload.portals,
          });
          return { classifiedId: id, revision };
        }
        await client.query(
          script([
            repository.updateClassified({ id, revision, offererEstateId, payload: payload as never, payloadHash }),
            repository.insertRevision({ ...row, revision, operation: 'PUT', payload: payload as never }),
            repository.replaceMediaUrls(row, urls),
            insertStatus(received(tenant, { id, revision, operation: 'PUT', portals: payload.portals })),
            processing(id, revision),
          ]),
        );
        return { classifiedId: id, revision };
      }),
    (constraint) => duplicateProblem(pool, tenant, constraint, payload, id),
  );
}

export async function deleteClassified(pool: pg.Pool, tenant: Tenant, id: string): Promise<Acknowledgement> {
  return withTenant(pool, tenant, async (client) => {
    const current = await repository.findLive(client, id, true);
    if (!current) throw classifiedNotFound(id);
    // A DELETE repeated before the first is processed is acknowledged again, with nothing new to do.
    if (current.delete_requested_at !== null) return { classifiedId: id, revision: current.revision };
    const revision = current.revision + 1;
    const portals = ((current.payload as { portals?: string[] }).portals ?? []) as string[];
    await client.query(
      script([
        repository.markDeleteRequested(id, revision),
        repository.insertRevision({ id, environment: tenant.environment, agencyId: tenant.agencyId, revision, operation: 'DELETE', payload: null }),
        insertStatus(received(tenant, { id, revision, operation: 'DELETE', portals })),
        processing(id, revision),
      ]),
    );
    return { classifiedId: id, revision };
  });
}
