import type pg from 'pg';
import type { Environment } from '../../platform/catalogue.js';
import { deliveriesCte, redeliverWebhooks, SKIP_REASONS, type Redelivery } from '../../platform/delivery/index.js';
import { API_KEY_HEADER, deliveryHooks, SOURCE } from './subscriptions.js';

/**
 * SQL text of the CTEs, ending in `name`, that schedule the notification of a new lead to every
 * ACTIVE subscription of its agency, in the statement that writes the lead: they commit together.
 * `lead` is a CTE of the statement with the lead's ingested_at; `payload` the parameter holding
 * the Lead JSON (its ingestionDate is replaced by the database's); `environment` and `agency`
 * the parameters of the tenant. The statement runs under the agency's ingestion lock, which a
 * change to a subscription takes too (see ingestionLock): no row of them is locked here.
 */
export function leadNotifications(name: string, lead: string, payload: string, environment: string, agency: string): string {
  return `
  lead_subscriptions AS (
    SELECT s.id, s.url, s.api_key FROM lead_webhook_subscriptions s
     WHERE s.environment = ${environment} AND s.agency_id = ${agency} AND s.status = 'ACTIVE'),
  lead_recipients AS (
    SELECT '${SOURCE}' AS source, ${environment}::text AS environment, ${agency}::text AS agency_id, s.id::text AS subscription_id, s.url,
           jsonb_set(${payload}::jsonb, '{metadata,ingestionDate}', to_jsonb(immogate_iso_time(l.ingested_at))) AS payload,
           s.api_key AS secret, '${API_KEY_HEADER.toLowerCase()}' AS secret_header, '{}'::jsonb AS headers
      FROM ${lead} l, lead_subscriptions s),
  ${deliveriesCte(name, 'lead_recipients')}`;
}

export type LeadRedeliveryTarget = { deliveryId: string } | { since: Date; environment?: Environment; agencyId?: string };

/**
 * The operator's redelivery of lead notifications (`immogate leads redeliver`): the platform's,
 * limited to this source. Only notifications whose subscription still exists and is ACTIVE go
 * out again: a deleted or deactivated subscription (a 410 deactivates it) asked for no more, and
 * its receiver would only refuse again.
 */
export async function redeliverLeadNotifications(pool: pg.Pool, target: LeadRedeliveryTarget): Promise<Redelivery> {
  const result = await redeliverWebhooks(pool, { ...target, source: SOURCE }, { [SOURCE]: deliveryHooks });
  // An operator of the lead API knows them as notifications.
  const skipped = result.skipped.map((skip) =>
    skip.reason === SKIP_REASONS.UNKNOWN ? { ...skip, reason: 'no lead notification has this id' } : skip,
  );
  return { ...result, skipped };
}
