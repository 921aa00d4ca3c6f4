import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Tenant } from '../../platform/db/tenant.js';
import { withTenant } from '../../platform/db/tenant.js';
import { cancelDeliveries, retargetDeliveries } from '../../platform/delivery/index.js';
import { notFound } from '../../platform/http/problems.js';
import type { Sealer } from '../../platform/secrets/sealer.js';
import { WEBHOOK_SECRET } from '../../platform/secrets/stored.js';
import { onlyRow } from '../../platform/db/pool.js';

/**
 * Status webhooks: PUT /webhooks subscribes the calling client for its offerer in its
 * environment; every status recorded from then on (filtered by `statuses`, see recordStatuses) is
 * POSTed, signed and retried by the platform's delivery machinery, to
 * `{url}/classifieds/{classifiedId}/statuses`.
 */
export const SOURCE = 'caas';

export interface Subscription {
  url: string;
  statuses?: string[];
  /** Our extension: the key receivers verify signatures with. Generated when not given. */
  secret?: string;
}

export async function subscribe(pool: pg.Pool, sealer: Sealer, tenant: Tenant, subscription: Subscription): Promise<void> {
  const url = subscription.url.replace(/\/+$/, '');
  await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<{ subscription_id: string; secret: string }>(
      `INSERT INTO caas_webhook_subscriptions (environment, agency_id, client_id, subscription_id, url, statuses, secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (environment, agency_id, client_id) DO UPDATE
         SET url = EXCLUDED.url, statuses = EXCLUDED.statuses,
             secret = CASE WHEN $8 THEN EXCLUDED.secret ELSE caas_webhook_subscriptions.secret END, updated_at = now()
       RETURNING subscription_id, secret`,
      [
        tenant.environment,
        tenant.agencyId,
        tenant.clientId,
        randomUUID(),
        url,
        subscription.statuses === undefined ? null : [...new Set(subscription.statuses)],
        sealer.seal(subscription.secret ?? randomBytes(24).toString('base64url'), WEBHOOK_SECRET),
        subscription.secret !== undefined,
      ],
    );
    const row = onlyRow(rows);
    // Undelivered statuses (retries, and failures an operator may redeliver) follow the
    // subscription to its new key and address: each to its classified's path under the new URL,
    // as recordStatuses builds it, not to the bare URL.
    await retargetDeliveries(client, { source: SOURCE, subscriptionId: row.subscription_id }, { secret: row.secret });
    await client.query(
      `UPDATE webhook_deliveries SET url = $3 || '/classifieds/' || (payload ->> 'classifiedId') || '/statuses'
        WHERE source = $1 AND subscription_id = $2 AND state IN ('PENDING', 'FAILED')`,
      [SOURCE, row.subscription_id, url],
    );
  });
}

export async function unsubscribe(pool: pg.Pool, tenant: Tenant): Promise<void> {
  await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<{ subscription_id: string }>(
      'DELETE FROM caas_webhook_subscriptions WHERE client_id = $1 RETURNING subscription_id',
      [tenant.clientId],
    );
    const removed = rows[0];
    if (!removed) throw notFound('This client has no webhook subscription here');
    await cancelDeliveries(client, { source: SOURCE, subscriptionId: removed.subscription_id });
  });
}

/** A subscription that is gone at the receiver's word (410) is removed, as a DELETE /webhooks would. */
export async function removeGone(client: pg.ClientBase, subscriptionId: string): Promise<void> {
  await client.query('DELETE FROM caas_webhook_subscriptions WHERE subscription_id = $1', [subscriptionId]);
}

/**
 * Before a redelivery: a subscription wants its statuses for as long as it exists (PUT /webhooks
 * keeps its subscription_id). Only a deletion matters, so FOR KEY SHARE: a PUT replacing url or
 * secret meanwhile is not held up, and re-aims the queued deliveries whenever it commits.
 */
export async function subscriptionStates(client: pg.ClientBase, subscriptionIds: readonly string[]): Promise<Map<string, 'ACTIVE'>> {
  const { rows } = await client.query<{ subscription_id: string }>(
    'SELECT subscription_id FROM caas_webhook_subscriptions WHERE subscription_id::text = ANY($1::text[]) FOR KEY SHARE',
    [subscriptionIds],
  );
  return new Map(rows.map((row) => [row.subscription_id, 'ACTIVE']));
}
