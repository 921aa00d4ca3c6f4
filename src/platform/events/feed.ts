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

/**
 * A position in a feed: the transaction id of an event and its sequence number, in the database
 * of `epoch` (event_feed_epoch; empty: any, for the start).
 */
export interface Cursor {
  epoch: string;
  xid: string;
  position: string;
}

/** Before every event: what a read without `after` starts from. */
export const START: Cursor = { epoch: '', xid: '0', position: '0' };

export function encodeCursor(cursor: Cursor): string {
  return encodeToken(`e1:${cursor.epoch}:${cursor.xid}:${cursor.position}`);
}

/** The largest values of PostgreSQL's xid8 (unsigned 64 bits) and bigint, which the read casts the cursor's parts to. */
const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * The cursor a token names, or undefined for anything encodeCursor did not make: its numbers are
 * range-checked here, since a cast past its type's range fails in the database (a 500, not a 400).
 */
export function decodeCursor(token: string): Cursor | undefined {
  const match = /^e1:([0-9a-f]{0,12}):(0|[1-9][0-9]{0,19}):(0|[1-9][0-9]{0,18})$/.exec(decodeToken(token) ?? '');
  if (match === null) return undefined;
  const [, epoch = '', xid = '', position = ''] = match;
  return BigInt(xid) <= MAX_XID8 && BigInt(position) <= MAX_BIGINT ? { epoch, xid, position } : undefined;
}

const isStart = (cursor: Cursor) => cursor.xid === START.xid && cursor.position === START.position;

/**
 * 410 of a cursor of the database before a restore: this database's order starts again at its
 * oldest event.
 */
export function cursorOfAnotherDatabase(oldest: Cursor): Problem {
  return new Problem(
    410,
    'Gone',
    'This cursor belongs to the database before a restore from a backup; resume from oldestCursor, which reads every event ' +
      'kept again, and drop those already handled by their id.',
    { oldestCursor: encodeCursor(oldest) },
    'cursor-expired',
  );
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
  /** A long poll's read: when no event shows, also find those held back (FeedRead.heldBackFrom). */
  heldBack?: boolean;
}

export interface FeedRead extends FeedPage {
  /**
   * Asked for with `heldBack`, when the page is empty: the lowest transaction id (xid8, as text) of
   * the query's events after the cursor that are committed but not shown, because a transaction
   * older than theirs was still in flight. They show once the horizon passes it; nothing notifies
   * when that older transaction ends (waiters.ts watches for it).
   */
  heldBackFrom?: string;
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
): Promise<FeedRead> {
  return withTenant(pool, tenant, async (client) => {
    // The horizon is read once, first, for the page and the held-back events alike: each statement
    // has a snapshot of its own, and with two horizons an event between them would be in neither,
    // its commit notified before the poll's wait. An earlier horizon only shows less, never too much:
    // every transaction below it had ended before this page's query began.
    const [{ epoch, horizon }] = (
      await client.query<{ epoch: string; horizon: string }>(
        'SELECT epoch, pg_snapshot_xmin(pg_current_snapshot())::text AS horizon FROM event_feed_epoch',
      )
    ).rows as [{ epoch: string; horizon: string }];
    if (query.after.epoch !== epoch && !isStart(query.after)) throw cursorOfAnotherDatabase({ ...START, epoch });
    const expired = await client.query<Omit<Cursor, 'epoch'>>(
      'SELECT xid::text AS xid, position::text AS position FROM event_horizons WHERE environment = $1 AND agency_id = $2 AND api = $3 ' +
        'AND (xid, position) > ($4::xid8, $5::bigint)',
      [tenant.environment, tenant.agencyId, api, query.after.xid, query.after.position],
    );
    const page = await client.query<EventRow>(
      `SELECT id, type, created_at, subject, data, xid::text AS xid, position::text AS position
           FROM events
          WHERE environment = $1 AND agency_id = $2 AND api = $3
            AND (xid, position) > ($4::xid8, $5::bigint)
            AND xid < $8::xid8
            AND ($6::text[] IS NULL OR type = ANY ($6::text[]))
          -- The table's columns: the output's xid is text, whose order puts 1000 before 999.
          ORDER BY events.xid, events.position
          LIMIT $7`,
      [tenant.environment, tenant.agencyId, api, query.after.xid, query.after.position, query.types ?? null, query.limit, horizon],
    );
    const gone = expired.rows[0];
    // A read from the start is never refused: it begins with the oldest event left.
    if (gone && !isStart(query.after)) throw cursorExpired({ ...gone, epoch }, retentionDays);
    const events = page.rows.map((row) => ({
      id: row.id,
      type: row.type,
      createdAt: row.created_at.toISOString(),
      subject: row.subject,
      data: row.data,
      cursor: encodeCursor({ epoch, xid: row.xid, position: row.position }),
    }));
    const next = events.at(-1)?.cursor ?? encodeCursor({ ...query.after, epoch });
    if (events.length > 0 || !query.heldBack) return { events, next };
    // The first of the page's order at or above the horizon: an index scan that stops at one row.
    const held = await client.query<{ xid: string }>(
      `SELECT xid::text AS xid
           FROM events
          WHERE environment = $1 AND agency_id = $2 AND api = $3
            AND (xid, position) > ($4::xid8, $5::bigint)
            AND xid >= $7::xid8
            AND ($6::text[] IS NULL OR type = ANY ($6::text[]))
          ORDER BY events.xid, events.position
          LIMIT 1`,
      [tenant.environment, tenant.agencyId, api, query.after.xid, query.after.position, query.types ?? null, horizon],
    );
    const heldBackFrom = held.rows[0]?.xid;
    return heldBackFrom === undefined ? { events, next } : { events, next, heldBackFrom };
  });
}
