/*
 * The worker side of webhook delivery: the PENDING rows of webhook_deliveries are the queue.
 * One run is one attempt, in three steps.
 *
 * 1. Claim (one statement for a whole batch): count each attempt, write its row, and lease the
 *    delivery (next_attempt_at moves to the end of the lease, renewed while the attempt runs).
 * 2. Call the receiver, holding no database connection.
 * 3. Record (one statement): the attempt's outcome and what follows it (delivered, the next
 *    attempt at the retry time, or failed) commit together.
 *
 * Nothing is lost between 1 and 3. If the worker dies, the lease runs out and any worker claims
 * the delivery again; if step 3 fails, the delivery is given back. Either way the next claim
 * marks the unfinished attempt interrupted and sends the message again with the same
 * webhook-id (at least once: receivers deduplicate on it).
 */
import { sealerFor } from '../secrets/sealer.js';
import { WEBHOOK_SECRET } from '../secrets/stored.js';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { Environment } from '../catalogue.js';
import { Batcher, eachAlone } from '../db/batcher.js';
import { conflictLogged, lockedInOrder, retryingConflicts } from '../db/locks.js';
import type { Logger } from '../log.js';
import { inTransaction, onlyRow } from '../db/pool.js';
import { busyArrays, fairPick, type FairQueue } from '../work/fairClaim.js';
import { WORK_CHANNEL } from '../work/listener.js';
import { backoffSeconds, type QueueDepth, type WorkContext, type WorkStream } from '../work/stream.js';
import { WEBHOOKS_STREAM } from './deliveries.js';
import { addressPolicy, OutboundError, sharedOutbound, type Outbound, type OutboundPolicy } from './outbound.js';
import { parseRetryAfter, retryDelaySeconds } from './retry.js';
import { signatureHeaders } from './signing.js';
import { getOrMake } from '../memo.js';

export interface GoneContext {
  environment: Environment;
  agencyId: string;
  deliveryId: string;
}

/** What a delivery carries, so a list tells its rows apart: the event's name and what it is about. */
export interface DeliveryEvent {
  /** e.g. the status sent (CREATED), or the kind of notification (lead). */
  name: string;
  /** e.g. classified, lead. */
  subjectType: string;
  subjectId: string;
}

/** What an API owning subscriptions provides to the delivery worker and the delivery views. */
export interface DeliverySourceHooks {
  /** The scope that manages the source's subscriptions: the console shows and redelivers their deliveries to a token holding it. */
  scope: string;
  /**
   * The receiver answered 410 Gone: lock the subscription's row (and whatever precedes it in the
   * lock order of db/locks.ts) until the transaction ends. Runs first in the transaction that
   * records the attempt (as the owner role, not under withTenant), before any delivery is locked.
   */
  lockGone?(client: pg.PoolClient, subscriptionId: string, context: GoneContext): Promise<void>;
  /**
   * The receiver answered 410 Gone: disable the subscription. Runs in the transaction that
   * records the attempt (as the owner role, not under withTenant), after lockGone; the
   * subscription's other pending deliveries are already cancelled.
   */
  onGone(client: pg.PoolClient, subscriptionId: string, context: GoneContext): Promise<void>;
  /**
   * What one of the source's deliveries carries, read from its payload (the status and its
   * classified, the lead), so the delivery lists tell their rows apart; null when it cannot tell.
   */
  eventOf?(payload: unknown): DeliveryEvent | null;
  /**
   * Asked before an operator's redelivery: the state of each subscription named; one missing
   * from the map was deleted. Runs in the redelivery's transaction (as the owner role), and must
   * lock the rows it reads until that ends (FOR SHARE, or FOR KEY SHARE if only a deletion
   * matters), so a subscription deleted or turned off meanwhile cancels what was queued. A
   * source without it is redelivered unchecked.
   */
  subscriptionStates?(client: pg.ClientBase, subscriptionIds: readonly string[]): Promise<ReadonlyMap<string, 'ACTIVE' | 'INACTIVE'>>;
}

