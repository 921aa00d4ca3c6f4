/*
 * The floor of classifieds processing (issue 36), in a process of its own: a minimal processor
 * doing per classified what immogate's worker does (services/processing.ts and the delivery
 * stream), with pg and undici directly and no framework around them: claim the classified, record
 * its checking status, download its media (the same client settings: undici Agent with connect 5 s,
 * headers 10 s, body 10 s, user-agent immogate-media/1.0, four at once), record the outcome status,
 * the media outcomes, the revision processed and the end of its work; and send every status
 * webhook scheduled for the agency (signed, with the same headers), recording the attempt and the
 * delivery as delivered. immogate's own modules are used only to build the same rows and requests
 * (the rules, the status and media statements, the webhook secret's unsealing, the signature).
 * It works with as many classifieds and webhooks at once as the worker may for one agency and one
 * subscription (WORKER_CONCURRENCY_PER_AGENCY, WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION), claims as
 * many as it has free slots in one statement, and commits the writes that are ready together
 * (group commit): a floor written the plain way (one claim and one transaction per classified) ran
 * at 58% of immogate's worker, a bar too low to judge it by. It handles publishable POSTs only
 * (what the scenario posts), and says 'finished' over IPC once the agency has nothing left to
 * process or send.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Agent, request } from 'undici';
import type { Classified } from '../src/apis/classifieds/model/classified.js';
import { OUTCOMES, type NewStatus, type Operation } from '../src/apis/classifieds/model/statuses.js';
import {
  finishWork,
  lockClassifieds,
  markProcessed,
  recordMedia,
  recordStatusesStatement,
  type KnownMedia,
  type MediaOutcome,
} from '../src/apis/classifieds/repository.js';
import type { Statement } from '../src/platform/db/pool.js';
import { applyRules } from '../src/apis/classifieds/rules.js';
import { mediaStatuses, planMedia, type MediaItem } from '../src/apis/classifieds/services/media.js';
import { acceptedStatus, type StatusOf } from '../src/apis/classifieds/services/processing.js';
import { loadConfig } from '../src/config.js';
import { WEBHOOK_USER_AGENT } from '../src/platform/delivery/deliveryStream.js';
import { signatureHeaders } from '../src/platform/delivery/signing.js';
import { sealerFor } from '../src/platform/secrets/sealer.js';
import { WEBHOOK_SECRET } from '../src/platform/secrets/stored.js';

const config = loadConfig(process.env);
const agency = process.env.FLOOR_AGENCY!;
const environment = 'production';
const workerId = randomUUID();
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });
const sealer = sealerFor(config);
let stopping = false;

async function inTransaction(statements: readonly Statement[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const { name, text, values } of statements)
      await client.query({ ...(name ? { name } : {}), text, values: values ? [...values] : [] });
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Writes submitted while a flush runs wait for the next one, which takes them all (64 at most), as
 * immogate's Batcher does; two flushes at once.
 */
function groupCommit<T>(flush: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  const waiting: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  const next = (): void => {
    if (inFlight >= 2 || waiting.length === 0) return;
    const group = waiting.splice(0, 64);
    inFlight++;
    flush(group.map((entry) => entry.item))
      .then(
        () => {
          for (const entry of group) entry.resolve();
        },
        (error: unknown) => {
          for (const entry of group) entry.reject(error);
        },
      )
      .finally(() => {
        inFlight--;
        next();
      });
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      next();
    });
}

/** What processing writes about one classified at one moment: its statuses, and with its outcome the rest. */
interface Write {
  classifiedId: string;
  revision: number;
  statuses: NewStatus[];
  fetched?: MediaOutcome[];
  done?: boolean;
}

const commit = groupCommit<Write>((writes) => {
  const ids = writes.map((write) => write.classifiedId);
  const done = writes.filter((write) => write.done);
  const fetched = done.flatMap((write) =>
    (write.fetched ?? []).map((outcome) => ({ ...outcome, classifiedId: write.classifiedId, revision: write.revision })),
  );
  return inTransaction([
    lockClassifieds([...new Set(ids)]),
    recordStatusesStatement(writes.flatMap((write) => write.statuses)),
    ...(fetched.length > 0 ? [recordMedia(fetched)] : []),
    ...(done.length > 0
      ? [
          markProcessed(
            done.map((write) => write.classifiedId),
            done.map((write) => write.revision),
          ),
          finishWork(
            done.map((write) => write.classifiedId),
            done.map(() => workerId),
          ),
        ]
      : []),
  ]);
});

interface Claimed {
  classified_id: string;
  revision: number;
  operation: Operation;
  received_at: string;
  payload: Classified;
  media: KnownMedia[];
}

