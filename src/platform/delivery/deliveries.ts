/*
 * The API modules' side of webhook delivery: schedule a message inside the write it belongs
 * to, stop or re-aim a subscription's pending messages, read the audit. Every function taking a
 * client works inside withTenant too (row-level security then confines it to the tenant); the
 * worker side is deliveryStream.ts, the operator's redelivery redelivery.ts.
 */
import { sealedWith } from '../secrets/sealer.js';
import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { lockedInOrder } from '../db/locks.js';
import { onlyRow } from '../db/pool.js';

/** The work stream of webhook deliveries; also what the NOTIFY of a new delivery names. */
export const WEBHOOKS_STREAM = 'platform:webhooks';

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface DeliverySpec {
  /** The API that owns the subscription ('caas', 'leads'); selects its hooks. */
  source: string;
  environment: Environment;
  agencyId: string;
  /** Unique within the source. */
  subscriptionId: string;
  url: string;
  /** Sent as JSON. */
  payload: unknown;
  /**
   * Keys the webhook-signature HMAC (its UTF-8 bytes), sealed for WEBHOOK_SECRET (secrets/stored.ts).
   * Stored for retries; unreadable by the request role.
   */
  secret: string;
  /** A header that carries the secret itself with every attempt (the lead API's X-Api-Key). */
  secretHeader?: string;
  /** Sent with every attempt. Must not name the headers delivery sets itself. */
  headers?: Record<string, string>;
}

const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new TypeError(`delivery header ${name} is set by the delivery itself`);
    lower[name.toLowerCase()] = value;
  }
  return lower;
}

/**
 * SQL text of a CTE, `name`, that adds one delivery per row of the CTE `recipients` of the same
 * statement, due at once, and yields their ids. `recipients` has the columns source,
 * environment, agency_id, subscription_id (text), url, payload (jsonb), secret (sealed),
 * secret_header (text, lower-case, or null) and headers (jsonb, lower-case names, none of those
 * delivery sets itself). This is how an API schedules
 * deliveries in the statement of the write they belong to: they commit with it, and the
 * insert's trigger wakes the workers. `withEventId`: `recipients` also has event_id (uuid), the
 * feed event the message announces, whose id then becomes the webhook-id. A `test` delivery is a sample sent on request (the
 * console's "Send test event"), shown as such.
 */
export function deliveriesCte(name: string, recipients: string, kind: 'message' | 'test' = 'message', withEventId = false): string {
  return `${name} AS (
    INSERT INTO webhook_deliveries (id, source, environment, agency_id, subscription_id, url, payload, secret, secret_header, headers, test,
                                    next_attempt_at, event_id)
    SELECT gen_random_uuid(), r.source, r.environment, r.agency_id, r.subscription_id, r.url, r.payload, r.secret, r.secret_header, r.headers,
           ${kind === 'test' ? 'true' : 'false'}, now(), ${withEventId ? 'r.event_id' : 'NULL::uuid'}
      FROM ${recipients} r
    RETURNING id)`;
}

/**
 * Adds one delivery in the caller's transaction: it exists exactly when the caller's write
 * commits. Returns the delivery id, which is also the webhook-id receivers see.
 */
export async function scheduleDelivery(client: pg.ClientBase | pg.Pool, spec: DeliverySpec): Promise<string> {
  if (sealedWith(spec.secret) === undefined) throw new TypeError('a delivery needs a sealed signing secret');
  const { rows } = await client.query<{ id: string }>(
    `WITH recipients AS (SELECT $1::text AS source, $2::text AS environment, $3::text AS agency_id, $4::text AS subscription_id, $5::text AS url,
                                $6::jsonb AS payload, $7::text AS secret, $8::text AS secret_header, $9::jsonb AS headers),
          ${deliveriesCte('scheduled', 'recipients')}
     SELECT id FROM scheduled`,
    [
      spec.source,
      spec.environment,
      spec.agencyId,
      spec.subscriptionId,
      spec.url,
      JSON.stringify(spec.payload),
      spec.secret,
      spec.secretHeader?.toLowerCase() ?? null,
      JSON.stringify(checkHeaders(spec.headers ?? {})),
    ],
  );
  return onlyRow(rows).id;
}

