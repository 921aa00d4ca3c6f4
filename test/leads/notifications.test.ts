/*
 * New-lead notifications through real HTTP: POST /leads, then a real receiver on loopback gets the
 * lead, signed with the subscription's apiKey (verified with the standardwebhooks package) and
 * carrying it in X-Api-Key. Failures are retried and audited; a hanging receiver times out; 410
 * disables the subscription; the operator's redelivery brings failed notifications through.
 *
 * The server runs without a worker: the test runs its own with the Lead API's delivery hooks (the
 * module's real onGone) and a short response timeout, so a hanging receiver costs 0.3 s, not 10.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { leadsApi } from '../../src/apis/leads/index.js';
import { redeliverLeadNotifications } from '../../src/apis/leads/services/notifications.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { deliveryStream } from '../../src/platform/delivery/index.js';
import { startWorker, type Worker } from '../../src/platform/work/worker.js';
import { createLogger } from '../../src/platform/log.js';
import {
  createTestDatabase,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type TestClient,
  type TestDatabase,
  type TestServer,
  cachedTokens,
} from '../helpers.js';
import { Receiver, type Received } from '../fixtures/receiver.js';
import type { Audit, AuditEvent, Subscription } from '../../src/apis/leads/model/subscription.js';

type Body = Record<string, any>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEADERS_TIMEOUT_MS = 300;

let receiver: Receiver;

// ---- server, worker, callers ----

let database: TestDatabase;
let server: TestServer;
let client: TestClient;
let workerPool: Pool;
let runner: Worker;

before(async () => {
  receiver = await Receiver.start();

  database = await createTestDatabase();
  server = await startTestServer(database, {
    env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.4,0.8', WORKER_CONCURRENCY: '4' },
  });
  client = await makeClient(
    server.pool,
    ['agency-1', 'agency-2', 'agency-flaky', 'agency-slow', 'agency-gone', 'agency-keys', 'agency-redeliver'],
    ['leads:*'],
  );
  workerPool = createPool(database.url, 4);
  runner = await startWorker({
    pool: workerPool,
    databaseUrl: database.url,
    logger: createLogger({ logLevel: 'silent' }),
    config: server.config,
    streams: [deliveryStream({ sources: leadsApi.deliverySources, timeouts: { headersTimeoutMs: HEADERS_TIMEOUT_MS } })],
    tasks: [],
  });
});

after(async () => {
  await runner?.stop();
  await workerPool?.end();
  await server?.close();
  await database?.drop();
  await receiver.close();
});

/** A token per agency and environment: each is also a caller of its own for the rate limit. */
const tokenFor = cachedTokens('/seeker-leads/v1', () => ({ server, client }));

async function call(method: string, path: string, agency: string, body?: unknown, environment: 'production' | 'sandbox' = 'production') {
  const root = environment === 'sandbox' ? '/sandbox/seeker-leads/v1' : '/seeker-leads/v1';
  return http(method, `${server.base}${root}${path}`, {
    headers: { authorization: `Bearer ${await tokenFor(agency, environment)}` },
    body,
  });
}

async function subscribe(
  agency: string,
  url: string,
  apiKey: string,
  status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE',
  environment: 'production' | 'sandbox' = 'production',
): Promise<Subscription> {
  const result = await call('POST', '/webhook/subscriptions', agency, { url, apiKey, status }, environment);
  assert.equal(result.status, 201, result.text);
  return result.body as Subscription;
}

let leads = 0;

/** POST /leads; answers the lead as GET /leads/{leadId} shows it (the notification must carry the same). */
async function submitLead(agency: string): Promise<Body> {
  const result = await call('POST', '/leads', agency, {
    firstName: 'Ada',
    lastName: `Lovelace-${++leads}`,
    email: `ada${leads}@example.org`,
    phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78' }],
    message: 'Is the flat still available?',
    classifiedId: '12ABCDEFGHJK',
    submittedDate: '2025-03-01T10:00:00Z',
  });
  assert.equal(result.status, 200, result.text);
  const { requestId } = result.body as { requestId: string };
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM leads WHERE request_id = $1', [requestId]);
  const read = await call('GET', `/leads/${rows[0]!.id}`, agency);
  assert.equal(read.status, 200, read.text);
  return read.body as Body;
}

