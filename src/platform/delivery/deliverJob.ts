import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Environment } from '../../apis/catalogue.js';
import { inTransaction } from '../db/pool.js';
import { enqueue } from '../jobs/queue.js';
import type { JobContext, JobDefinition } from '../jobs/registry.js';
import { DELIVER_WEBHOOK, jobFor } from './deliveries.js';
import { OutboundError, sharedOutbound, type Outbound, type OutboundPolicy } from './outbound.js';
import { parseRetryAfter, retryDelaySeconds } from './retry.js';
import { signatureHeaders } from './signing.js';

/**
 * The job 'platform:deliver_webhook' {deliveryId}: one attempt per run, in three steps.
 *
 * 1. Claim (one short transaction): count the attempt, write its row, and lease the delivery
 *    (next_attempt_at moves past the attempt's longest duration) so that a second job for the
 *    same delivery, added by a redelivery, stands aside instead of sending twice at once.
 * 2. Call the receiver, holding no database connection.
 * 3. Finish (one transaction): the attempt's outcome and what follows it (delivered, the next
 *    job at the retry time, or failed) commit together.
 *
 * Nothing is lost between 1 and 3. After a crash graphile-worker runs the job again once its
 * lock expires; if step 3 failed (database unreachable, a hook threw) it retries the job sooner,
 * finds the lease and comes back when it ends. Either way the unfinished attempt is marked
 * interrupted and the message sent again with the same webhook-id (at least once: receivers
 * deduplicate on it).
 */

export interface GoneContext {
  environment: Environment;
  agencyId: string;
  deliveryId: string;
}

/** What an API owning subscriptions provides to the delivery job. */
export interface DeliverySourceHooks {
  /**
   * The receiver answered 410 Gone: disable the subscription. Runs in the transaction that
   * records the attempt (as the owner role, not under withTenant); the subscription's other
   * pending deliveries are already cancelled.
   */
  onGone(client: pg.PoolClient, subscriptionId: string, context: GoneContext): Promise<void>;
}

/** source -> hooks: the registry of delivery sources, given to deliverWebhookJob in the job registry. */
export type DeliverySources = Readonly<Record<string, DeliverySourceHooks>>;

export interface DeliverJobOptions {
  sources?: DeliverySources;
  /** Limits of each call to a receiver (defaults: connect 5 s, headers 10 s, body 10 s, total 30 s). */
  timeouts?: Pick<OutboundPolicy, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'totalTimeoutMs'>;
}

// Only the status matters; a receiver's long answer is cut, not a reason to fail.
const RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'immogate-webhooks/1';

// Due times are whole milliseconds: they travel to graphile-worker's run_at as JavaScript Dates,
// and a job must never start a microsecond before its delivery is due.

interface Claimed {
  id: string;
  environment: Environment;
  agency_id: string;
  source: string;
  subscription_id: string;
  url: string;
  payload: unknown;
  secret: string;
  headers: Record<string, string>;
  attempts: number;
  round_attempts: number;
}

interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  retryAfterSeconds?: number;
  /** The worker stopped the call: not the receiver's fault, so it does not use up a retry. */
  interrupted?: boolean;
}

/**
 * The delivery, claimed for one attempt; or when it is PENDING but not yet due (another attempt
 * holds its lease, or this is graphile-worker retrying a job whose outcome could not be written),
 * the time it becomes due.
 */
async function claim(pool: pg.Pool, deliveryId: string, leaseSeconds: number): Promise<Claimed | { dueAt: Date } | undefined> {
  // One statement, so one round trip: the claim, the closing of an attempt left without an
  // outcome, and the new attempt's record commit together; the sibling parts see the row as it
  // was before the claim, so the attempt recorded here is not the one closed.
  const { rows } = await pool.query<Claimed & { due_at: Date | null }>(
    `WITH claimed AS (
       UPDATE webhook_deliveries
          SET attempts = attempts + 1, round_attempts = round_attempts + 1, next_attempt_at = date_trunc('milliseconds', now() + make_interval(secs => $2))
        WHERE id = $1 AND state = 'PENDING' AND next_attempt_at <= now()
        RETURNING id, environment, agency_id, source, subscription_id, url, payload, secret, headers, attempts, round_attempts),
     closed AS (
       UPDATE webhook_attempts SET error = 'interrupted: no outcome was recorded (the worker stopped, or could not write it)'
        WHERE delivery_id = (SELECT id FROM claimed) AND latency_ms IS NULL AND error IS NULL),
     attempt AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, environment, agency_id, source, subscription_id, attempted_at)
       SELECT id, attempts, environment, agency_id, source, subscription_id, clock_timestamp() FROM claimed)
     SELECT *, NULL::timestamptz AS due_at FROM claimed
     UNION ALL
     -- Not claimed: PENDING but not yet due, or not PENDING at all (no row).
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, next_attempt_at
       FROM webhook_deliveries WHERE id = $1 AND state = 'PENDING' AND NOT EXISTS (SELECT 1 FROM claimed)`,
    [deliveryId, leaseSeconds],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.due_at !== null) return { dueAt: row.due_at };
  const { due_at: _, ...delivery } = row;
  return delivery;
}

