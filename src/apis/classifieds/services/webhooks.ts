/*
 * Status webhook subscriptions: PUT /webhooks subscribes the calling client for its offerer in its
 * environment, DELETE /webhooks ends it, and the delivery machinery's hooks (a 410 ends a
 * subscription; a redelivery asks which still exist).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import { retryingConflicts } from '../../../platform/db/locks.js';
import { withTenant, type Tenant } from '../../../platform/db/tenant.js';
import {
  OutboundError,
  addressPolicy,
  cancelDeliveries,
  checkTargetUrl,
  deliveryDetail,
  retargetDeliveries,
  type DeliveryEvent,
  type DeliveryView,
} from '../../../platform/delivery/index.js';
import { badRequest, notFound } from '../../../platform/http/problems.js';
import type { Sealer } from '../../../platform/secrets/sealer.js';
import { withoutTrailingSlashes } from '../../../platform/text.js';
import { WEBHOOK_SECRET } from '../../../platform/secrets/stored.js';
import { WEBHOOK_SOURCE, type Subscription } from '../model/webhooks.js';
import * as repository from '../repository.js';

/** The target URL must be one deliveries may go to (the outbound policy of the environment: no private address unless allowed). */
function checkUrl(url: string, config: Config, tenant: Tenant): void {
  try {
    checkTargetUrl(url, addressPolicy(config, tenant.environment));
  } catch (error) {
    if (error instanceof OutboundError) throw badRequest([{ name: '/url', reason: `${error.message}.` }], 'body');
    throw error;
  }
}

export async function subscribe(pool: pg.Pool, sealer: Sealer, config: Config, tenant: Tenant, subscription: Subscription): Promise<void> {
  checkUrl(subscription.url, config, tenant);
  const url = withoutTrailingSlashes(subscription.url);
  // The subscription's row, then its deliveries (db/locks.ts).
  await retryingConflicts(() =>
    withTenant(pool, tenant, async (client) => {
      const row = await repository.upsertSubscription(client, tenant, {
        subscriptionId: randomUUID(),
        url,
        statuses: subscription.statuses === undefined ? null : [...new Set(subscription.statuses)],
        sealedSecret: sealer.seal(subscription.secret ?? randomBytes(24).toString('base64url'), WEBHOOK_SECRET),
        secretGiven: subscription.secret !== undefined,
      });
      // Undelivered statuses (retries, and failures an operator may redeliver) follow the
      // subscription to its new key and address: each to its classified's path under the new URL,
      // as recordStatuses builds it, not to the bare URL.
      await retargetDeliveries(client, { source: WEBHOOK_SOURCE, subscriptionId: row.subscription_id }, { secret: row.secret });
      await repository.retargetStatusDeliveries(client, row.subscription_id, url);
    }),
  );
}

export async function unsubscribe(pool: pg.Pool, tenant: Tenant): Promise<void> {
  await retryingConflicts(() =>
    withTenant(pool, tenant, async (client) => {
      const removed = await repository.deleteSubscription(client, tenant.clientId);
      if (removed === undefined) throw notFound('This client has no webhook subscription here');
      await cancelDeliveries(client, { source: WEBHOOK_SOURCE, subscriptionId: removed });
    }),
  );
}

/** A 410's transaction locks the subscription's row before any delivery (db/locks.ts). */
export async function lockGone(client: pg.ClientBase, subscriptionId: string): Promise<void> {
  await repository.lockSubscription(client, subscriptionId);
}

/** A subscription that is gone at the receiver's word (410) is removed, as a DELETE /webhooks would. */
export async function removeGone(client: pg.ClientBase, subscriptionId: string): Promise<void> {
  await repository.removeSubscription(client, subscriptionId);
}

/**
 * Before a redelivery: a subscription wants its statuses for as long as it exists (PUT /webhooks
 * keeps its subscription_id).
 */
export async function subscriptionStates(client: pg.ClientBase, subscriptionIds: readonly string[]): Promise<Map<string, 'ACTIVE'>> {
  const existing = await repository.existingSubscriptions(client, subscriptionIds);
  return new Map(existing.map((id) => [id, 'ACTIVE']));
}

/** A status delivery's event: the status it sends and its classified. */
export function statusEventOf(payload: unknown): DeliveryEvent | null {
  const { status, classifiedId } = (payload ?? {}) as { status?: unknown; classifiedId?: unknown };
  if (typeof status !== 'string' || typeof classifiedId !== 'string') return null;
  return { name: status, subjectType: 'classified', subjectId: classifiedId };
}

/**
 * A test event: a realistic status of a made-up classified (CREATED on SL, one picture), posted to
 * the client's subscription as any status is, signed with its secret, shown as a test delivery.
 */
export async function sendTestEvent(pool: pg.Pool, tenant: Tenant): Promise<DeliveryView> {
  const classifiedId = randomUUID();
  const now = new Date().toISOString();
  const status = {
    statusId: randomUUID(),
    classifiedId,
    customerId: tenant.agencyId,
    creationDate: now,
    revision: 1,
    portals: ['SL'],
    status: 'CREATED',
    message: 'A test event sent on request: no classified was written',
    statusDate: now,
    mediaStatuses: [{ url: 'https://example.com/living-room.jpg', status: 'CREATED' }],
    stage: 'accepted',
  };
  // Read back in the transaction that queues it: no worker can have started an attempt yet.
  return withTenant(pool, tenant, async (client) => {
    const id = await repository.sendTestStatus(client, tenant, classifiedId, status);
    if (id === undefined) throw notFound('This client has no webhook subscription here: PUT /webhooks first');
    const delivery = await deliveryDetail(client, id, { source: WEBHOOK_SOURCE }, (_source, payload) => statusEventOf(payload));
    if (!delivery) throw new Error(`the test delivery ${id} is not readable in its own transaction`);
    return delivery;
  });
}