/** The Standard Webhooks check a receiver makes with the apiKey as its raw key: returns the payload or throws. */
function verify(request: Received, apiKey: string): unknown {
  return new Webhook(apiKey, { format: 'raw' }).verify(request.body, {
    'webhook-id': request.headers['webhook-id'] as string,
    'webhook-timestamp': request.headers['webhook-timestamp'] as string,
    'webhook-signature': request.headers['webhook-signature'] as string,
  });
}

async function audit(agency: string, subscriptionId: string, query = ''): Promise<Audit> {
  const result = await call('GET', `/webhook/subscriptions/${subscriptionId}/audit${query}`, agency);
  assert.equal(result.status, 200, result.text);
  return result.body as Audit;
}

/** Waits until the audit holds `count` finished attempts (an attempt's row exists before its outcome). */
function auditWith(agency: string, subscriptionId: string, count: number, query = ''): Promise<Audit> {
  return waitFor(
    `${count} recorded attempts of ${subscriptionId}`,
    () => audit(agency, subscriptionId, query),
    (body) => body.recentEvents.length >= count && body.recentEvents.every((event) => event.latencyMs !== null),
  );
}

/**
 * The expected audit events, newest first: what a test knows of each attempt, with the time and
 * latency taken from `actual` once their form is checked (and the times in order).
 */
function events(
  actual: AuditEvent[],
  deliveryId: string,
  leadId: string,
  expected: { attempt: number; statusCode: number | null; error: string | null }[],
) {
  actual.forEach((event, i) => {
    assert.match(event.timestamp, ISO);
    assert.ok(Number.isInteger(event.latencyMs) && (event.latencyMs as number) >= 0);
    if (i > 0) assert.ok(event.timestamp <= actual[i - 1]!.timestamp, 'most recent first');
  });
  return expected.map((e, i) => ({ timestamp: actual[i]?.timestamp, deliveryId, leadId, latencyMs: actual[i]?.latencyMs, ...e }));
}

async function deliveryState(id: string): Promise<string | undefined> {
  const { rows } = await server.pool.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = $1', [id]);
  return rows[0]?.state;
}

async function deliveriesOf(leadId: string): Promise<{ id: string; subscription_id: string; state: string }[]> {
  const { rows } = await server.pool.query(
    `SELECT id, subscription_id, state FROM webhook_deliveries WHERE source = 'leads' AND payload #>> '{metadata,leadId}' = $1 ORDER BY subscription_id`,
    [leadId],
  );
  return rows;
}

/** Submits a lead to the agency's one subscription and waits until its delivery reaches `state`. */
async function leadDelivered(agency: string, state: 'DELIVERED' | 'FAILED'): Promise<{ lead: Body; leadId: string; deliveryId: string }> {
  const lead = await submitLead(agency);
  const leadId = lead.metadata.leadId as string;
  const [delivery] = await deliveriesOf(leadId);
  await waitFor(
    `the delivery to be ${state}`,
    () => deliveryState(delivery!.id),
    (found) => found === state,
  );
  return { lead, leadId, deliveryId: delivery!.id };
}

