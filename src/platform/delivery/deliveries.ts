import type pg from 'pg';
import type { Environment } from '../../apis/catalogue.js';
import { inTransaction } from '../db/pool.js';
import { jsonb, sql, type Sql } from '../db/sql.js';
import { enqueue } from '../jobs/queue.js';

/**
 * The API modules' side of webhook delivery: schedule a message inside the write it belongs
 * to, stop or re-aim a subscription's pending messages, redeliver, read the audit. Every
 * function taking a client works inside withTenant too (row-level security then confines it to
 * the tenant); the worker side is deliverJob.ts.
 */

export const DELIVER_WEBHOOK = 'platform:deliver_webhook';

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface DeliverySpec {
  /** The API that owns the subscription ('caas', 'leads'); selects its onGone hook. */
  source: string;
  environment: Environment;
  agencyId: string;
  /** Unique within the source. */
  subscriptionId: string;
  url: string;
  /** Sent as JSON. */
  payload: unknown;
  /** Keys the webhook-signature HMAC (its UTF-8 bytes). Stored for retries; unreadable by the request role. */
  secret: string;
  /** Sent with every attempt, e.g. { 'X-Api-Key': apiKey }. Must not name the headers delivery sets itself. */
  headers?: Record<string, string>;
}

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new TypeError(`delivery header ${name} is set by the delivery itself`);
    lower[name.toLowerCase()] = value;
  }
  return lower;
}

/** The job key keeps one pending job per delivery: a redelivery replaces a waiting retry instead of doubling it. */
function jobKey(deliveryId: string): string {
  return `${DELIVER_WEBHOOK}:${deliveryId}`;
}

/** The job that makes the next attempt of a delivery (at `runAt`, or now). */
export function jobFor(deliveryId: string, runAt?: Date) {
  return { task: DELIVER_WEBHOOK, payload: { deliveryId }, jobKey: jobKey(deliveryId), runAt };
}

/** Where a set of deliveries goes: the owner of their subscriptions. */
export interface DeliveryOwner {
  source: string;
  environment: Environment;
  agencyId: string;
}

/**
 * The statement that adds one delivery, and its first job, per row of `recipients`: a query
 * giving id (uuid), subscription_id (text), url, secret, headers (jsonb, lower-case names, none
 * of the reserved ones) and payload (jsonb). As a statement it can travel in the batch of the write it
 * belongs to (tenantBatch), with recipients and payload read from rows that write has just made.
 * Yields the delivery ids.
 */
export function scheduleDeliveries(owner: DeliveryOwner, recipients: Sql): Sql {
  return sql`WITH recipients AS (${recipients}),
       scheduled AS (
         INSERT INTO webhook_deliveries (id, environment, agency_id, source, subscription_id, url, payload, secret, headers, next_attempt_at)
         SELECT r.id, ${owner.environment}, ${owner.agencyId}, ${owner.source}, r.subscription_id, r.url, r.payload, r.secret, r.headers, now()
           FROM recipients r
         RETURNING id)
     SELECT id, immogate_add_job(${DELIVER_WEBHOOK}, json_build_object('deliveryId', id), NULL, NULL, NULL, ${jobKey('')} || id) AS job
       FROM scheduled`;
}

/**
 * Adds the delivery and its first job in the caller's transaction: both exist exactly when the
 * caller's write commits. Returns the delivery id, which is also the webhook-id receivers see.
 */
export async function scheduleDelivery(client: pg.ClientBase, spec: DeliverySpec): Promise<string> {
  if (spec.secret === '') throw new TypeError('a delivery needs a non-empty signing secret');
  const recipient = sql`SELECT gen_random_uuid() AS id, ${spec.subscriptionId}::text AS subscription_id, ${spec.url}::text AS url, ${spec.secret}::text AS secret,
                               ${jsonb(checkHeaders(spec.headers ?? {}))} AS headers, ${jsonb(spec.payload)} AS payload`;
  const { rows } = await client.query<{ id: string }>(scheduleDeliveries(spec, recipient).text);
  return rows[0]!.id;
}

export interface SubscriptionRef {
  source: string;
  subscriptionId: string;
}

/**
 * Stops the subscription's pending deliveries (subscription removed or deactivated): they end
 * CANCELLED, which redeliver() by time leaves alone. An attempt already in flight still finishes.
 */
export async function cancelDeliveries(client: pg.ClientBase, subscription: SubscriptionRef): Promise<number> {
  const { rowCount } = await client.query(
    `UPDATE webhook_deliveries SET state = 'CANCELLED', next_attempt_at = NULL
      WHERE source = $1 AND subscription_id = $2 AND state = 'PENDING'`,
    [subscription.source, subscription.subscriptionId],
  );
  return rowCount ?? 0;
}

/**
 * Re-aims the subscription's undelivered (pending and failed) deliveries after its URL, secret or
 * headers changed, so retries and redeliveries sign with the key the receiver now expects.
 */
export async function retargetDeliveries(
  client: pg.ClientBase,
  subscription: SubscriptionRef,
  changes: { url?: string; secret?: string; headers?: Record<string, string> },
): Promise<number> {
  if (changes.secret === '') throw new TypeError('a delivery needs a non-empty signing secret');
  // Only the columns given: `secret = coalesce($n, secret)` would read the secret, which the request role may not.
  const values: Record<string, string> = {};
  if (changes.url !== undefined) values.url = changes.url;
  if (changes.secret !== undefined) values.secret = changes.secret;
  if (changes.headers !== undefined) values.headers = JSON.stringify(checkHeaders(changes.headers));
  const columns = Object.keys(values);
  if (columns.length === 0) return 0;
  const { rowCount } = await client.query(
    `UPDATE webhook_deliveries SET ${columns.map((column, i) => `${column} = $${i + 3}${column === 'headers' ? '::jsonb' : ''}`).join(', ')}
      WHERE source = $1 AND subscription_id = $2 AND state IN ('PENDING', 'FAILED')`,
    [subscription.source, subscription.subscriptionId, ...Object.values(values)],
  );
  return rowCount ?? 0;
}

export type RedeliveryTarget =
  | { deliveryId: string }
  | { source: string; environment?: Environment; agencyId?: string; since: Date };

/**
 * Schedules new attempts, at once and with a fresh retry schedule, for one delivery (whatever
 * its state: an operator may resend a delivered message) or for every FAILED delivery of a
 * source created since a time. The webhook-id stays the same. Returns the ids rescheduled.
 */
export async function redeliver(pool: pg.Pool, target: RedeliveryTarget): Promise<string[]> {
  return inTransaction(pool, async (client) => {
    const reset = "UPDATE webhook_deliveries SET state = 'PENDING', round_attempts = 0, next_attempt_at = now()";
    const { rows } =
      'deliveryId' in target
        ? await client.query<{ id: string }>(`${reset} WHERE id = $1 RETURNING id`, [target.deliveryId])
        : await client.query<{ id: string }>(
            `WITH chosen AS (
               SELECT id FROM webhook_deliveries
                WHERE state = 'FAILED' AND source = $1 AND created_at >= $2
                  AND ($3::text IS NULL OR environment = $3) AND ($4::text IS NULL OR agency_id = $4)
                ORDER BY created_at, id
                  FOR UPDATE)
             ${reset} FROM chosen WHERE webhook_deliveries.id = chosen.id RETURNING webhook_deliveries.id`,
            [target.source, target.since, target.environment ?? null, target.agencyId ?? null],
          );
    for (const { id } of rows) await enqueue(client, jobFor(id));
    return rows.map((row) => row.id).sort();
  });
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
