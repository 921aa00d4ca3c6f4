/*
 * Reading a tenant's event feed. Events are ordered by (xid, position) and a page only shows
 * those of transactions older than every transaction still in flight (migrations/017 says why):
 * a cursor is that pair, so a follower never steps past an event that commits after it read.
 */
import type pg from 'pg';
import type { ApiDescriptor } from '../catalogue.js';
import { withTenant, type TenantScope } from '../db/tenant.js';
import { decodeToken, encodeToken } from '../http/cursors.js';
import { Problem } from '../http/problems.js';

export interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  subject: string;
  data: object;
  cursor: string;
}

export interface FeedPage {
  events: FeedEvent[];
  /** Where the next read starts: the last event's cursor, else the `after` the read was given. */
  next: string;
}

/** A position in a feed: the transaction id of an event and its sequence number. */
export interface Cursor {
  xid: string;
  position: string;
}

/** Before every event: what a read without `after` starts from. */
export const START: Cursor = { xid: '0', position: '0' };

export function encodeCursor(cursor: Cursor): string {
  return encodeToken(`e1:${cursor.xid}:${cursor.position}`);
}

/** The cursor a token names, or undefined for anything encodeCursor did not make. */
export function decodeCursor(token: string): Cursor | undefined {
  const match = /^e1:(0|[1-9][0-9]{0,19}):(0|[1-9][0-9]{0,18})$/.exec(decodeToken(token) ?? '');
  return match ? { xid: match[1] as string, position: match[2] as string } : undefined;
}

/** 410: the events after the cursor were partly removed by retention; `oldestCursor` misses none of what is left. */
export function cursorExpired(oldest: Cursor, retentionDays: number): Problem {
  return new Problem(
    410,
    'Gone',
    `Events after this cursor are older than the retention of ${retentionDays} days and were removed; ` +
      'resume from oldestCursor and reconcile the rest by reading the resources themselves.',
    { oldestCursor: encodeCursor(oldest) },
    'cursor-expired',
  );
}

interface EventRow {
  id: string;
  type: string;
  created_at: Date;
  subject: string;
  data: object;
  xid: string;
  position: string;
}

export interface FeedQuery {
  after: Cursor;
  /** Types to keep; undefined: all. */
  types: readonly string[] | undefined;
  limit: number;
}

/**
 * One page of the tenant's feed of `api` after the cursor, or the 410 problem when retention
 * removed events after it. One transaction: the horizon and the page agree.
 */
export async function readFeed(
  pool: pg.Pool,
  tenant: TenantScope,
  api: ApiDescriptor['id'],
  query: FeedQuery,
  retentionDays: number,
): Promise<FeedPage> {
  return withTenant(pool, tenant, async (client) => {
    const horizon = await client.query<Cursor>(
      'SELECT xid::text AS xid, position::text AS position FROM event_horizons WHERE environment = $1 AND agency_id = $2 AND api = $3 ' +
        'AND (xid, position) > ($4::xid8, $5::bigint)',
      [tenant.environment, tenant.agencyId, api, query.after.xid, query.after.position],
    );
    const page = await client.query<EventRow>(
      `SELECT id, type, created_at, subject, data, xid::text AS xid, position::text AS position
           FROM events
          WHERE environment = $1 AND agency_id = $2 AND api = $3
            AND (xid, position) > ($4::xid8, $5::bigint)
            AND xid < pg_snapshot_xmin(pg_current_snapshot())
            AND ($6::text[] IS NULL OR type = ANY ($6::text[]))
          -- The table's columns: the output's xid is text, whose order puts 1000 before 999.
          ORDER BY events.xid, events.position
          LIMIT $7`,
      [tenant.environment, tenant.agencyId, api, query.after.xid, query.after.position, query.types ?? null, query.limit],
    );
    const gone = horizon.rows[0];
    // A read from the start is never refused: it begins with the oldest event left.
    if (gone && (query.after.xid !== START.xid || query.after.position !== START.position)) throw cursorExpired(gone, retentionDays);
    const events = page.rows.map((row) => ({
      id: row.id,
      type: row.type,
      createdAt: row.created_at.toISOString(),
      subject: row.subject,
      data: row.data,
      cursor: encodeCursor(row),
    }));
    return { events, next: events.at(-1)?.cursor ?? encodeCursor(query.after) };
  });
}