export interface SubscriptionRef {
  source: string;
  subscriptionId: string;
}

/**
 * Stops the subscription's pending deliveries (subscription removed or deactivated): they end
 * CANCELLED, which redelivery by time leaves alone. An attempt already in flight still finishes.
 * The caller has changed the subscription's row first (the lock order of db/locks.ts).
 */
export async function cancelDeliveries(client: pg.ClientBase, subscription: SubscriptionRef): Promise<number> {
  const { rowCount } = await client.query(
    `WITH ${lockedInOrder('locked', 'webhook_deliveries', "source = $1 AND subscription_id = $2 AND state = 'PENDING'")}
     UPDATE webhook_deliveries d SET state = 'CANCELLED', finished_at = now(), next_attempt_at = NULL, claimed_by = NULL
       FROM locked WHERE d.id = locked.id AND d.state = 'PENDING'`,
    [subscription.source, subscription.subscriptionId],
  );
  return rowCount ?? 0;
}

/**
 * Re-aims the subscription's undelivered (pending and failed) deliveries after its URL, secret or
 * headers changed, so retries and redeliveries sign with the key the receiver now expects. After
 * the subscription's row, as cancelDeliveries.
 */
export async function retargetDeliveries(
  client: pg.ClientBase,
  subscription: SubscriptionRef,
  changes: { url?: string; secret?: string; headers?: Record<string, string> },
): Promise<number> {
  if (changes.secret !== undefined && sealedWith(changes.secret) === undefined)
    throw new TypeError('a delivery needs a sealed signing secret');
  // Only the columns given (names from this list, values bound): `secret = coalesce($n, secret)`
  // would read the secret, which the request role may write but not read.
  const values: Record<string, string> = {};
  if (changes.url !== undefined) values.url = changes.url;
  if (changes.secret !== undefined) values.secret = changes.secret;
  if (changes.headers !== undefined) values.headers = JSON.stringify(checkHeaders(changes.headers));
  const columns = Object.keys(values);
  if (columns.length === 0) return 0;
  const { rowCount } = await client.query(
    `WITH ${lockedInOrder('locked', 'webhook_deliveries', "source = $1 AND subscription_id = $2 AND state IN ('PENDING', 'FAILED')")}
     UPDATE webhook_deliveries d SET ${columns.map((column, i) => `${column} = $${i + 3}${column === 'headers' ? '::jsonb' : ''}`).join(', ')}
       FROM locked WHERE d.id = locked.id AND d.state IN ('PENDING', 'FAILED')`,
    [subscription.source, subscription.subscriptionId, ...Object.values(values)],
  );
  return rowCount ?? 0;
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  /** Null when no HTTP answer came (error says why). */
  statusCode: number | null;
  /** Null while the attempt runs, or if the worker stopped before recording its outcome. */
  latencyMs: number | null;
  error: string | null;
}

/** The subscription's most recent attempts, newest first (the audit's recent events). */
export async function recentAttempts(client: pg.ClientBase, subscription: SubscriptionRef & { limit: number }): Promise<AttemptRecord[]> {
  const { rows } = await client.query<AttemptRecord>(
    `SELECT delivery_id AS "deliveryId", attempt, attempted_at AS "attemptedAt", status_code AS "statusCode",
            latency_ms AS "latencyMs", error
       FROM webhook_attempts WHERE source = $1 AND subscription_id = $2
      ORDER BY attempted_at DESC, attempt DESC LIMIT $3`,
    [subscription.source, subscription.subscriptionId, subscription.limit],
  );
  return rows;
}

/** When a delivery to the subscription last succeeded, or null if none ever did. */
export async function lastSuccess(client: pg.ClientBase, subscription: SubscriptionRef): Promise<Date | null> {
  const { rows } = await client.query<{ at: Date }>(
    `SELECT delivered_at AS at FROM webhook_deliveries
      WHERE source = $1 AND subscription_id = $2 AND delivered_at IS NOT NULL
      ORDER BY delivered_at DESC LIMIT 1`,
    [subscription.source, subscription.subscriptionId],
  );
  return rows[0]?.at ?? null;
}
