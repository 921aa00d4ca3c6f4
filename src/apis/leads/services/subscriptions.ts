/*
 * Webhook subscriptions of the Lead API: an agency has any number of them per environment, each
 * with its own URL and apiKey. The apiKey is write-only: only the statement that writes a new lead
 * reads it, handing it to the delivery machinery (X-Api-Key header and signing key). Every
 * request-path query runs inside withTenant, so a subscription of another agency or environment is
 * simply not there (404, as an unknown id). Also the hooks the delivery machinery calls about them.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { retryingConflicts } from '../../../platform/db/locks.js';
import { execute } from '../../../platform/db/pool.js';
import { withTenant, type Tenant } from '../../../platform/db/tenant.js';
import {
  cancelDeliveries,
  deliveryDetail,
  lastSuccess,
  recentAttempts,
  retargetDeliveries,
  type DeliveryEvent,
  type DeliverySourceHooks,
  type DeliveryView,
  type GoneContext,
} from '../../../platform/delivery/index.js';
import { decodeToken, encodeToken } from '../../../platform/http/cursors.js';
import { badRequest, notFound, type Problem } from '../../../platform/http/problems.js';
import type { Sealer } from '../../../platform/secrets/sealer.js';
import type { Lead } from '../model/lead.js';
import { WEBHOOK_SECRET } from '../../../platform/secrets/stored.js';
import {
  DELIVERY_SOURCE,
  SUBSCRIPTION_SCOPE,
  type Audit,
  type CreateSubscriptionRequest,
  type Subscription,
  type SubscriptionListQuery,
  type SubscriptionPage,
  type SubscriptionStatus,
  type UpdateSubscriptionRequest,
} from '../model/subscription.js';
import {
  deactivateSubscription,
  deleteSubscriptionRow,
  findSubscription,
  ingestionLock,
  insertSubscription,
  insertTestNotification,
  leadIdsOfDeliveries,
  lockedSubscriptionStatuses,
  lockSubscriptionRow,
  subscriptionsInCreationOrder,
  toSubscription,
  updateSubscriptionRow,
  type SubscriptionRow,
} from '../repository.js';

function subscriptionNotFound(id: string): Problem {
  return notFound(`No webhook subscription ${id}`);
}

export async function createSubscription(
  pool: pg.Pool,
  sealer: Sealer,
  tenant: Tenant,
  input: CreateSubscriptionRequest,
): Promise<Subscription> {
  const row = await withTenant(pool, tenant, (client) =>
    insertSubscription(client, {
      id: randomUUID(),
      environment: tenant.environment,
      agencyId: tenant.agencyId,
      url: input.url,
      sealedKey: sealer.seal(input.apiKey, WEBHOOK_SECRET),
      // Bodies get no defaults filled in: the schema's default applies here.
      status: input.status ?? 'ACTIVE',
    }),
  );
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

function decodeCursor(token: string): { time: string; id: string } {
  const [, time, id] = CURSOR.exec(decodeToken(token) ?? '') ?? [];
  if (time === undefined || id === undefined || !validTime(time)) {
    throw badRequest([{ name: 'nextToken', reason: 'is not a nextToken this endpoint returned.' }], 'requestParameter');
  }
  return { time, id };
}

/** A page of subscriptions in creation order (the API's), or newest first (the console's). */
export async function listSubscriptions(
  pool: pg.Pool,
  tenant: Tenant,
  query: SubscriptionListQuery,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<SubscriptionPage> {
  const after = query.nextToken === undefined ? undefined : decodeCursor(query.nextToken);
  // The extra row only tells whether another page follows.
  const rows = await withTenant(pool, tenant, (client) => subscriptionsInCreationOrder(client, query.limit + 1, after, order));
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
  changes: UpdateSubscriptionRequest,
): Promise<Subscription> {
  const sealedKey = changes.apiKey === undefined ? null : sealer.seal(changes.apiKey, WEBHOOK_SECRET);
  // The lock order of db/locks.ts: the agency's ingestion lock, the subscription's row, its deliveries.
  const row = await retryingConflicts(() =>
    withTenant(pool, tenant, async (client) => {
      await execute(client, ingestionLock(tenant.environment, tenant.agencyId));
      const updated = await updateSubscriptionRow(client, id, changes.status ?? null, sealedKey);
      if (!updated) throw subscriptionNotFound(id);
      const ref = { source: DELIVERY_SOURCE, subscriptionId: id };
      if (sealedKey !== null) await retargetDeliveries(client, ref, { secret: sealedKey });
      if (updated.status === 'INACTIVE') await cancelDeliveries(client, ref);
      return updated;
    }),
  );
  return toSubscription(row);
}

export async function deleteSubscription(pool: pg.Pool, tenant: Tenant, id: string): Promise<Subscription> {
  const row = await retryingConflicts(() =>
    withTenant(pool, tenant, async (client) => {
      await execute(client, ingestionLock(tenant.environment, tenant.agencyId));
      const removed = await deleteSubscriptionRow(client, id);
      if (!removed) throw subscriptionNotFound(id);
      await cancelDeliveries(client, { source: DELIVERY_SOURCE, subscriptionId: id });
      return removed;
    }),
  );
  return toSubscription(row);
}

/**
 * 410 Gone from a receiver "disables the subscription": it turns INACTIVE (it is not deleted, so
 * its owner sees why in the audit and can turn it on again). Runs as the owner role, hence the
 * explicit tenant; first in its transaction, which then cancels the pending deliveries.
 */
async function disableGone(client: pg.ClientBase, subscriptionId: string, context: GoneContext): Promise<void> {
  await deactivateSubscription(client, subscriptionId, context);
}

/**
 * Before a 410's transaction locks any delivery: the ingestion lock, as any change to a
 * subscription takes it (a lead comes wholly before, its notification cancelled with the rest, or
 * wholly after, seeing the subscription INACTIVE), then the subscription's row (db/locks.ts).
 */
async function lockGone(client: pg.ClientBase, subscriptionId: string, context: GoneContext): Promise<void> {
  await execute(client, ingestionLock(context.environment, context.agencyId));
  await lockSubscriptionRow(client, subscriptionId);
}

/**
 * Before a redelivery: whether each subscription still wants notifications (ACTIVE), was turned
 * off (INACTIVE) or deleted (missing). FOR SHARE holds off a deactivation as well as a DELETE
 * until the redelivery commits; either then cancels what it queued.
 */
async function subscriptionStates(client: pg.ClientBase, subscriptionIds: readonly string[]): Promise<Map<string, SubscriptionStatus>> {
  const rows = await lockedSubscriptionStatuses(client, subscriptionIds);
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** What the delivery machinery asks of the lead API about its subscriptions. */
export const deliveryHooks: DeliverySourceHooks = {
  scope: SUBSCRIPTION_SCOPE,
  lockGone,
  onGone: disableGone,
  subscriptionStates,
  eventOf: leadEventOf,
};

/** A notification's event: the lead it carries. */
function leadEventOf(payload: unknown): DeliveryEvent | null {
  const leadId = (payload as { metadata?: { leadId?: unknown } } | null)?.metadata?.leadId;
  return typeof leadId === 'string' ? { name: 'lead', subjectType: 'lead', subjectId: leadId } : null;
}

// ---- test events ----

/** A realistic lead, made up: what a test event sends (Erika Mustermann asking about a classified). */
function sampleLead(tenant: Tenant): Lead {
  const now = new Date().toISOString();
  return {
    metadata: {
      leadId: randomUUID(),
      category: 'CLASSIFIED',
      ingestionDate: now,
      submittedDate: now,
      requestId: randomUUID(),
      agencyId: tenant.agencyId,
    },
    contactRequest: {
      firstName: 'Erika',
      lastName: 'Mustermann',
      name: 'Erika Mustermann',
      gender: 'FEMALE',
      email: 'erika.mustermann@example.com',
      language: 'DE',
      phoneNumbers: [{ type: 'MOBILE', number: '+49 151 23456789' }],
      message: 'A test event sent on request: is the flat still available for a visit on Saturday?',
    },
    property: { classifiedId: '12ABCDEFGHJK' },
  };
}

/** Sends a sample lead to the subscription, signed with its apiKey, as a notification goes (a test delivery). */
export async function sendTestEvent(pool: pg.Pool, tenant: Tenant, id: string): Promise<DeliveryView> {
  return withTenant(pool, tenant, async (client) => {
    const deliveryId = await insertTestNotification(client, id, sampleLead(tenant));
    if (deliveryId === undefined) throw subscriptionNotFound(id);
    const delivery = await deliveryDetail(client, deliveryId, { source: DELIVERY_SOURCE }, (_source, payload) => leadEventOf(payload));
    if (!delivery) throw new Error(`the test delivery ${deliveryId} is not readable in its own transaction`);
    return delivery;
  });
}

// ---- audit ----

export async function auditSubscription(pool: pg.Pool, tenant: Tenant, id: string, limit: number): Promise<Audit> {
  return withTenant(pool, tenant, async (client) => {
    const row = await findSubscription(client, id);
    if (!row) throw subscriptionNotFound(id);
    const ref = { source: DELIVERY_SOURCE, subscriptionId: id };
    const attempts = await recentAttempts(client, { ...ref, limit });
    const success = await lastSuccess(client, ref);
    const leadOf = await leadIdsOfDeliveries(client, [...new Set(attempts.map((attempt) => attempt.deliveryId))]);
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