async function call(outbound: Outbound, delivery: Claimed, signal: AbortSignal): Promise<Outcome> {
  const body = JSON.stringify(delivery.payload);
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const response = await outbound.request({
      method: 'POST',
      url: delivery.url,
      headers: {
        ...delivery.headers,
        'content-type': 'application/json',
        ...signatureHeaders(delivery.secret, delivery.id, body, Math.floor(Date.now() / 1000)),
      },
      body,
      maxBytes: RESPONSE_BYTES,
      oversize: 'truncate',
      // Re-posting a signed message (and its API key) to wherever a redirect points is not ours to decide.
      followRedirects: false,
      signal,
    });
    const status = response.status;
    if (status >= 200 && status < 300) return { statusCode: status, latencyMs: latency(), error: null };
    const error =
      status === 410
        ? 'receiver answered HTTP 410 Gone: the subscription is reported gone, no more attempts'
        : `receiver answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
    return { statusCode: status, latencyMs: latency(), error, retryAfterSeconds: parseRetryAfter(response.headers['retry-after'], Date.now()) };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.kind === 'aborted') return { statusCode: null, latencyMs: latency(), error: 'interrupted: the worker shut down during the attempt', interrupted: true };
    return { statusCode: null, latencyMs: latency(), error: error.message };
  }
}

const RECORD_ATTEMPT = 'UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, error = $5 WHERE delivery_id = $1 AND attempt = $2';
// `attempts = $2`: only the latest attempt decides (a redelivery may have started another meanwhile).
const GUARD = 'WHERE id = $1 AND attempts = $2';

/** A delivered message, the common case: its attempt and its state in one statement, one round trip. */
async function delivered(pool: pg.Pool, delivery: Claimed, outcome: Outcome): Promise<void> {
  await pool.query(
    `WITH recorded AS (${RECORD_ATTEMPT})
     UPDATE webhook_deliveries SET state = 'DELIVERED', delivered_at = now(), next_attempt_at = NULL ${GUARD}`,
    [delivery.id, delivery.attempts, outcome.statusCode, outcome.latencyMs, outcome.error],
  );
}

/** Any other outcome: the attempt, then a retry, the end of the retries or a 410's consequences. */
async function failed(client: pg.PoolClient, delivery: Claimed, outcome: Outcome, context: JobContext, sources: DeliverySources): Promise<void> {
  const { id, attempts } = delivery;
  await client.query(RECORD_ATTEMPT, [id, attempts, outcome.statusCode, outcome.latencyMs, outcome.error]);
  if (outcome.statusCode === 410) {
    await client.query(`UPDATE webhook_deliveries SET state = 'FAILED', next_attempt_at = NULL ${GUARD} AND state = 'PENDING'`, [id, attempts]);
    await client.query(
      `UPDATE webhook_deliveries SET state = 'CANCELLED', next_attempt_at = NULL
        WHERE source = $1 AND subscription_id = $2 AND state = 'PENDING' AND id <> $3`,
      [delivery.source, delivery.subscription_id, id],
    );
    const hooks = sources[delivery.source];
    if (hooks) await hooks.onGone(client, delivery.subscription_id, { environment: delivery.environment, agencyId: delivery.agency_id, deliveryId: id });
    else context.logger.warn({ source: delivery.source, subscriptionId: delivery.subscription_id }, 'receiver answered 410 but no delivery source hooks are registered');
    return;
  }
  const delay = outcome.interrupted ? 0 : retryDelaySeconds(context.config.webhookRetrySchedule, delivery.round_attempts - 1, outcome.retryAfterSeconds);
  if (delay === undefined) {
    await client.query(`UPDATE webhook_deliveries SET state = 'FAILED', next_attempt_at = NULL ${GUARD} AND state = 'PENDING'`, [id, attempts]);
    context.logger.warn({ deliveryId: id, source: delivery.source, attempts }, 'webhook delivery failed: retry schedule used up');
    return;
  }
  const { rows } = await client.query<{ at: Date }>(
    `UPDATE webhook_deliveries SET next_attempt_at = date_trunc('milliseconds', now() + make_interval(secs => $3)), round_attempts = round_attempts - $4
      ${GUARD} AND state = 'PENDING' RETURNING next_attempt_at AS at`,
    [id, attempts, delay, outcome.interrupted ? 1 : 0],
  );
  const next = rows[0];
  if (next) await enqueue(client, jobFor(id, next.at));
}

function deliveryIdOf(payload: unknown): string | undefined {
  const id = (payload as { deliveryId?: unknown } | null)?.deliveryId;
  return typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : undefined;
}

/** The delivery job with its sources' hooks. The job registry holds one; tests may build their own. */
export function deliverWebhookJob(options: DeliverJobOptions = {}): JobDefinition {
  const sources = options.sources ?? {};
  const totalMs = options.timeouts?.totalTimeoutMs ?? 30_000;
  // Longer than any attempt can take, so a live attempt is never taken for a dead one.
  const leaseSeconds = (2 * totalMs) / 1000 + 60;
  return {
    name: DELIVER_WEBHOOK,
    async handler(payload, context) {
      const deliveryId = deliveryIdOf(payload);
      if (!deliveryId) {
        // Retrying cannot fix a malformed payload.
        context.logger.error({ payload }, 'deliver_webhook job without a valid deliveryId: dropped');
        return;
      }
      const delivery = await claim(context.pool, deliveryId, leaseSeconds);
      if (!delivery) return; // delivered, failed, cancelled or unknown: nothing to do
      if ('dueAt' in delivery) {
        // Come back when the lease ends: if its attempt is alive it will have decided by then
        // (and replaced this job through the key), if it died this job takes over.
        await inTransaction(context.pool, (client) => enqueue(client, jobFor(deliveryId, delivery.dueAt)));
        return;
      }
      const outbound = sharedOutbound(context.config, { allowPrivateTargets: context.config.allowPrivateTargets, userAgent: USER_AGENT, ...options.timeouts });
      const outcome = await call(outbound, delivery, context.signal);
      if (outcome.error === null) await delivered(context.pool, delivery, outcome);
      else await inTransaction(context.pool, (client) => failed(client, delivery, outcome, context, sources));
    },
  };
}