/** source -> hooks: the delivery sources of the API modules. */
export type DeliverySources = Readonly<Record<string, DeliverySourceHooks>>;

export interface DeliveryStreamOptions {
  sources?: DeliverySources;
  /** Limits of each call to a receiver (defaults: connect 5 s, headers 10 s, body 10 s, total 30 s). */
  timeouts?: Pick<OutboundPolicy, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'totalTimeoutMs'>;
}

// Only the status decides; a receiver's long answer is cut, not a reason to fail.
const RESPONSE_BYTES = 64 * 1024;
// What an attempt keeps of the answer for the delivery view: enough to read an error page's point.
const RESPONSE_KEPT_BYTES = 4096;
/** What every webhook request says it comes from. */
export const WEBHOOK_USER_AGENT = 'immogate-webhooks/1';

export interface ClaimedDelivery {
  id: string;
  /** The webhook-id header: the id of the event the message announces (the feed's), else the delivery's own id. */
  webhook_id: string;
  environment: Environment;
  agency_id: string;
  source: string;
  subscription_id: string;
  url: string;
  payload: unknown;
  /** Sealed: opened only for the call. */
  secret: string;
  secret_header: string | null;
  headers: Record<string, string>;
  attempts: number;
  round_attempts: number;
  /** The worker's shares the attempt counts against: its subscription, agency and host. */
  shares: string[];
}

interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The headers sent, the secret header masked. */
  requestHeaders: Record<string, string>;
  /** The start of the receiver's answer, as text; null when none came. */
  responseBody: string | null;
  responseTruncated: boolean;
  retryAfterSeconds?: number;
  /** The worker stopped the call: not the receiver's fault, so it does not use up a retry. */
  interrupted?: boolean;
}

// Due times are whole milliseconds, as JavaScript Dates carry them.
const LEASE_END = "date_trunc('milliseconds', now() + make_interval(secs => $2))";

/**
 * Deliveries are claimed by subscription (a lane), within the worker's shares per subscription,
 * agency, agency and receiver host, and receiver host (fairClaim.ts): a receiver that hangs holds
 * at most its caps of the worker's attempts, whatever its backlog.
 */
const DELIVERY_QUEUE: FairQueue = {
  table: 'webhook_deliveries',
  id: 'id',
  due: 'next_attempt_at',
  claimable: (q) => `${q}.state = 'PENDING' AND ${q}.ready`,
  lane: ['source', 'subscription_id'],
  shares: [
    { key: (q) => `'s:' || ${q}.source || '/' || ${q}.subscription_id`, cap: '$6' },
    { key: (q) => `'a:' || ${q}.environment || '/' || ${q}.agency_id`, cap: '$7' },
    // An agency's part of a receiver host (half the host's by default), so that one agency whose
    // endpoints there hang (its lead and its status subscriptions, say) leaves the rest to the others.
    { key: (q) => `'ah:' || ${q}.environment || '/' || ${q}.agency_id || '|' || ${q}.target`, cap: '$9' },
    { key: (q) => `'h:' || ${q}.target`, cap: '$8' },
  ],
  turns: 1,
};

/**
 * A retry whose time has come is made ready again by the claim, which walks the lanes of ready
 * deliveries only. It cannot claim what it promotes (its scan does not see its own changes), so it
 * tells the workers there is work, as an insert would: each row announces it, and the pool sends
 * one notification for them all once the claim's transaction has ended (db/announcements.ts).
 */
