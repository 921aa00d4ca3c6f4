import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { deliveriesCte, redeliver } from '../../platform/delivery/index.js';
import { API_KEY_HEADER, SOURCE } from './subscriptions.js';

/**
 * SQL text of the CTEs, ending in `name`, that schedule the notification of a new lead to every
 * ACTIVE subscription of its agency, in the statement that writes the lead: they commit together.
 * `lead` is a CTE of the statement with the lead's ingested_at; `payload` the parameter holding
 * the Lead JSON (its ingestionDate is replaced by the database's); `environment` and `agency`
 * the parameters of the tenant. The subscriptions are locked against change until the commit (a
 * PUT of a new apiKey or a DELETE at the same time happens either first, and this sees its
 * result, or after, and finds these deliveries to re-aim or cancel).
 */
export function leadNotifications(name: string, lead: string, payload: string, environment: string, agency: string): string {
  return `
  lead_subscriptions AS (
    SELECT s.id, s.url, s.api_key FROM lead_webhook_subscriptions s
     WHERE s.environment = ${environment} AND s.agency_id = ${agency} AND s.status = 'ACTIVE'
       FOR SHARE),
  lead_recipients AS (
    SELECT '${SOURCE}' AS source, ${environment}::text AS environment, ${agency}::text AS agency_id, s.id::text AS subscription_id, s.url,
           jsonb_set(${payload}::jsonb, '{metadata,ingestionDate}', to_jsonb(immogate_iso_time(l.ingested_at))) AS payload,
           s.api_key AS secret, jsonb_build_object('${API_KEY_HEADER.toLowerCase()}', s.api_key) AS headers
      FROM ${lead} l, lead_subscriptions s),
  ${deliveriesCte(name, 'lead_recipients')}`;
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
