import type { Sealer } from '../../platform/secrets/sealer.js';
import { WEBHOOK_SECRET } from '../../platform/secrets/stored.js';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Tenant } from '../../platform/db/tenant.js';
import { execute, onlyRow } from '../../platform/db/pool.js';
import { withTenant } from '../../platform/db/tenant.js';
import { ingestionLock } from './ingestionLock.js';
import {
  cancelDeliveries,
  lastSuccess,
  recentAttempts,
  retargetDeliveries,
  type DeliverySourceHooks,
  type GoneContext,
} from '../../platform/delivery/index.js';
import { decodeToken, encodeToken } from '../../platform/http/cursors.js';
import { badRequest, notFound, type Problem } from '../../platform/http/problems.js';

/**
 * Webhook subscriptions of the Lead API: an agency has any number of them per environment, each
 * with its own URL and apiKey. The apiKey is write-only: it is read only by notifyNewLead, which
 * hands it to the delivery machinery (X-Api-Key header and signing key). Every request-path
 * query runs inside withTenant, so a subscription of another agency or environment is simply not
 * there (404, as an unknown id).
 */

/** The delivery source of lead notifications (selects deliveryHooks). */
export const SOURCE = 'leads';

export type SubscriptionStatus = 'ACTIVE' | 'INACTIVE';

export interface Subscription {
  subscriptionId: string;
  url: string;
  status: SubscriptionStatus;
  createdAt: string;
  updatedAt: string;
}

interface SubscriptionRow {
  id: string;
  url: string;
  status: SubscriptionStatus;
  created_at: Date;
  updated_at: Date;
  /** Creation time in microseconds as PostgreSQL keeps it (a Date would cut it to milliseconds): the list cursor. */
  cursor_time: string;
}

const COLUMNS = `id, url, status, created_at, updated_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS cursor_time`;

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    subscriptionId: row.id,
    url: row.url,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function subscriptionNotFound(id: string): Problem {
  return notFound(`No webhook subscription ${id}`);
}

/** The header that carries a subscription's apiKey with every notification; the same key signs it. */
export const API_KEY_HEADER = 'X-Api-Key';

export interface NewSubscription {
  url: string;
  apiKey: string;
  status?: SubscriptionStatus;
}

export async function createSubscription(pool: pg.Pool, sealer: Sealer, tenant: Tenant, input: NewSubscription): Promise<Subscription> {
  const row = await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<SubscriptionRow>(
      `INSERT INTO lead_webhook_subscriptions (id, environment, agency_id, url, api_key, status)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [randomUUID(), tenant.environment, tenant.agencyId, input.url, sealer.seal(input.apiKey, WEBHOOK_SECRET), input.status ?? 'ACTIVE'],
    );
    return onlyRow(rows);
  });
  return toSubscription(row);
}

// ---- listing: keyset pages in creation order ----

// base64url of `w1|<creation time to the microsecond, UTC>|<subscriptionId>`: the pair is unique and
// never changes, so pages neither repeat nor skip, and a token stays valid when its subscription is deleted.
const CURSOR = /^w1\|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function encodeCursor(row: SubscriptionRow): string {
  return encodeToken(`w1|${row.cursor_time}|${row.id}`);
}

/** A real calendar time (no 30 February): PostgreSQL would refuse the cast with a 500. */
function validTime(text: string): boolean {
  const millis = new Date(`${text.slice(0, 23)}Z`);
  return !Number.isNaN(millis.getTime()) && millis.toISOString().slice(0, 23) === text.slice(0, 23);
}

function decodeCursor(token: string): [string, string] {
  const [, time, id] = CURSOR.exec(decodeToken(token) ?? '') ?? [];
  if (time === undefined || id === undefined || !validTime(time)) {
    throw badRequest([{ name: 'nextToken', reason: 'is not a nextToken this endpoint returned.' }], 'requestParameter');
  }
  return [time, id];
}

export interface SubscriptionPage {
  metadata: { count: number; limit: number; nextToken?: string };
  items: Subscription[];
}

export async function listSubscriptions(
  pool: pg.Pool,
  tenant: Tenant,
  query: { limit: number; nextToken?: string },
): Promise<SubscriptionPage> {
  const after = query.nextToken === undefined ? undefined : decodeCursor(query.nextToken);
  const rows = await withTenant(pool, tenant, async (client) => {
    const params: unknown[] = [query.limit + 1];
    const where =
      after === undefined
        ? ''
        : `WHERE (created_at, id) > ($${params.push(after[0])}::timestamp AT TIME ZONE 'UTC', $${params.push(after[1])}::uuid)`;
    const result = await client.query<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM lead_webhook_subscriptions ${where} ORDER BY created_at, id LIMIT $1`,
      params,
    );
    return result.rows;
  });
  // The extra row only tells whether another page follows.
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  const metadata = {
    count: items.length,
    limit: query.limit,
    ...(rows.length > query.limit && last ? { nextToken: encodeCursor(last) } : {}),
  };
  return { metadata, items: items.map(toSubscription) };
}

// ---- the state table ----

export interface SubscriptionChanges {
  apiKey?: string;
  status?: SubscriptionStatus;
}

/**
 * PUT: the status becomes the one sent, the apiKey is replaced when sent, updatedAt changes in any
 * case. Undelivered notifications follow a new apiKey (retries and redeliveries sign with the key
 * the receiver now checks). Deactivating cancels the pending ones: INACTIVE means "stop sending",
 * and retries of old leads would otherwise keep arriving for hours; the leads stay readable through
 * GET /leads and an operator can still redeliver one by id.
 */