const CLAIM = `
  WITH RECURSIVE
  due_retries AS MATERIALIZED (
    SELECT id FROM webhook_deliveries WHERE state = 'PENDING' AND NOT ready AND next_attempt_at <= now()
     ORDER BY next_attempt_at LIMIT 1000 FOR UPDATE SKIP LOCKED),
  promoted AS (
    UPDATE webhook_deliveries d SET ready = true FROM due_retries r WHERE d.id = r.id
    RETURNING immogate_announce('${WORK_CHANNEL}', '${WEBHOOKS_STREAM}')),
  ${fairPick(DELIVERY_QUEUE, { limit: '$3', busyKeys: '$4', busyCounts: '$5' })},
  claimed AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, round_attempts = d.round_attempts + 1, next_attempt_at = ${LEASE_END}, claimed_by = $1
      FROM picked WHERE d.id = picked.id
    RETURNING d.id, coalesce(d.event_id, d.id) AS webhook_id, d.environment, d.agency_id, d.source, d.subscription_id, d.url, d.payload, d.secret, d.secret_header, d.headers, d.attempts,
            d.round_attempts, picked.shares),
  -- An attempt without an outcome belongs to a worker that died or could not record it. (This
  -- part sees the attempt rows as they were before the statement: not the ones it adds.)
  closed AS (
    UPDATE webhook_attempts a SET error = 'interrupted: no outcome was recorded (the worker stopped, or could not write it)'
      FROM claimed c WHERE a.delivery_id = c.id AND a.latency_ms IS NULL AND a.error IS NULL),
  started AS (
    INSERT INTO webhook_attempts (delivery_id, attempt, environment, agency_id, source, subscription_id, attempted_at)
    SELECT id, attempts, environment, agency_id, source, subscription_id, clock_timestamp() FROM claimed)
  SELECT * FROM claimed`;

const RECORD_ATTEMPT = `UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, error = $5, request_headers = $6, response_body = $7,
                               response_truncated = $8
                         WHERE delivery_id = $1 AND attempt = $2`;
// `attempts = $2`: only the latest attempt decides (a redelivery may have started another meanwhile).
const GUARD = 'WHERE id = $1 AND attempts = $2';

/** A secret as the delivery view shows it: its last four characters when it is long enough to keep the rest hidden. */
export function masked(secret: string): string {
  return secret.length >= 16 ? `****${secret.slice(-4)}` : '****';
}

/** The answer's start as text: PostgreSQL text holds no NUL, and a cut may split a character (replaced). */
function keptText(body: Buffer): string {
  return body.subarray(0, RESPONSE_KEPT_BYTES).toString('utf8').replaceAll('\0', '\uFFFD');
}