describe('new-lead notifications', () => {
  it('go to every ACTIVE subscription of the agency, signed with its apiKey (standardwebhooks verifies) and carrying it in X-Api-Key', async () => {
    const first = await subscribe('agency-1', receiver.script('/a1'), 'first-api-key-0123456789');
    const second = await subscribe('agency-1', receiver.script('/a2'), 'second-api-key-0123456789');
    const inactive = await subscribe('agency-1', receiver.script('/a3'), 'third-api-key-0123456789', 'INACTIVE');
    const otherAgency = await subscribe('agency-2', receiver.script('/b1'), 'agency-two-key-0123456789');
    const otherEnvironment = await subscribe('agency-1', receiver.script('/s1'), 'sandbox-api-key-0123456789', 'ACTIVE', 'sandbox');

    const lead = await submitLead('agency-1');
    const leadId = lead.metadata.leadId as string;
    // Scheduled with the lead, in its transaction: exactly the two ACTIVE subscriptions of the agency.
    const deliveries = await deliveriesOf(leadId);
    assert.deepEqual(deliveries.map((d) => d.subscription_id).sort(), [first.subscriptionId, second.subscriptionId].sort());
    await waitFor(
      'both notifications',
      async () => receiver.requestsTo('/a1').length + receiver.requestsTo('/a2').length,
      (n) => n === 2,
    );

    for (const [path, subscription, apiKey] of [
      ['/a1', first, 'first-api-key-0123456789'],
      ['/a2', second, 'second-api-key-0123456789'],
    ] as const) {
      const [request] = receiver.requestsTo(path);
      assert.equal(request!.headers['x-api-key'], apiKey);
      assert.equal(request!.headers['content-type'], 'application/json');
      assert.deepEqual(verify(request!, apiKey), lead);
      assert.throws(() => verify(request!, 'not-the-api-key-0123456789'), { name: 'WebhookVerificationError' });
      const deliveryId = deliveries.find((d) => d.subscription_id === subscription.subscriptionId)!.id;
      // The webhook-id is the lead.received event's id, the lead's: the same for every subscription.
      assert.equal(request!.headers['webhook-id'], leadId);

      const body = await auditWith('agency-1', subscription.subscriptionId, 1);
      assert.match(body.lastSuccessTimestamp ?? '', ISO);
      assert.deepEqual(body, {
        ...subscription,
        lastSuccessTimestamp: body.lastSuccessTimestamp,
        recentEvents: events(body.recentEvents, deliveryId, leadId, [{ attempt: 1, statusCode: 200, error: null }]),
      });
      assert.ok(body.lastSuccessTimestamp! >= body.recentEvents[0]!.timestamp);
    }
    // The standardwebhooks default form of the key (base64 of its bytes) verifies too.
    const [request] = receiver.requestsTo('/a1');
    assert.deepEqual(
      new Webhook(Buffer.from('first-api-key-0123456789').toString('base64')).verify(request!.body, {
        'webhook-id': request!.headers['webhook-id'] as string,
        'webhook-timestamp': request!.headers['webhook-timestamp'] as string,
        'webhook-signature': request!.headers['webhook-signature'] as string,
      }),
      lead,
    );

    assert.deepEqual([receiver.requestsTo('/a3'), receiver.requestsTo('/b1'), receiver.requestsTo('/s1')], [[], [], []]);
    for (const [agency, subscription, environment] of [
      ['agency-1', inactive, 'production'],
      ['agency-2', otherAgency, 'production'],
      ['agency-1', otherEnvironment, 'sandbox'],
    ] as const) {
      const result = await call('GET', `/webhook/subscriptions/${subscription.subscriptionId}/audit`, agency, undefined, environment);
      assert.equal(result.status, 200);
      assert.deepEqual(result.body, { ...subscription, lastSuccessTimestamp: null, recentEvents: [] });
    }
  });

  it('reach a receiver down for its first two attempts once it is back; every attempt is audited, most recent first', {
    timeout: 60_000,
  }, async () => {
    const subscription = await subscribe('agency-flaky', receiver.script('/flaky', 503, 'drop'), 'flaky-api-key-0123456789');
    const { lead, leadId, deliveryId } = await leadDelivered('agency-flaky', 'DELIVERED');

    const requests = receiver.requestsTo('/flaky');
    assert.equal(requests.length, 3);
    for (const request of requests) {
      assert.equal(request.headers['webhook-id'], leadId);
      assert.deepEqual(verify(request, 'flaky-api-key-0123456789'), lead);
    }
    const body = await auditWith('agency-flaky', subscription.subscriptionId, 3);
    assert.match(body.lastSuccessTimestamp ?? '', ISO);
    assert.deepEqual(body, {
      ...subscription,
      lastSuccessTimestamp: body.lastSuccessTimestamp,
      recentEvents: events(body.recentEvents, deliveryId, leadId, [
        { attempt: 3, statusCode: 200, error: null },
        { attempt: 2, statusCode: null, error: `connection to ${receiver.host} closed before a complete response` },
        { attempt: 1, statusCode: 503, error: 'receiver answered HTTP 503' },
      ]),
    });

    // limit bounds the events: the most recent ones.
    const limited = await audit('agency-flaky', subscription.subscriptionId, '?limit=2');
    assert.deepEqual(limited, { ...body, recentEvents: body.recentEvents.slice(0, 2) });
  });

  it('time out on a receiver that hangs, record it and retry', { timeout: 60_000 }, async () => {
    const subscription = await subscribe('agency-slow', receiver.script('/slow', 'hang'), 'slow-api-key-0123456789');
    const { lead, leadId, deliveryId } = await leadDelivered('agency-slow', 'DELIVERED');

    const requests = receiver.requestsTo('/slow');
    assert.equal(requests.length, 2);
    for (const request of requests) assert.deepEqual(verify(request, 'slow-api-key-0123456789'), lead);
    const body = await auditWith('agency-slow', subscription.subscriptionId, 2);
    assert.deepEqual(body, {
      ...subscription,
      lastSuccessTimestamp: body.lastSuccessTimestamp,
      recentEvents: events(body.recentEvents, deliveryId, leadId, [
        { attempt: 2, statusCode: 200, error: null },
        { attempt: 1, statusCode: null, error: `no response from ${receiver.host} within ${HEADERS_TIMEOUT_MS / 1000} s` },
      ]),
    });
  });

  it('stop at 410 Gone, which disables the subscription: INACTIVE, and the next leads are not sent to it', {
    timeout: 60_000,
  }, async () => {
    const subscription = await subscribe('agency-gone', receiver.script('/gone', 410), 'gone-api-key-0123456789');
    const { leadId, deliveryId } = await leadDelivered('agency-gone', 'FAILED');

    const body = await waitFor(
      'the subscription to be disabled',
      () => audit('agency-gone', subscription.subscriptionId),
      (a) => a.status === 'INACTIVE' && a.recentEvents.length === 1 && a.recentEvents[0]!.latencyMs !== null,
    );
    assert.match(body.updatedAt, ISO);
    assert.ok(body.updatedAt > subscription.updatedAt);
    assert.deepEqual(body, {
      ...subscription,
      status: 'INACTIVE',
      updatedAt: body.updatedAt,
      lastSuccessTimestamp: null,
      recentEvents: events(body.recentEvents, deliveryId, leadId, [
        { attempt: 1, statusCode: 410, error: 'receiver answered HTTP 410 Gone: the subscription is reported gone, no more attempts' },
      ]),
    });

    const next = await submitLead('agency-gone');
    assert.deepEqual(await deliveriesOf(next.metadata.leadId as string), []);
    assert.equal(receiver.requestsTo('/gone').length, 1);
  });
});

