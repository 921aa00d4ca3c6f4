/*
 * The operator's redelivery (`immogate deliveries redeliver`, POST /admin/deliveries/redeliveries):
 * deliveries go back to PENDING, due at once, with a fresh retry schedule and the same
 * webhook-id, and the workers are told. Whether a delivery's subscription still wants messages
 * is its API's knowledge, asked through the source's subscriptionStates hook.
 */
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { WORK_CHANNEL } from '../work/listener.js';
import { WEBHOOKS_STREAM, type DeliverySpec } from './deliveries.js';
import type { DeliverySources } from './deliveryStream.js';

export type RedeliveryTarget =
  /**
   * One delivery, whatever its state: an operator may resend a delivered message. `orWebhookId`:
   * or every delivery whose webhook-id, the id its receiver saw, is this (an event announced to
   * several subscriptions, such as a lead, has one delivery to each).
   */
  | { deliveryId: string; orWebhookId?: boolean; source?: string }
  /** Every FAILED delivery created since a time, optionally narrowed. */
  | { since: Date; source?: string; environment?: DeliverySpec['environment']; agencyId?: string };

export interface SkippedDelivery {
  deliveryId: string;
  reason: string;
}

export interface Redelivery {
  /** Queued again, in creation order. */
  redelivered: string[];
  /** Left alone, with the reason. */
  skipped: SkippedDelivery[];
  /** The webhook-id of each delivery found (what its receiver saw), by delivery id. */
  webhookIds: Record<string, string>;
}

