import type pg from 'pg';
import type { Tenant } from '../../platform/db/tenant.js';
import { tenantTransaction } from '../../platform/db/tenant.js';
import { decodeSeqToken, encodeSeqToken } from '../../platform/http/cursors.js';
import { badRequest } from '../../platform/http/problems.js';
import { classifiedNotFound } from './problems.js';
import type { StatusItem } from './statuses.js';

/**
 * The read side of the classifieds API. Every query runs inside tenantTransaction, so row-level security
 * confines it to the caller's environment and offerer: another offerer's classified, or one of
 * the other environment, is simply not there (404, the same as an unknown id).
 *
 * Pages are keyset pages, newest first: a page ends at the `seq` of its last item and the next one
 * starts below it. A seq is drawn when a row is inserted and never changes, so rows added while a
 * client pages through get higher numbers than the ones it has still to read: they never appear in
 * later pages, and nothing is skipped or repeated. (One insert whose transaction had drawn its seq
 * before a page was read and committed only after it may still show on a later page: it is then
 * listed once, not lost.)
 */

export const MAX_PAGE_SIZE = 250;

// Keyset tokens (platform/http/cursors.ts) of kind c (classifieds) or s (statuses): a statuses
// token is refused by the classifieds list and the other way round. Anything else is a clean 400.
const CURSOR_KINDS = { classifieds: 'c', statuses: 's' } as const;
type CursorKind = keyof typeof CURSOR_KINDS;

export function encodeCursor(kind: CursorKind, seq: number): string {
  return encodeSeqToken(CURSOR_KINDS[kind], seq);
}

export function decodeCursor(kind: CursorKind, token: string): number {
  const seq = decodeSeqToken(CURSOR_KINDS[kind], token);
  if (seq === undefined)
    throw badRequest([{ name: 'nextToken', reason: 'is not a nextToken this endpoint returned.' }], 'requestParameter');
  return seq;
}

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/**
 * The contract's `limit` has no maximum; a page holds at most MAX_PAGE_SIZE (its documented
 * default) whatever is asked, and nextToken continues.
 */
function pageSize(limit: number): number {
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** A page from `limit + 1` rows: the extra row only tells whether another page follows. */
function pageOf<R extends { seq: number }, T>(rows: R[], limit: number, kind: CursorKind, item: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return rows.length > limit && last ? { items: items.map(item), nextToken: encodeCursor(kind, last.seq) } : { items: items.map(item) };
}

export interface ListQuery {
  limit: number;
  nextToken?: string;
  offererEstateId?: string;
}

/**
 * A page of live classifieds (a DELETE not yet processed still lists), each as JSON text of its
 * payload plus `classifiedId`. The payloads are large and stored as JSON already: the caller
 * splices the database's text into the response instead of parsing and re-serialising them.
 */
export async function listClassifieds(pool: pg.Pool, tenant: Tenant, query: ListQuery): Promise<Page<string>> {
  const before = query.nextToken === undefined ? undefined : decodeCursor('classifieds', query.nextToken);
  // NULL leaves a condition out. Unnamed, so planned with the values at hand: the planner drops
  // the conditions left out and walks the index from the cursor (a generic plan could not).
  const [result] = await tenantTransaction(pool, tenant, [
    {
      text: `SELECT seq, (payload || jsonb_build_object('classifiedId', id))::text AS item
               FROM classifieds
              WHERE deleted_at IS NULL AND ($1::bigint IS NULL OR seq < $1) AND ($2::text IS NULL OR offerer_estate_id = $2)
              ORDER BY seq DESC LIMIT $3`,
      values: [before ?? null, query.offererEstateId ?? null, pageSize(query.limit) + 1],
    },
  ]);
  return pageOf(result.rows as { seq: number; item: string }[], pageSize(query.limit), 'classifieds', (row) => row.item);
}

export type ReadOne = { notModified: true; revision: number } | { notModified: false; revision: number; item: string };

/**
 * One live classified as JSON text, or only its revision when it matches `ifNoneMatch` (the
 * entity tags of If-None-Match, `*` for any): a client revalidating an unchanged classified
 * costs no payload transfer from the database.
 */
export async function readClassified(pool: pg.Pool, tenant: Tenant, id: string, ifNoneMatch: string[]): Promise<ReadOne> {
  const [result] = await tenantTransaction(pool, tenant, [
    {
      name: 'caas.read_classified',
      text: `SELECT revision,
                    CASE WHEN '"' || revision || '"' = ANY($2::text[]) OR '*' = ANY($2::text[]) THEN NULL
                         ELSE (payload || jsonb_build_object('classifiedId', id))::text END AS item
               FROM classifieds WHERE id = $1 AND deleted_at IS NULL`,
      values: [id, ifNoneMatch],
    },
  ]);
  const row = result.rows[0] as { revision: number; item: string | null } | undefined;
  if (!row) throw classifiedNotFound(id);
  return row.item === null ? { notModified: true, revision: row.revision } : { notModified: false, revision: row.revision, item: row.item };
}

export interface StatusQuery {
  limit: number;
  nextToken?: string;
  /**
   * `filter=latest`: the statuses of the classified's latest revision only, that is of its last
   * acknowledged write (every write records its RECEIVED status when acknowledged, so this is
   * never empty before the other filters). Newest first like every page, so its first item is the
   * current state of that write, and the rest tell how it got there.
   */
  latest: boolean;
  statuses?: string[];
  /** Items whose portals include any of these. */
  portals?: string[];
}

/**
 * A page of a classified's statuses, newest first. A DELETED classified keeps its statuses
 * readable: its DELETED status is how a client learns that the delete was done.
 */
export async function listStatuses(pool: pg.Pool, tenant: Tenant, id: string, query: StatusQuery): Promise<Page<StatusItem>> {
  const before = query.nextToken === undefined ? undefined : decodeCursor('statuses', query.nextToken);
  const [page, known] = await tenantTransaction(pool, tenant, [
    {
      // NULL leaves a condition out; unnamed for the same reason as listClassifieds' statement.
      text: `SELECT s.seq, immogate_caas_status_item(s, r.received_at) AS item
               FROM classified_statuses s JOIN classified_revisions r ON r.classified_id = s.classified_id AND r.revision = s.revision
              WHERE s.classified_id = $1
                AND ($2::bigint IS NULL OR s.seq < $2)
                AND ($3::text[] IS NULL OR s.status = ANY($3))
                AND ($4::text[] IS NULL OR s.portals && $4)
                AND (NOT $5 OR s.revision = (SELECT c.revision FROM classifieds c WHERE c.id = $1))
              ORDER BY s.seq DESC LIMIT $6`,
      values: [id, before ?? null, query.statuses ?? null, query.portals ?? null, query.latest, pageSize(query.limit) + 1],
    },
    // An empty page is an unknown classified (404) or filters that matched nothing.
    { name: 'caas.classified_exists', text: 'SELECT 1 FROM classifieds WHERE id = $1', values: [id] },
  ]);
  if (known.rowCount === 0) throw classifiedNotFound(id);
  return pageOf(page.rows as { seq: number; item: StatusItem }[], pageSize(query.limit), 'statuses', (row) => row.item);
}