describe('subscription changes and pending notifications', () => {
  it('PUT status INACTIVE cancels the notifications waiting for a retry; DELETE does too', { timeout: 60_000 }, async () => {
    const later = { status: 503, headers: { 'retry-after': '3600' } };
    const paused = await subscribe('agency-keys', receiver.script('/paused', later), 'paused-api-key-0123456789');
    const removed = await subscribe('agency-keys', receiver.script('/removed', later), 'removed-api-key-0123456789');
    const lead = await submitLead('agency-keys');
    const deliveries = await deliveriesOf(lead.metadata.leadId as string);
    assert.equal(deliveries.length, 2);
    // Each first attempt recorded; the retry now waits an hour (the receiver's Retry-After).
    await auditWith('agency-keys', paused.subscriptionId, 1);
    await auditWith('agency-keys', removed.subscriptionId, 1);
    const idOf = (s: Subscription) => deliveries.find((d) => d.subscription_id === s.subscriptionId)!.id;
    assert.deepEqual([await deliveryState(idOf(paused)), await deliveryState(idOf(removed))], ['PENDING', 'PENDING']);

    assert.equal((await call('PUT', `/webhook/subscriptions/${paused.subscriptionId}`, 'agency-keys', { status: 'INACTIVE' })).status, 200);
    assert.equal((await call('DELETE', `/webhook/subscriptions/${removed.subscriptionId}`, 'agency-keys')).status, 200);
    assert.deepEqual([await deliveryState(idOf(paused)), await deliveryState(idOf(removed))], ['CANCELLED', 'CANCELLED']);
  });

  it('a new apiKey re-signs the undelivered notifications: a redelivery is signed and sent with the new key', {
    timeout: 60_000,
  }, async () => {
    const subscription = await subscribe('agency-keys', receiver.script('/rotate', 500, 500, 500, 500), 'old-api-key-0123456789');
    const lead = await submitLead('agency-keys');
    const [delivery] = await deliveriesOf(lead.metadata.leadId as string);
    await waitFor(
      'the retries to be used up',
      () => deliveryState(delivery!.id),
      (state) => state === 'FAILED',
    );
    assert.equal(receiver.requestsTo('/rotate').length, 4);

    const put = await call('PUT', `/webhook/subscriptions/${subscription.subscriptionId}`, 'agency-keys', {
      apiKey: 'new-api-key-9876543210',
    });
    assert.equal(put.status, 200);
    assert.deepEqual(await redeliverLeadNotifications(server.pool, { deliveryId: delivery!.id }), {
      redelivered: [delivery!.id],
      skipped: [],
      webhookIds: { [delivery!.id]: lead.metadata.leadId },
    });
    await waitFor(
      'the redelivery',
      () => deliveryState(delivery!.id),
      (state) => state === 'DELIVERED',
    );

    const last = receiver.requestsTo('/rotate').at(-1)!;
    assert.equal(receiver.requestsTo('/rotate').length, 5);
    assert.equal(last.headers['x-api-key'], 'new-api-key-9876543210');
    assert.equal(last.headers['webhook-id'], lead.metadata.leadId);
    assert.deepEqual(verify(last, 'new-api-key-9876543210'), lead);
    assert.throws(() => verify(last, 'old-api-key-0123456789'), { name: 'WebhookVerificationError' });
  });
});