const CLAIM = `
  WITH picked AS (
    SELECT classified_id FROM caas_processing_queue
     WHERE environment = $2 AND agency_id = $3 AND claimed_by IS NULL AND due_at <= now()
     ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE caas_processing_queue q SET claimed_by = $1, attempts = q.attempts + 1, due_at = now() + interval '5 minutes'
      FROM picked WHERE q.classified_id = picked.classified_id RETURNING q.classified_id)
  SELECT c.classified_id, r.revision, r.operation, to_json(r.received_at) #>> '{}' AS received_at,
         coalesce(r.payload, cl.payload) AS payload,
         coalesce((SELECT json_agg(m) FROM (SELECT url, fetch_status, fetch_error, fetched_revision
                                              FROM classified_media WHERE classified_id = c.classified_id) m), '[]') AS media
    FROM claimed c JOIN classifieds cl ON cl.id = c.classified_id
    JOIN classified_revisions r ON r.classified_id = c.classified_id AND r.processed_at IS NULL`;

async function download(item: MediaItem): Promise<MediaOutcome> {
  try {
    const response = await request(item.url, { dispatcher: agent, method: 'GET', headers: { 'user-agent': 'immogate-media/1.0' } });
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) size += chunk.length;
    const header = response.headers['content-type'];
    const contentType = (Array.isArray(header) ? header[0] : header)?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (response.statusCode < 200 || response.statusCode > 299)
      return {
        url: item.url,
        status: 'DOWNLOADING_FAILED',
        contentType: null,
        sizeBytes: null,
        error: `the server answered ${response.statusCode}`,
      };
    if (!contentType.startsWith('image/'))
      return {
        url: item.url,
        status: 'CREATING_FAILED',
        contentType,
        sizeBytes: size,
        error: `content type "${contentType}" does not fit`,
      };
    return { url: item.url, status: 'CREATED', contentType, sizeBytes: size, error: null };
  } catch (error) {
    return { url: item.url, status: 'DOWNLOADING_FAILED', contentType: null, sizeBytes: null, error: String(error) };
  }
}

/** Four downloads at once, as the worker does; outcomes in the order of `items`. */
async function downloadAll(items: readonly MediaItem[]): Promise<MediaOutcome[]> {
  const results = new Array<MediaOutcome>(items.length);
  const queue = items.entries();
  const lane = async () => {
    for (const [index, item] of queue) results[index] = await download(item);
  };
  await Promise.all(Array.from({ length: Math.min(4, items.length) }, lane));
  return results;
}

async function processOne(claimed: Claimed): Promise<void> {
  const classified = claimed.payload;
  const words = OUTCOMES[claimed.operation];
  const statusOf: StatusOf = (fields) => ({
    classifiedId: claimed.classified_id,
    environment,
    agencyId: agency,
    revision: claimed.revision,
    receivedAt: claimed.received_at,
    ...fields,
  });
  const rules = applyRules(classified);
  if (claimed.operation === 'DELETE' || rules.rejected.length > 0 || rules.technical.length > 0)
    throw new Error(`the floor processes publishable POSTs and PUTs only; ${claimed.classified_id} is not one`);
  const step = statusOf({ status: words.step, message: `Revision ${claimed.revision} is being checked`, portals: classified.portals });
  const plan = planMedia(classified.media ?? [], claimed.media);
  await commit({ classifiedId: claimed.classified_id, revision: claimed.revision, statuses: [step] });
  const fetched = await downloadAll(plan.toFetch);
  for (const result of fetched) {
    const row = claimed.media.find((known) => known.url === result.url);
    if (row) Object.assign(row, { fetch_status: result.status, fetch_error: result.error, fetched_revision: claimed.revision });
  }
  const done = acceptedStatus(statusOf, claimed.operation, rules.accepted, mediaStatuses(plan.wanted, claimed.media, claimed.revision));
  await commit({ classifiedId: claimed.classified_id, revision: claimed.revision, statuses: [done], fetched, done: true });
}

const CLAIM_DELIVERY = `
  WITH picked AS (
    SELECT id FROM webhook_deliveries
     WHERE state = 'PENDING' AND ready AND claimed_by IS NULL AND environment = $2 AND agency_id = $3
     ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, round_attempts = d.round_attempts + 1, next_attempt_at = now() + interval '5 minutes', claimed_by = $1
      FROM picked WHERE d.id = picked.id
    RETURNING d.id, coalesce(d.event_id, d.id) AS webhook_id, d.environment, d.agency_id, d.source, d.subscription_id, d.url,
              d.payload, d.secret, d.secret_header, d.headers, d.attempts),
  started AS (
    INSERT INTO webhook_attempts (delivery_id, attempt, environment, agency_id, source, subscription_id, attempted_at)
    SELECT id, attempts, environment, agency_id, source, subscription_id, clock_timestamp() FROM claimed)
  SELECT * FROM claimed`;