async function call(outbound: Outbound, delivery: ClaimedDelivery, secret: string, signal: AbortSignal): Promise<Outcome> {
  const body = JSON.stringify(delivery.payload);
  const headers = {
    ...delivery.headers,
    ...(delivery.secret_header === null ? {} : { [delivery.secret_header]: secret }),
    'content-type': 'application/json',
    ...signatureHeaders(secret, delivery.webhook_id, body, Math.floor(Date.now() / 1000)),
  };
  const sent = {
    ...headers,
    'user-agent': WEBHOOK_USER_AGENT,
    ...(delivery.secret_header === null ? {} : { [delivery.secret_header]: masked(secret) }),
  };
  const noAnswer = { requestHeaders: sent, responseBody: null, responseTruncated: false };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const response = await outbound.request({
      method: 'POST',
      url: delivery.url,
      headers,
      body,
      maxBytes: RESPONSE_BYTES,
      oversize: 'truncate',
      // Re-posting a signed message (and its API key) to wherever a redirect points is not ours to decide.
      followRedirects: false,
      signal,
    });
    const status = response.status;
    const answer = {
      requestHeaders: sent,
      responseBody: keptText(response.body),
      responseTruncated: response.truncated || response.body.length > RESPONSE_KEPT_BYTES,
    };
    if (status >= 200 && status < 300) return { statusCode: status, latencyMs: latency(), error: null, ...answer };
    const error =
      status === 410
        ? 'receiver answered HTTP 410 Gone: the subscription is reported gone, no more attempts'
        : `receiver answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
    return {
      statusCode: status,
      latencyMs: latency(),
      error,
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after'], Date.now()),
      ...answer,
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.kind === 'aborted')
      return {
        statusCode: null,
        latencyMs: latency(),
        error: 'interrupted: the worker shut down during the attempt',
        interrupted: true,
        ...noAnswer,
      };
    return { statusCode: null, latencyMs: latency(), error: error.message, ...noAnswer };
  }
}

interface Delivered {
  id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  request_headers: Record<string, string>;
  response_body: string | null;
  response_truncated: boolean;
}

/**
 * Delivered messages, the common case: their attempts and their state in one statement, for all
 * those that finished at the same moment (group commit, see Batcher). `= ANY` names the rows for
 * the index: the planner, estimating the JSON at a hundred rows, would otherwise scan the tables.
 */
async function recordDelivered(pool: pg.Pool, logger: Logger, outcomes: Delivered[]): Promise<PromiseSettledResult<void>[]> {
  try {
    await retryingConflicts(
      () =>
        pool.query({
          name: 'webhooks.delivered',
          text: `WITH outcome AS (SELECT * FROM jsonb_to_recordset($1::jsonb)
                                AS o (id uuid, attempt integer, status_code integer, latency_ms integer, request_headers jsonb,
                                      response_body text, response_truncated boolean)),
                  -- The deliveries in id order, then their attempts (db/locks.ts).
                  ${lockedInOrder('locked', 'webhook_deliveries', 'id = ANY ($2::uuid[])')},
                  recorded AS (
                    UPDATE webhook_attempts a SET status_code = o.status_code, latency_ms = o.latency_ms, error = NULL,
                                                  request_headers = o.request_headers, response_body = o.response_body,
                                                  response_truncated = o.response_truncated
                      FROM outcome o JOIN locked l ON l.id = o.id
                     WHERE a.delivery_id = ANY ($2::uuid[]) AND a.delivery_id = o.id AND a.attempt = o.attempt)
             UPDATE webhook_deliveries d
                SET state = 'DELIVERED', delivered_at = now(), finished_at = now(), next_attempt_at = NULL, claimed_by = NULL
               FROM outcome o JOIN locked l ON l.id = o.id
              -- Only the latest attempt decides (a redelivery may have started another meanwhile).
              WHERE d.id = ANY ($2::uuid[]) AND d.id = o.id AND d.attempts = o.attempt`,
          values: [JSON.stringify(outcomes), outcomes.map((outcome) => outcome.id)],
        }),
      { onRetry: conflictLogged(logger, 'recording delivered webhooks') },
    );
  } catch (error) {
    if (outcomes.length === 1) return [{ status: 'rejected', reason: error }];
    return eachAlone(outcomes, (one) => recordDelivered(pool, logger, one));
  }
  return outcomes.map(() => ({ status: 'fulfilled', value: undefined }));
}

const deliveredWriters = new WeakMap<pg.Pool, Batcher<Delivered, void>>();

function delivered(pool: pg.Pool, logger: Logger, delivery: ClaimedDelivery, outcome: Outcome): Promise<void> {
  const writer = getOrMake(
    deliveredWriters,
    pool,
    () => new Batcher((outcomes) => recordDelivered(pool, logger, outcomes), { maxBatch: 128, maxInFlight: 2 }),
  );
  return writer.submit({
    id: delivery.id,
    attempt: delivery.attempts,
    status_code: outcome.statusCode,
    latency_ms: outcome.latencyMs,
    request_headers: outcome.requestHeaders,
    response_body: outcome.responseBody,
    response_truncated: outcome.responseTruncated,
  });
}

/**
 * Any other outcome: what follows it for the delivery (a retry, the end of the retries, or a
 * 410's consequences), then the attempt, in the lock order of db/locks.ts: the subscription's
 * row (a 410), the deliveries in id order, the attempt's row.
 */
async function failed(
  client: pg.PoolClient,
  delivery: ClaimedDelivery,
  outcome: Outcome,
  context: WorkContext,
  sources: DeliverySources,
): Promise<void> {
  const { id, attempts } = delivery;
  const recordAttempt = () =>
    client.query(RECORD_ATTEMPT, [
      id,
      attempts,
      outcome.statusCode,
      outcome.latencyMs,
      outcome.error,
      JSON.stringify(outcome.requestHeaders),
      outcome.responseBody,
      outcome.responseTruncated,
    ]);
  if (outcome.statusCode === 410) {
    const hooks = sources[delivery.source];
    const gone = { environment: delivery.environment, agencyId: delivery.agency_id, deliveryId: id };
    await hooks?.lockGone?.(client, delivery.subscription_id, gone);
    // This one fails (if its attempt is still the latest), the others are cancelled: one
    // statement, which waits for their rows in id order only. Every 410 of a backlog's attempts
    // in flight comes here at once: when each first locked its own delivery, then the others',
    // they deadlocked with each other.
    await client.query(
      `WITH ${lockedInOrder('locked', 'webhook_deliveries', "source = $1 AND subscription_id = $2 AND state = 'PENDING'")}
       UPDATE webhook_deliveries d
          SET state = CASE WHEN d.id = $3 THEN 'FAILED' ELSE 'CANCELLED' END, finished_at = now(), next_attempt_at = NULL, claimed_by = NULL
         FROM locked WHERE d.id = locked.id AND d.state = 'PENDING' AND (d.id <> $3 OR d.attempts = $4)`,
      [delivery.source, delivery.subscription_id, id, attempts],
    );
    if (hooks) await hooks.onGone(client, delivery.subscription_id, gone);
    else
      context.logger.warn(
        { source: delivery.source, subscriptionId: delivery.subscription_id },
        'receiver answered 410 but no delivery source hooks are registered',
      );
    await recordAttempt();
    return;
  }
  const delay = outcome.interrupted
    ? 0
    : retryDelaySeconds(context.config.webhookRetrySchedule, delivery.round_attempts - 1, outcome.retryAfterSeconds);
  if (delay === undefined) {
    await client.query(
      `UPDATE webhook_deliveries SET state = 'FAILED', finished_at = now(), next_attempt_at = NULL, claimed_by = NULL ${GUARD} AND state = 'PENDING'`,
      [id, attempts],
    );
    await recordAttempt();
    context.logger.warn({ deliveryId: id, source: delivery.source, attempts }, 'webhook delivery failed: retry schedule used up');
    return;
  }
  await client.query(
    `UPDATE webhook_deliveries SET next_attempt_at = ${LEASE_END.replace('$2', '$3')}, ready = ($3 = 0), round_attempts = round_attempts - $4,
                                   claimed_by = NULL
      ${GUARD} AND state = 'PENDING'`,
    [id, attempts, delay, outcome.interrupted ? 1 : 0],
  );
  await recordAttempt();
}

/** The stream of webhook delivery attempts, with the API modules' hooks. */
export function deliveryStream(options: DeliveryStreamOptions = {}): WorkStream<ClaimedDelivery> {
  const sources = options.sources ?? {};
  return {
    name: WEBHOOKS_STREAM,
    concurrency: (config: Config) => config.webhookConcurrency,
    async claim(context, limit, busy) {
      const { webhookShares } = context.config;
      const { rows } = await context.pool.query<ClaimedDelivery>({
        name: 'webhooks.claim',
        text: CLAIM,
        values: [
          context.workerId,
          context.leaseSeconds,
          limit,
          ...busyArrays(busy),
          webhookShares.perSubscription,
          webhookShares.perAgency,
          webhookShares.perHost,
          webhookShares.perAgencyHost,
        ],
      });
      return rows;
    },
    key: (delivery) => delivery.id,
    shares: (delivery) => delivery.shares,
    async run(delivery, context) {
      const outbound = sharedOutbound(context.config, {
        ...addressPolicy(context.config, delivery.environment),
        userAgent: WEBHOOK_USER_AGENT,
        ...options.timeouts,
      });
      const secret = sealerFor(context.config).unseal(delivery.secret, WEBHOOK_SECRET);
      const outcome = await call(outbound, delivery, secret, context.signal);
      if (outcome.error === null) await delivered(context.pool, context.logger, delivery, outcome);
      // A lock conflict is the database's, not the receiver's: the outcome is recorded again, not given up as interrupted.
      else
        await retryingConflicts(() => inTransaction(context.pool, (client) => failed(client, delivery, outcome, context, sources)), {
          onRetry: conflictLogged(context.logger, 'recording a webhook attempt'),
        });
    },
    async renew(context, ids) {
      // In id order, and never waiting: a delivery whose row is held (its outcome being
      // recorded, its subscription ending) is renewed at the next round if it still runs.
      await context.pool.query({
        name: 'webhooks.renew',
        text: `WITH ${lockedInOrder('locked', 'webhook_deliveries', "id = ANY($3::uuid[]) AND claimed_by = $1 AND state = 'PENDING'", { skipLocked: true })}
               UPDATE webhook_deliveries d SET next_attempt_at = ${LEASE_END} FROM locked WHERE d.id = locked.id`,
        values: [context.workerId, context.leaseSeconds, ids],
      });
    },
    async fail(context, delivery, _error, interrupted) {
      // The attempt stays open (no outcome recorded): the next claim marks it interrupted.
      await context.pool.query(
        `UPDATE webhook_deliveries SET next_attempt_at = ${LEASE_END}, ready = ($2 = 0), claimed_by = NULL
          WHERE id = $1 AND claimed_by = $3 AND attempts = $4 AND state = 'PENDING'`,
        [delivery.id, interrupted ? 0 : backoffSeconds(delivery.round_attempts), context.workerId, delivery.attempts],
      );
    },
    async nextDue(context) {
      const { rows } = await context.pool.query<{ at: Date | null }>({
        name: 'webhooks.next_due',
        text: "SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE state = 'PENDING' AND next_attempt_at > now()",
      });
      return rows[0]?.at ?? undefined;
    },
    backlog: {
      noun: 'webhook deliveries not yet delivered',
      waiting: 'webhook deliveries waiting to be sent',
      // One index range each (environment, agency, due time), counting no further than its limit;
      // a delivery held by a worker is due at its lease's end, one waiting for a retry at the
      // retry's time: neither is due now.
      async measure(pool, scope, limits) {
        const { rows } = await pool.query<{ count: number; waiting: number }>({
          name: 'webhooks.agency_backlog',
          text: `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM webhook_deliveries
                          WHERE state = 'PENDING' AND environment = $1 AND agency_id = $2 LIMIT $3) pending) AS count,
                        (SELECT count(*)::int FROM (SELECT 1 FROM webhook_deliveries
                          WHERE state = 'PENDING' AND environment = $1 AND agency_id = $2 AND next_attempt_at <= now() LIMIT $4) due) AS waiting`,
          values: [scope.environment, scope.agencyId, limits.count, limits.waiting],
        });
        return onlyRow(rows);
      },
    },
    async depth(pool) {
      const { rows } = await pool.query<QueueDepth>(
        `SELECT count(*) FILTER (WHERE next_attempt_at <= now()) AS ready,
                count(*) FILTER (WHERE next_attempt_at > now() AND claimed_by IS NULL) AS scheduled,
                count(*) FILTER (WHERE next_attempt_at > now() AND claimed_by IS NOT NULL) AS locked
           FROM webhook_deliveries WHERE state = 'PENDING'`,
      );
      return onlyRow(rows);
    },
  };
}