describe('redeliverLeadNotifications (immogate leads redeliver)', () => {
  it('brings the FAILED notifications since a time through once the receiver is back; skips subscriptions turned off', {
    timeout: 60_000,
  }, async () => {
    const since = new Date();
    const back = await subscribe('agency-redeliver', receiver.script('/back', 500, 500, 500, 500), 'back-api-key-0123456789');
    const off = await subscribe('agency-redeliver', receiver.script('/off', 500, 500, 500, 500), 'off-api-key-0123456789');
    const lead = await submitLead('agency-redeliver');
    const leadId = lead.metadata.leadId as string;
    const deliveries = await deliveriesOf(leadId);
    const idOf = (s: Subscription) => deliveries.find((d) => d.subscription_id === s.subscriptionId)!.id;
    for (const d of deliveries)
      await waitFor(
        'the retries to be used up',
        () => deliveryState(d.id),
        (state) => state === 'FAILED',
      );
    assert.equal(
      (await call('PUT', `/webhook/subscriptions/${off.subscriptionId}`, 'agency-redeliver', { status: 'INACTIVE' })).status,
      200,
    );
    const failedAudit = await auditWith('agency-redeliver', back.subscriptionId, 4);
    assert.equal(failedAudit.lastSuccessTimestamp, null);

    // Nothing failed since now; another agency's failures are not this call's.
    assert.deepEqual(await redeliverLeadNotifications(server.pool, { since: new Date(Date.now() + 60_000) }), {
      redelivered: [],
      skipped: [],
      webhookIds: {},
    });
    assert.deepEqual(await redeliverLeadNotifications(server.pool, { since, agencyId: 'agency-redeliver', environment: 'sandbox' }), {
      redelivered: [],
      skipped: [],
      webhookIds: {},
    });

    const result = await redeliverLeadNotifications(server.pool, { since, agencyId: 'agency-redeliver', environment: 'production' });
    assert.deepEqual(result, {
      redelivered: [idOf(back)],
      skipped: [{ deliveryId: idOf(off), reason: 'its subscription is INACTIVE' }],
      webhookIds: { [idOf(back)]: leadId, [idOf(off)]: leadId },
    });
    await waitFor(
      'the redelivery',
      () => deliveryState(idOf(back)),
      (state) => state === 'DELIVERED',
    );
    assert.equal(await deliveryState(idOf(off)), 'FAILED');
    assert.equal(receiver.requestsTo('/off').length, 4);
    assert.equal(receiver.requestsTo('/back').length, 5);
    assert.deepEqual(verify(receiver.requestsTo('/back').at(-1)!, 'back-api-key-0123456789'), lead);

    const body = await auditWith('agency-redeliver', back.subscriptionId, 5);
    assert.match(body.lastSuccessTimestamp ?? '', ISO);
    assert.deepEqual(body, {
      ...back,
      lastSuccessTimestamp: body.lastSuccessTimestamp,
      recentEvents: events(body.recentEvents, idOf(back), leadId, [
        { attempt: 5, statusCode: 200, error: null },
        ...[4, 3, 2, 1].map((attempt) => ({ attempt, statusCode: 500, error: 'receiver answered HTTP 500' })),
      ]),
    });

    // By id: a deleted subscription's notification and an unknown id are reported, not sent.
    assert.equal((await call('DELETE', `/webhook/subscriptions/${off.subscriptionId}`, 'agency-redeliver')).status, 200);
    assert.deepEqual(await redeliverLeadNotifications(server.pool, { deliveryId: idOf(off) }), {
      redelivered: [],
      skipped: [{ deliveryId: idOf(off), reason: 'its subscription was deleted' }],
      webhookIds: { [idOf(off)]: leadId },
    });
    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual(await redeliverLeadNotifications(server.pool, { deliveryId: unknown }), {
      redelivered: [],
      skipped: [{ deliveryId: unknown, reason: 'no lead notification has this id' }],
      webhookIds: {},
    });
  });
});