/** Why a delivery is skipped; callers may rephrase UNKNOWN for their audience. */
export const SKIP_REASONS = {
  UNKNOWN: 'no delivery has this id',
  DELETED: 'its subscription was deleted',
  INACTIVE: 'its subscription is INACTIVE',
  DUE: 'it is already pending and due',
  RUNNING: 'an attempt of it is under way',
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Candidate {
  id: string;
  source: string;
  subscription_id: string;
  webhook_id: string;
}

async function candidates(client: pg.ClientBase, target: RedeliveryTarget): Promise<Candidate[]> {
  // A message announcing a feed event carries the event's id as its webhook-id, any other its own id.
  const select = 'SELECT id, source, subscription_id, coalesce(event_id, id) AS webhook_id FROM webhook_deliveries';
  if ('deliveryId' in target) {
    // Anything but a UUID names no delivery (and would fail the cast).
    if (!UUID.test(target.deliveryId)) return [];
    const { rows } = await client.query<Candidate>(
      `${select} WHERE (id = $1::uuid OR ($3 AND event_id = $1::uuid)) AND ($2::text IS NULL OR source = $2) ORDER BY created_at, id`,
      [target.deliveryId, target.source ?? null, target.orWebhookId === true],
    );
    return rows;
  }
  const { rows } = await client.query<Candidate>(
    `${select} WHERE state = 'FAILED' AND created_at >= $1
        AND ($2::text IS NULL OR source = $2) AND ($3::text IS NULL OR environment = $3) AND ($4::text IS NULL OR agency_id = $4)
      ORDER BY created_at, id`,
    [target.since, target.source ?? null, target.environment ?? null, target.agencyId ?? null],
  );
  return rows;
}

/** Adds to `skips` the candidates whose subscription, as their source reports it, wants no more. */
async function checkSubscriptions(
  client: pg.ClientBase,
  found: Candidate[],
  sources: DeliverySources,
  skips: Map<string, string>,
): Promise<void> {
  const bySource = new Map<string, Candidate[]>();
  for (const candidate of found) {
    const list = bySource.get(candidate.source);
    if (list) list.push(candidate);
    else bySource.set(candidate.source, [candidate]);
  }
  for (const [source, deliveries] of bySource) {
    const ask = sources[source]?.subscriptionStates;
    if (!ask) continue;
    const states = await ask(client, [...new Set(deliveries.map((delivery) => delivery.subscription_id))]);
    for (const delivery of deliveries) {
      const state = states.get(delivery.subscription_id);
      if (state === undefined) skips.set(delivery.id, SKIP_REASONS.DELETED);
      else if (state === 'INACTIVE') skips.set(delivery.id, SKIP_REASONS.INACTIVE);
    }
  }
}

/**
 * Resets the deliveries of `ids` that wait for nothing but a retry (or are finished), adds the
 * others to `skips`, and returns the ids reset. One statement, on the rows as they are once
 * locked: the candidates were read unlocked, so that subscriptions are locked before deliveries,
 * and the deliveries in id order (the lock order of db/locks.ts).
 */
async function reset(client: pg.ClientBase, ids: string[], skips: Map<string, string>): Promise<Set<string>> {
  const { rows } = await client.query<{ id: string; skip: 'DUE' | 'RUNNING' | null }>(
    `WITH locked AS (
       -- A claim whose lease ran out is due: the next worker takes it over.
       SELECT id, CASE WHEN state <> 'PENDING' THEN NULL
                       WHEN next_attempt_at <= now() THEN 'DUE'
                       WHEN claimed_by IS NOT NULL THEN 'RUNNING' END AS skip
         FROM webhook_deliveries WHERE id = ANY($1::uuid[])
        ORDER BY id FOR NO KEY UPDATE),
     queued AS (
       UPDATE webhook_deliveries d
          SET state = 'PENDING', round_attempts = 0, next_attempt_at = now(), ready = true, finished_at = NULL, claimed_by = NULL
         FROM locked WHERE d.id = locked.id AND locked.skip IS NULL)
     SELECT id, skip FROM locked`,
    [ids],
  );
  for (const row of rows) if (row.skip !== null) skips.set(row.id, SKIP_REASONS[row.skip]);
  return new Set(rows.filter((row) => row.skip === null).map((row) => row.id));
}

/**
 * Redelivers what `target` names. A delivery whose source has a subscriptionStates hook goes out
 * again only while its subscription exists and is not INACTIVE; the hook keeps the subscriptions
 * locked until this commits, so one deleted or turned off meanwhile cancels what was queued.
 * Runs as the owner role, across tenants.
 */
export async function redeliverWebhooks(pool: pg.Pool, target: RedeliveryTarget, sources: DeliverySources): Promise<Redelivery> {
  return inTransaction(pool, async (client) => {
    const found = await candidates(client, target);
    if ('deliveryId' in target && found.length === 0) {
      const reason = target.orWebhookId ? `${SKIP_REASONS.UNKNOWN} or webhook-id` : SKIP_REASONS.UNKNOWN;
      return { redelivered: [], skipped: [{ deliveryId: target.deliveryId, reason }], webhookIds: {} };
    }
    const skips = new Map<string, string>();
    await checkSubscriptions(client, found, sources, skips);
    const eligible = found.filter((candidate) => !skips.has(candidate.id)).map((candidate) => candidate.id);
    const queued = eligible.length > 0 ? await reset(client, eligible, skips) : new Set<string>();
    const webhookIds = Object.fromEntries(found.map((candidate) => [candidate.id, candidate.webhook_id]));
    const result: Redelivery = { redelivered: [], skipped: [], webhookIds };
    for (const { id } of found) {
      if (queued.has(id)) result.redelivered.push(id);
      // Neither queued nor skipped: removed since it was read (retention), as good as never there.
      else result.skipped.push({ deliveryId: id, reason: skips.get(id) ?? SKIP_REASONS.UNKNOWN });
    }
    if (result.redelivered.length > 0) await client.query('SELECT immogate_announce($1, $2)', [WORK_CHANNEL, WEBHOOKS_STREAM]);
    return result;
  });
}

/** The same without asking any source about its subscriptions; the ids queued. */
export async function redeliver(pool: pg.Pool, target: RedeliveryTarget): Promise<string[]> {
  return (await redeliverWebhooks(pool, target, {})).redelivered;
}
