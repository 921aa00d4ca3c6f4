/*
 * The console's reads of classifieds: summaries with each one's latest status, a classified's
 * revisions and the payload each sent, what changed between two of them, and the client's status
 * webhook subscription. Reads only, confined to the tenant like the API's.
 */
import diff from 'microdiff';
import type pg from 'pg';
import type { Tenant } from '../../../platform/db/tenant.js';
import { badRequest, notFound } from '../../../platform/http/problems.js';
import type { Changes, Revision, RevisionSummary, Summary, SummaryQuery, WebhookView } from '../model/console.js';
import * as repository from '../repository.js';
import { classifiedNotFound } from './classifieds.js';
import { decodeCursor, encodeCursor } from './pages.js';

function toSummary(row: repository.SummaryRow): Summary {
  return {
    classifiedId: row.classified_id,
    offererEstateId: row.offerer_estate_id,
    revision: row.revision,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deleted: row.deleted,
    latest:
      row.status === null || row.stage === null || row.status_date === null
        ? null
        : {
            status: row.status,
            subStatus: row.sub_status,
            stage: row.stage,
            statusDate: row.status_date.toISOString(),
          },
  };
}

export async function listSummaries(
  pool: pg.Pool,
  tenant: Tenant,
  query: SummaryQuery,
): Promise<{ items: Summary[]; nextCursor?: string }> {
  const before = decodeCursor('summaries', query.cursor, 'cursor');
  const rows = await repository.listSummaries(pool, tenant, {
    before,
    offererEstateId: query.offererEstateId,
    status: query.status,
    rows: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const items = page.map(toSummary);
  return rows.length > query.limit && last ? { items, nextCursor: encodeCursor('summaries', last.seq) } : { items };
}

function toRevisionSummary(row: repository.RevisionRow): RevisionSummary {
  return {
    revision: row.revision,
    operation: row.operation,
    receivedAt: row.received_at.toISOString(),
    processedAt: row.processed_at?.toISOString() ?? null,
    unchanged: row.unchanged,
  };
}

export async function listRevisions(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  query: { limit: number; cursor?: string },
): Promise<{ items: RevisionSummary[]; nextCursor?: string }> {
  const before = decodeCursor('revisions', query.cursor, 'cursor');
  const { rows, known } = await repository.listRevisions(pool, tenant, id, { before, rows: query.limit + 1 });
  if (!known) throw classifiedNotFound(id);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const items = page.map(toRevisionSummary);
  return rows.length > query.limit && last ? { items, nextCursor: encodeCursor('revisions', last.revision) } : { items };
}

async function revisions(pool: pg.Pool, tenant: Tenant, id: string, wanted: readonly number[]) {
  const rows = await repository.readRevisions(pool, tenant, id, wanted);
  return wanted.map((revision) => {
    const row = rows.find((candidate) => candidate.revision === revision);
    if (!row) throw notFound(`Classified ${id} has no revision ${revision}`);
    return row;
  });
}

export async function readRevision(pool: pg.Pool, tenant: Tenant, id: string, revision: number): Promise<Revision> {
  const [row] = await revisions(pool, tenant, id, [revision]);
  if (!row) throw notFound(`Classified ${id} has no revision ${revision}`);
  return { ...toRevisionSummary(row), payload: row.payload };
}

/** JSON pointer of a path: `~` and `/` escaped as RFC 6901 says. */
function pointer(path: readonly (string | number)[]): string {
  return path.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Orders paths as a reader scans a document: member names alphabetically, array items by index. */
function byPath(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * What changed from revision `from` to revision `to` of the payload, member by member (a DELETE's
 * payload is empty), in path order: the database keeps no member order of its own.
 */
export async function changesBetween(pool: pg.Pool, tenant: Tenant, id: string, from: number, to: number): Promise<Changes> {
  if (from === to) throw badRequest([{ name: 'to', reason: 'must name another revision than from.' }], 'requestParameter');
  const [before, after] = await revisions(pool, tenant, id, [from, to]);
  const found = diff(before?.payload ?? {}, after?.payload ?? {}).sort((a, b) => byPath(a.path, b.path));
  const changes = found.map((change) => {
    const path = pointer(change.path);
    if (change.type === 'CREATE') return { path, change: 'added' as const, after: change.value };
    if (change.type === 'REMOVE') return { path, change: 'removed' as const, before: change.oldValue };
    return { path, change: 'changed' as const, before: change.oldValue, after: change.value };
  });
  return { from, to, changes };
}

/** The status webhook, or null when none is set: a page asks on every view, and none set is an answer, not an error. */
export async function readWebhook(pool: pg.Pool, tenant: Tenant): Promise<WebhookView | null> {
  const row = await repository.readSubscription(pool, tenant);
  if (!row) return null;
  return {
    url: row.url,
    statuses: row.statuses,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
