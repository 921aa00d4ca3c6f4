import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { redeliver, scheduleDelivery } from '../../platform/delivery/index.js';
import type { Lead } from './model.js';
import { activeSubscribers, deliveryHeaders, SOURCE } from './subscriptions.js';

/**
 * The seam between the leads and the subscriptions halves of the API: called inside the
 * transaction that stores a new lead, it schedules the lead's delivery to every ACTIVE
 * subscription of its agency (platform delivery machinery), so the lead and its notification
 * jobs commit together.
 */
export async function notifyNewLead(client: pg.ClientBase, lead: Lead, environment: Environment): Promise<void> {
  const agencyId = lead.metadata.agencyId;
  for (const subscriber of await activeSubscribers(client, environment, agencyId)) {
    await scheduleDelivery(client, {
      source: SOURCE,
      environment,
      agencyId,
      subscriptionId: subscriber.subscriptionId,
      url: subscriber.url,
      payload: lead,
      secret: subscriber.apiKey,
      headers: deliveryHeaders(subscriber.apiKey),
    });
  }
}

export type LeadRedeliveryTarget = { deliveryId: string } | { since: Date; environment?: Environment; agencyId?: string };

export interface LeadRedelivery {
  /** Scheduled again at once, with a fresh retry schedule and the same webhook-id. */
  redelivered: string[];
  /** Left alone, with the reason. */
  skipped: { deliveryId: string; reason: string }[];
}

interface Candidate {
  id: string;
  subscription: 'ACTIVE' | 'INACTIVE' | null;
}

/**
 * The operator's redelivery (CLI): one lead notification by id, whatever its state, or every
 * FAILED one created since a time. Only notifications whose subscription still exists and is
 * ACTIVE go out again: a deleted or deactivated subscription (a 410 deactivates it) asked for no
 * more, and its receiver would only refuse again. Runs as the owner role, across tenants.
 */
export async function redeliverLeadNotifications(pool: pg.Pool, target: LeadRedeliveryTarget): Promise<LeadRedelivery> {
  const select = `SELECT d.id, s.status AS subscription
                    FROM webhook_deliveries d
                    LEFT JOIN lead_webhook_subscriptions s
                      ON s.id::text = d.subscription_id AND s.environment = d.environment AND s.agency_id = d.agency_id
                   WHERE d.source = $1`;
  const { rows } =
    'deliveryId' in target
      ? await pool.query<Candidate>(`${select} AND d.id::text = $2`, [SOURCE, target.deliveryId])
      : await pool.query<Candidate>(
          `${select} AND d.state = 'FAILED' AND d.created_at >= $2
             AND ($3::text IS NULL OR d.environment = $3) AND ($4::text IS NULL OR d.agency_id = $4)
           ORDER BY d.created_at, d.id`,
          [SOURCE, target.since, target.environment ?? null, target.agencyId ?? null],
        );
  const result: LeadRedelivery = { redelivered: [], skipped: [] };
  if ('deliveryId' in target && rows.length === 0) {
    result.skipped.push({ deliveryId: target.deliveryId, reason: 'no lead notification has this id' });
  }
  for (const row of rows) {
    if (row.subscription !== 'ACTIVE') {
      result.skipped.push({ deliveryId: row.id, reason: row.subscription === null ? 'its subscription was deleted' : 'its subscription is INACTIVE' });
      continue;
    }
    // One at a time by id: the platform's own "failed since" selection cannot filter on our subscriptions.
    result.redelivered.push(...(await redeliver(pool, { deliveryId: row.id })));
  }
  return result;
}
