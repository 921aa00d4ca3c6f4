/*
 * What the console and the operator read of webhook deliveries: pages of deliveries newest first,
 * one delivery with every attempt (what was sent, what came back), and the pipeline's counts.
 * Run inside withTenant for an integrator (row-level security confines the rows to the tenant);
 * the operator reads across agencies.
 */
import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { decodeToken, encodeToken } from '../http/cursors.js';
import type { DeliveryState } from './deliveries.js';
import type { DeliveryEvent, DeliverySources } from './deliveryStream.js';

export type { DeliveryEvent } from './deliveryStream.js';

export const DELIVERY_STATES: readonly DeliveryState[] = ['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED'];

export interface DeliveryFilter {
  /** One source, or several (`sources`); neither: every source. */
  source?: string;
  sources?: readonly string[];
  environment?: Environment;
  agencyId?: string;
  subscriptionId?: string;
  state?: DeliveryState;
  limit: number;
  cursor?: string;
}

export interface DeliverySummary {
  id: string;
  /** The feed event the message announces (its webhook-id), or null: the webhook-id is then the delivery id. */
  eventId: string | null;
  source: string;
  environment: Environment;
  agency: string;
  subscriptionId: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  test: boolean;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  /** Why the latest attempt failed (a refused connection, a timeout, an HTTP status), or null. */
  lastError: string | null;
  event: DeliveryEvent | null;
}

/**
 * Reads the event of a delivery of `source` from its payload: the owning API knows its payloads,
 * the platform does not (see DeliverySourceHooks.eventOf). null when it cannot tell.
 */
export type EventReader = (source: string, payload: unknown) => DeliveryEvent | null;

/** The event reader of `sources`: each source's eventOf hook, null for a source without one. */
export function eventReaderOf(sources: DeliverySources): EventReader {
  return (source, payload) => sources[source]?.eventOf?.(payload) ?? null;
}

type SummaryRow = Omit<DeliverySummary, 'createdAt' | 'deliveredAt' | 'nextAttemptAt' | 'event'> & {
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  payload: unknown;
};

function toSummary({ payload, ...row }: SummaryRow, eventOf: EventReader): DeliverySummary {
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    event: eventOf(row.source, payload),
  };
}

export interface AttemptView {
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  requestHeaders: Record<string, string>;
  responseBody: string | null;
  responseTruncated: boolean;
}

export interface DeliveryView extends DeliverySummary {
  /** The body every attempt sends (the payload as JSON) and the headers of the latest attempt. */
  request: { body: string; headers: Record<string, string> };
  attemptList: AttemptView[];
}

/** A page token: where the previous page ended, newest first by creation time, then id. */
function encodeCursor(at: string, id: string): string {
  return encodeToken(`d1:${at}|${id}`);
}

function decodeCursor(token: string): { at: string; id: string } | undefined {
  const match = /^d1:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f-]{36})$/.exec(decodeToken(token) ?? '');
  return match?.[1] !== undefined && match[2] !== undefined ? { at: match[1], id: match[2] } : undefined;
}

/** A cursor this module did not make: the caller answers 400 naming the parameter. */
export class BadCursor extends Error {}

const SUMMARY_COLUMNS = `
  d.id, d.event_id AS "eventId", d.source, d.environment, d.agency_id AS agency, d.subscription_id AS "subscriptionId", d.url, d.state, d.attempts, d.test,
  d.created_at AS "createdAt", d.delivered_at AS "deliveredAt", d.next_attempt_at AS "nextAttemptAt",
  last.status_code AS "lastStatusCode", last.error AS "lastError", d.payload`;

const LAST_ATTEMPT = `LEFT JOIN LATERAL
  (SELECT a.status_code, a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1) last ON true`;

