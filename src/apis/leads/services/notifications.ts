/*
 * The operator's redelivery of lead notifications (`immogate leads redeliver`): the platform's,
 * limited to this source. The notifications themselves are written with each new lead (see
 * insertLead in repository.ts) and sent by the platform's delivery worker.
 */
import type pg from 'pg';
import type { Environment } from '../../../platform/catalogue.js';
import { redeliverWebhooks, SKIP_REASONS, type Redelivery } from '../../../platform/delivery/index.js';
import { DELIVERY_SOURCE } from '../model/subscription.js';
import { deliveryHooks } from './subscriptions.js';

export type LeadRedeliveryTarget =
  | { deliveryId: string; orWebhookId?: boolean }
  | { since: Date; environment?: Environment; agencyId?: string };

/**
 * Only notifications whose subscription still exists and is ACTIVE go out again: a deleted or
 * deactivated subscription (a 410 deactivates it) asked for no more, and its receiver would only
 * refuse again.
 */
export async function redeliverLeadNotifications(pool: pg.Pool, target: LeadRedeliveryTarget): Promise<Redelivery> {
  const result = await redeliverWebhooks(pool, { ...target, source: DELIVERY_SOURCE }, { [DELIVERY_SOURCE]: deliveryHooks });
  // An operator of the lead API knows them as notifications.
  const skipped = result.skipped.map((skip) =>
    skip.reason.startsWith(SKIP_REASONS.UNKNOWN) ? { ...skip, reason: skip.reason.replace('no delivery', 'no lead notification') } : skip,
  );
  return { ...result, skipped };
}