export async function updateSubscription(
  pool: pg.Pool,
  sealer: Sealer,
  tenant: Tenant,
  id: string,
  changes: SubscriptionChanges,
): Promise<Subscription> {
  const sealedKey = changes.apiKey === undefined ? null : sealer.seal(changes.apiKey, WEBHOOK_SECRET);
  const row = await withTenant(pool, tenant, async (client) => {
    await execute(client, ingestionLock(tenant.environment, tenant.agencyId));
    const { rows } = await client.query<SubscriptionRow>(
      `UPDATE lead_webhook_subscriptions
          SET status = coalesce($2, status), api_key = coalesce($3, api_key), updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, changes.status ?? null, sealedKey],
    );
    const updated = rows[0];
    if (!updated) throw subscriptionNotFound(id);
    const ref = { source: SOURCE, subscriptionId: id };
    if (sealedKey !== null) await retargetDeliveries(client, ref, { secret: sealedKey });
    if (updated.status === 'INACTIVE') await cancelDeliveries(client, ref);
    return updated;
  });
  return toSubscription(row);
}

export async function deleteSubscription(pool: pg.Pool, tenant: Tenant, id: string): Promise<Subscription> {
  const row = await withTenant(pool, tenant, async (client) => {
    await execute(client, ingestionLock(tenant.environment, tenant.agencyId));
    const { rows } = await client.query<SubscriptionRow>(`DELETE FROM lead_webhook_subscriptions WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
    const removed = rows[0];
    if (!removed) throw subscriptionNotFound(id);
    await cancelDeliveries(client, { source: SOURCE, subscriptionId: id });
    return removed;
  });
  return toSubscription(row);
}

/**
 * 410 Gone from a receiver "disables the subscription": it turns INACTIVE (it is not deleted, so
 * its owner sees why in the audit and can turn it on again). Runs as the owner role, hence the
 * explicit tenant in the WHERE clause.
 */
export async function disableGone(client: pg.ClientBase, subscriptionId: string, context: GoneContext): Promise<void> {
  // Without the ingestion lock (this transaction holds delivery rows that a subscription change,
  // holding that lock, may wait for): a lead committing meanwhile may still notify this
  // subscription once, and its receiver's next 410 cancels that too.
  await client.query(
    `UPDATE lead_webhook_subscriptions SET status = 'INACTIVE', updated_at = now()
      WHERE id::text = $1 AND environment = $2 AND agency_id = $3`,
    [subscriptionId, context.environment, context.agencyId],
  );
}

/**
 * Before a redelivery: whether each subscription still wants notifications (ACTIVE), was turned
 * off (INACTIVE) or deleted (missing). FOR SHARE holds off a deactivation as well as a DELETE
 * until the redelivery commits; either then cancels what it queued.
 */
export async function subscriptionStates(
  client: pg.ClientBase,
  subscriptionIds: readonly string[],
): Promise<Map<string, SubscriptionStatus>> {
  const { rows } = await client.query<{ id: string; status: SubscriptionStatus }>(
    'SELECT id, status FROM lead_webhook_subscriptions WHERE id::text = ANY($1::text[]) FOR SHARE',
    [subscriptionIds],
  );
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** What the delivery machinery asks of the lead API about its subscriptions. */
export const deliveryHooks: DeliverySourceHooks = { onGone: disableGone, subscriptionStates };

// ---- audit ----

export interface AuditEvent {
  timestamp: string;
  /** The webhook-id header of the notification: the same on each of its attempts. */
  deliveryId: string;
  leadId: string | null;
  /** The attempt's number within its notification, from 1. */
  attempt: number;
  /** Null when no HTTP answer came (error says why) or the attempt is still running. */
  statusCode: number | null;
  latencyMs: number | null;
  /** Null on success and while the attempt runs. */
  error: string | null;
}

export interface Audit extends Subscription {
  lastSuccessTimestamp: string | null;
  recentEvents: AuditEvent[];
}

export async function auditSubscription(pool: pg.Pool, tenant: Tenant, id: string, limit: number): Promise<Audit> {
  return withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM lead_webhook_subscriptions WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row) throw subscriptionNotFound(id);
    const ref = { source: SOURCE, subscriptionId: id };
    const attempts = await recentAttempts(client, { ...ref, limit });
    const success = await lastSuccess(client, ref);
    const leads = await client.query<{ id: string; lead_id: string | null }>(
      `SELECT id, payload #>> '{metadata,leadId}' AS lead_id FROM webhook_deliveries WHERE id = ANY($1::uuid[])`,
      [[...new Set(attempts.map((attempt) => attempt.deliveryId))]],
    );
    const leadOf = new Map(leads.rows.map((delivery) => [delivery.id, delivery.lead_id]));
    return {
      ...toSubscription(row),
      lastSuccessTimestamp: success?.toISOString() ?? null,
      recentEvents: attempts.map((attempt) => ({
        timestamp: attempt.attemptedAt.toISOString(),
        deliveryId: attempt.deliveryId,
        leadId: leadOf.get(attempt.deliveryId) ?? null,
        attempt: attempt.attempt,
        statusCode: attempt.statusCode,
        latencyMs: attempt.latencyMs,
        error: attempt.error,
      })),
    };
  });
}