const DELIVERED = `
  WITH o AS (SELECT * FROM jsonb_to_recordset($1::jsonb)
               AS o (id uuid, attempt integer, status_code integer, latency_ms integer, request_headers jsonb, response_body text)),
  recorded AS (
    UPDATE webhook_attempts a SET status_code = o.status_code, latency_ms = o.latency_ms, error = NULL, request_headers = o.request_headers,
                                  response_body = o.response_body, response_truncated = false
      FROM o WHERE a.delivery_id = ANY ($2::uuid[]) AND a.delivery_id = o.id AND a.attempt = o.attempt)
  UPDATE webhook_deliveries d SET state = 'DELIVERED', delivered_at = now(), finished_at = now(), next_attempt_at = NULL, claimed_by = NULL
    FROM o WHERE d.id = ANY ($2::uuid[]) AND d.id = o.id AND d.attempts = o.attempt`;

interface Delivered {
  id: string;
  attempt: number;
  status_code: number;
  latency_ms: number;
  request_headers: Record<string, string>;
  response_body: string;
}

const recordDelivered = groupCommit<Delivered>(async (outcomes) => {
  await pool.query({ name: 'floor.delivered', text: DELIVERED, values: [JSON.stringify(outcomes), outcomes.map((o) => o.id)] });
});

interface Delivery {
  id: string;
  webhook_id: string;
  url: string;
  payload: unknown;
  secret: string;
  secret_header: string | null;
  headers: Record<string, string>;
  attempts: number;
}

async function deliverOne(delivery: Delivery): Promise<void> {
  const secret = sealer.unseal(delivery.secret, WEBHOOK_SECRET);
  const body = JSON.stringify(delivery.payload);
  const headers = {
    ...delivery.headers,
    ...(delivery.secret_header === null ? {} : { [delivery.secret_header]: secret }),
    'content-type': 'application/json',
    ...signatureHeaders(secret, delivery.webhook_id, body, Math.floor(Date.now() / 1000)),
  };
  const started = performance.now();
  const response = await request(delivery.url, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'user-agent': WEBHOOK_USER_AGENT, ...headers },
    body,
  });
  const answer = (await response.body.text()).slice(0, 4096);
  if (response.statusCode < 200 || response.statusCode > 299) throw new Error(`the receiver answered ${response.statusCode}`);
  await recordDelivered({
    id: delivery.id,
    attempt: delivery.attempts,
    status_code: response.statusCode,
    latency_ms: Math.round(performance.now() - started),
    request_headers: { ...headers, 'user-agent': WEBHOOK_USER_AGENT },
    response_body: answer,
  });
}

/**
 * Keeps up to `slots` items worked at once: claims as many as are free in one statement, and
 * claims again when one finishes (or, with nothing to claim, 10 ms later), until told to stop.
 */
async function stream<T>(slots: number, claim: (limit: number) => Promise<T[]>, work: (item: T) => Promise<void>): Promise<number> {
  let busy = 0;
  let done = 0;
  let failure: unknown;
  let wake: () => void = () => undefined;
  const running = new Set<Promise<void>>();
  while (!stopping && failure === undefined) {
    const items = busy < slots ? await claim(slots - busy) : [];
    for (const item of items) {
      busy++;
      const one: Promise<void> = work(item).then(
        () => {
          done++;
        },
        (error: unknown) => {
          failure ??= error;
        },
      );
      running.add(one);
      void one.finally(() => {
        busy--;
        running.delete(one);
        wake();
      });
    }
    if (busy < slots && items.length === 0) await sleep(10);
    else if (busy >= slots) await new Promise<void>((resolve) => (wake = resolve));
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure;
  return done;
}

const claimClassifieds = async (limit: number) =>
  (await pool.query<Claimed>({ name: 'floor.claim', text: CLAIM, values: [workerId, environment, agency, limit] })).rows;
const claimDeliveries = async (limit: number) =>
  (await pool.query<Delivery>({ name: 'floor.claim_delivery', text: CLAIM_DELIVERY, values: [workerId, environment, agency, limit] })).rows;
const streams = Promise.all([
  stream(config.workerConcurrencyPerAgency, claimClassifieds, processOne),
  stream(config.webhookShares.perSubscription, claimDeliveries, deliverOne),
]);

/** Nothing left for the agency: no classified waiting or held, no webhook pending. */
async function idle(): Promise<boolean> {
  const { rows } = await pool.query<{ queued: number; pending: number }>(
    `SELECT (SELECT count(*)::int FROM caas_processing_queue WHERE environment = $1 AND agency_id = $2) AS queued,
            (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'PENDING' AND environment = $1 AND agency_id = $2) AS pending`,
    [environment, agency],
  );
  return rows[0]!.queued === 0 && rows[0]!.pending === 0;
}

process.send!({ address: 'floor' });
// A failed write or delivery ends the floor at once, rather than leaving it waiting for work it will not do.
streams.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
while (!(await idle())) await sleep(100);
stopping = true;
const [processed, delivered] = await streams;
process.send!({ processed, delivered });
process.on('message', (message) => {
  if (message === 'stop') void Promise.all([pool.end(), agent.close()]).then(() => process.exit(0));
});