/** One page of deliveries matching `filter`, newest first, and the token of the next page when there is one. */
export async function listDeliveries(
  client: pg.ClientBase | pg.Pool,
  filter: DeliveryFilter,
  eventOf: EventReader,
): Promise<{ items: DeliverySummary[]; nextCursor?: string }> {
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
  if (filter.cursor !== undefined && after === undefined) throw new BadCursor('is not a cursor of this list');
  const { rows } = await client.query<SummaryRow & { cursorAt: string }>(
    `SELECT ${SUMMARY_COLUMNS},
            to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
       FROM webhook_deliveries d ${LAST_ATTEMPT}
      WHERE ($1::text IS NULL OR d.environment = $1) AND ($2::text IS NULL OR d.agency_id = $2)
        AND ($3::text[] IS NULL OR d.source = ANY($3::text[])) AND ($4::text IS NULL OR d.subscription_id = $4)
        AND ($5::text IS NULL OR d.state = $5)
        AND ($6::timestamptz IS NULL OR (d.created_at, d.id) < ($6::timestamptz, $7::uuid))
      ORDER BY d.created_at DESC, d.id DESC
      LIMIT $8`,
    [
      filter.environment ?? null,
      filter.agencyId ?? null,
      filter.source !== undefined ? [filter.source] : (filter.sources ?? null),
      filter.subscriptionId ?? null,
      filter.state ?? null,
      after?.at ?? null,
      after?.id ?? null,
      filter.limit + 1,
    ],
  );
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  const items = page.map(({ cursorAt: _cursor, ...summary }) => toSummary(summary, eventOf));
  return rows.length > filter.limit && last ? { items, nextCursor: encodeCursor(last.cursorAt, last.id) } : { items };
}

/** One delivery with all its attempts, oldest first, or undefined when `filter` does not match it. */
export async function deliveryDetail(
  client: pg.ClientBase | pg.Pool,
  id: string,
  filter: Pick<DeliveryFilter, 'source' | 'environment' | 'agencyId'>,
  eventOf: EventReader,
): Promise<DeliveryView | undefined> {
  const { rows } = await client.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM webhook_deliveries d ${LAST_ATTEMPT}
      WHERE d.id = $1 AND ($2::text IS NULL OR d.source = $2) AND ($3::text IS NULL OR d.environment = $3)
        AND ($4::text IS NULL OR d.agency_id = $4)`,
    [id, filter.source ?? null, filter.environment ?? null, filter.agencyId ?? null],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { rows: attempts } = await client.query<Omit<AttemptView, 'attemptedAt'> & { attemptedAt: Date }>(
    `SELECT attempt, attempted_at AS "attemptedAt", status_code AS "statusCode", latency_ms AS "latencyMs", error,
            coalesce(request_headers, '{}'::jsonb) AS "requestHeaders", response_body AS "responseBody",
            response_truncated AS "responseTruncated"
       FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`,
    [id],
  );
  // The body is the payload as JSON.stringify writes it: byte for byte what each attempt sent and signed.
  const body = JSON.stringify(row.payload);
  const attemptList = attempts.map((attempt) => ({ ...attempt, attemptedAt: attempt.attemptedAt.toISOString() }));
  return { ...toSummary(row, eventOf), request: { body, headers: attemptList.at(-1)?.requestHeaders ?? {} }, attemptList };
}

export interface DeliveryCounts {
  pending: number;
  oldestPendingAt: string | null;
  failed: number;
  deliveredToday: number;
}

/** The delivery queue's backlog and outcomes, for the operator: each count one index's part (the partial indexes on state). */
export async function deliveryCounts(client: pg.ClientBase | pg.Pool): Promise<DeliveryCounts> {
  const { rows } = await client.query<{ pending: string; oldestPendingAt: Date | null; failed: string; deliveredToday: string }>(
    `SELECT (SELECT count(*) FROM webhook_deliveries WHERE state = 'PENDING') AS pending,
            (SELECT min(created_at) FROM webhook_deliveries WHERE state = 'PENDING') AS "oldestPendingAt",
            (SELECT count(*) FROM webhook_deliveries WHERE state = 'FAILED') AS failed,
            (SELECT count(*) FROM webhook_deliveries
              WHERE state <> 'PENDING' AND finished_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                AND state = 'DELIVERED') AS "deliveredToday"`,
  );
  const row = rows[0];
  return {
    pending: Number(row?.pending ?? 0),
    oldestPendingAt: row?.oldestPendingAt?.toISOString() ?? null,
    failed: Number(row?.failed ?? 0),
    deliveredToday: Number(row?.deliveredToday ?? 0),
  };
}
