import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { sql, jsonb, type Sql } from '../../platform/db/sql.js';
import { redeliver, scheduleDeliveries } from '../../platform/delivery/index.js';
import type { Lead } from './model.js';
import { API_KEY_HEADER, SOURCE } from './subscriptions.js';

/** The delivery of a lead to a subscription: one id, known before the lead row exists. */
function deliveryId(leadId: string, subscription: Sql): Sql {
  return sql`md5(${leadId} || ':' || ${subscription})::uuid`;
}

function activeSubscriptions(environment: Environment, agencyId: string): Sql {
  return sql`lead_webhook_subscriptions s WHERE s.environment = ${environment} AND s.agency_id = ${agencyId} AND s.status = 'ACTIVE'`;
}

/**
 * The seam between the leads and the subscriptions halves of the API: statements of the
 * transaction that stores a new lead, which schedule its delivery to every ACTIVE subscription
 * of its agency (platform delivery machinery), so the lead and its notification jobs commit
 * together. `schedule` runs before the agency's ingestion lock is taken, so the deliveries and
 * their jobs, most of a lead's cost, are not serialised; it locks the subscriptions against
 * change until the transaction ends (a PUT of a new apiKey or a DELETE at the same time happens
 * either first, and this sees its result, or after, and finds these deliveries). `stamp` runs
 * after the lead row is written under the lock: it writes the ingestion date the database gave
 * it into the notifications (as toLead writes a date: ISO 8601, UTC, milliseconds).
 */
export function notifyNewLead(lead: Lead, environment: Environment): { schedule: Sql; stamp: Sql } {
  const { agencyId, leadId } = lead.metadata;
  const schedule = scheduleDeliveries(
    { source: SOURCE, environment, agencyId },
    sql`SELECT ${deliveryId(leadId, sql`s.id`)} AS id, s.id::text AS subscription_id, s.url, s.api_key AS secret,
               jsonb_build_object(${API_KEY_HEADER.toLowerCase()}, s.api_key) AS headers, ${jsonb(lead)} AS payload
          FROM ${activeSubscriptions(environment, agencyId)}
         ORDER BY s.created_at, s.id
           FOR SHARE OF s`,
  );
  const stamp = sql`UPDATE webhook_deliveries d
        SET payload = jsonb_set(d.payload, '{metadata,ingestionDate}',
                                to_jsonb(to_char(l.ingested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       FROM leads l
      WHERE l.id = ${leadId}::uuid
        AND d.id = ANY (ARRAY(SELECT ${deliveryId(leadId, sql`s.id`)} FROM ${activeSubscriptions(environment, agencyId)}))`;
  return { schedule, stamp };
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
