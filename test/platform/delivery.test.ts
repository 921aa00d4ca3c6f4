/*
 * Webhook deliveries: scheduled in the write's transaction, signed attempts, retries, 410 Gone,
 * failure and redelivery, leases, shutdowns and crashes mid-attempt.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type Config } from '../../src/config.js';
import { createPool, inTransaction, type Pool } from '../../src/platform/db/pool.js';
import { withTenant } from '../../src/platform/db/tenant.js';
import {
  cancelDeliveries,
  deliveryStream,
  lastSuccess,
  recentAttempts,
  redeliver,
  retargetDeliveries,
  scheduleDelivery,
  type DeliverySpec,
  type DeliveryStreamOptions,
  type GoneContext,
} from '../../src/platform/delivery/index.js';
import type { WorkStream } from '../../src/platform/work/stream.js';
import { startWorker, type Worker } from '../../src/platform/work/worker.js';
import { createLogger } from '../../src/platform/log.js';
import { TEST_SECRETS_KEY, createTestDatabase, sealedWebhookSecret, waitFor, type TestDatabase } from '../helpers.js';
import { type Answer, Receiver, type Received } from '../fixtures/receiver.js';

let database: TestDatabase;
let pool: Pool;
let config: Config;
const logger = createLogger({ logLevel: 'silent' });
const SECRET = 'lead-api-key-0123456789abcdef';

const settings = {
  DATA_DIR: '/nonexistent',
  SECRETS_KEY: TEST_SECRETS_KEY,
  LOG_LEVEL: 'silent',
  WORKER_CONCURRENCY: '4',
  ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.4,0.8',
};

let receiver: Receiver;

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 4);
  config = loadConfig({ DATABASE_URL: database.url, ...settings });
  // Answers with a body, as receivers do: the audit keeps what came back.
  receiver = await Receiver.start({ body: (status) => (status < 300 ? '{"ok":true}' : '{"error":"not now"}') });
});

after(async () => {
  await receiver.close();
  await pool.end();
  await database.drop();
});

// ---- workers and waiting ----

/** Hooks registered by the test, as an API module registers its own. */
const gone: { subscriptionId: string; context: GoneContext; status: string }[] = [];
const testSources = {
  test: {
    scope: 'test:webhooks',
    async onGone(client: pg.PoolClient, subscriptionId: string, context: GoneContext) {
      // Runs in the attempt's transaction: the delivery is already FAILED there.
      const { rows } = await client.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = $1', [context.deliveryId]);
      gone.push({ subscriptionId, context, status: rows[0]?.state ?? 'missing' });
    },
  },
};

/** The delivery stream around the test's source hooks and, if given, shorter receiver timeouts. */
function streamsWith(options: DeliveryStreamOptions): WorkStream<any>[] {
  return [deliveryStream(options)];
}

const STREAMS = streamsWith({});

async function withWorker(
  streams: readonly WorkStream<any>[],
  fn: (worker: Worker) => Promise<void>,
  workerConfig = config,
): Promise<void> {
  const workerPool = createPool(database.url, 4);
  let worker: Worker | undefined;
  try {
    worker = await startWorker({ pool: workerPool, databaseUrl: database.url, logger, config: workerConfig, streams, tasks: [] });
    await fn(worker);
  } finally {
    await worker?.stop().catch(() => undefined);
    await workerPool.end();
  }
}

interface DeliveryRow {
  state: string;
  attempts: number;
  delivered: boolean;
}

async function delivery(id: string): Promise<DeliveryRow> {
  const { rows } = await pool.query<DeliveryRow>(
    'SELECT state, attempts, delivered_at IS NOT NULL AS delivered FROM webhook_deliveries WHERE id = $1',
    [id],
  );
  return rows[0] as DeliveryRow;
}

function settled(id: string, state: string): Promise<DeliveryRow> {
  return waitFor(
    `delivery ${id} to be ${state}`,
    () => delivery(id),
    (row) => row?.state === state,
  );
}

interface AttemptRow {
  attempt: number;
  status_code: number | null;
  error: string | null;
  finished: boolean;
}

async function attempts(id: string): Promise<AttemptRow[]> {
  const { rows } = await pool.query<AttemptRow>(
    'SELECT attempt, status_code, error, latency_ms IS NOT NULL AS finished FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
    [id],
  );
  return rows;
}

/** Whether the delivery waits in the queue, due now and held by no worker. */
async function dueNow(id: string): Promise<boolean> {
  const { rows } = await pool.query<{ due: boolean }>(
    "SELECT state = 'PENDING' AND next_attempt_at <= now() AND claimed_by IS NULL AS due FROM webhook_deliveries WHERE id = $1",
    [id],
  );
  return rows[0]?.due === true;
}

/**
 * What a worker that died during its call leaves behind: the delivery claimed by it (leased for
 * `leaseSeconds` more, negative for a lease run out) and its first attempt open, never finished.
 */
async function leftByDeadWorker(id: string, leaseSeconds: number): Promise<void> {
  await pool.query(
    `UPDATE webhook_deliveries SET attempts = 1, round_attempts = 1, next_attempt_at = now() + make_interval(secs => $2), claimed_by = gen_random_uuid()
      WHERE id = $1`,
    [id, leaseSeconds],
  );
  await pool.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt, environment, agency_id, source, subscription_id)
     SELECT id, 1, environment, agency_id, source, subscription_id FROM webhook_deliveries WHERE id = $1`,
    [id],
  );
}

let counter = 0;
function spec(url: string, overrides: Partial<DeliverySpec> = {}): DeliverySpec {
  counter++;
  return {
    source: 'test',
    environment: 'sandbox',
    agencyId: 'agency-1',
    subscriptionId: `sub-${counter}`,
    url,
    payload: {
      leadId: `lead-${counter}`,
      contactRequest: { email: 'seeker@example.com', message: 'Is it still available? Ça m’intéresse.' },
    },
    secret: sealedWebhookSecret(SECRET),
    secretHeader: 'X-Api-Key',
    ...overrides,
  };
}

function schedule(s: DeliverySpec): Promise<string> {
  return inTransaction(pool, (client) => scheduleDelivery(client, s));
}

/** Checks one received request against the Standard Webhooks verifier and returns its webhook-id. */
function verified(request: Received, payload: unknown, secret = SECRET): string {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
  assert.deepEqual(new Webhook(secret, { format: 'raw' }).verify(request.body, headers), payload);
  return headers['webhook-id'] as string;
}

// ---- tests ----

describe('scheduling', () => {
  it('adds the delivery, due at once, with the caller’s transaction, under withTenant too: a rollback leaves nothing', async () => {
    const tenant = { environment: 'sandbox', agencyId: 'agency-1' } as const;
    let rolledBack = '';
    await assert.rejects(
      withTenant(pool, tenant, async (client) => {
        rolledBack = await scheduleDelivery(client, spec(receiver.script('/never')));
        assert.equal((await client.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', [rolledBack])).rows[0].n, 1);
        throw new Error('the lead write failed');
      }),
      { message: 'the lead write failed' },
    );
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', [rolledBack])).rows[0].n, 0);

    const committed = await withTenant(pool, tenant, (client) => scheduleDelivery(client, spec(receiver.script('/never'))));
    assert.deepEqual(await delivery(committed), { state: 'PENDING', attempts: 0, delivered: false });
    assert.equal(await dueNow(committed), true);
    await pool.query("UPDATE webhook_deliveries SET state = 'CANCELLED' WHERE id = $1", [committed]);
  });

  it('keeps the signing secret and headers out of the request role’s reach, and other tenants’ rows out of sight', async () => {
    const own = { environment: 'sandbox', agencyId: 'agency-1' } as const;
    const id = await withTenant(pool, own, (client) =>
      scheduleDelivery(client, spec(receiver.script('/never'), { subscriptionId: 'sub-private' })),
    );
    await pool.query("UPDATE webhook_deliveries SET state = 'CANCELLED' WHERE id = $1", [id]);
    await assert.rejects(
      withTenant(pool, own, (client) => client.query('SELECT secret FROM webhook_deliveries WHERE id = $1', [id])),
      { message: 'permission denied for table webhook_deliveries' },
    );
    await assert.rejects(
      withTenant(pool, own, (client) => client.query('SELECT headers FROM webhook_deliveries')),
      { message: 'permission denied for table webhook_deliveries' },
    );
    const visible = (tenant: { environment: 'sandbox' | 'production'; agencyId: string }) =>
      withTenant(pool, tenant, async (client) => (await client.query('SELECT id, state FROM webhook_deliveries WHERE id = $1', [id])).rows);
    assert.deepEqual(await visible(own), [{ id, state: 'CANCELLED' }]);
    assert.deepEqual(await visible({ environment: 'sandbox', agencyId: 'agency-2' }), []);
    assert.deepEqual(await visible({ environment: 'production', agencyId: 'agency-1' }), []);
    // Scheduling for another tenant from inside a tenant transaction is refused by the database.
    await assert.rejects(
      withTenant(pool, own, (client) => scheduleDelivery(client, spec(receiver.script('/never'), { agencyId: 'agency-2' }))),
      { message: 'new row violates row-level security policy for table "webhook_deliveries"' },
    );
  });

  it('refuses headers that delivery sets itself and an empty secret', async () => {
    await assert.rejects(schedule(spec(receiver.script('/never'), { headers: { 'Webhook-Signature': 'v1,forged' } })), {
      name: 'TypeError',
      message: 'delivery header Webhook-Signature is set by the delivery itself',
    });
    await assert.rejects(schedule(spec(receiver.script('/never'), { secret: '' })), {
      name: 'TypeError',
      message: 'a delivery needs a sealed signing secret',
    });
    await assert.rejects(schedule(spec(receiver.script('/never'), { secret: SECRET })), {
      name: 'TypeError',
      message: 'a delivery needs a sealed signing secret',
    });
  });
});

describe('delivery', () => {
  it('POSTs the JSON payload signed with Standard Webhooks headers the standardwebhooks package verifies, with X-Api-Key', {
    timeout: 30_000,
  }, async () => {
    const s = spec(receiver.script('/hooks/lead'));
    const id = await schedule(s);
    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    const [request, ...more] = receiver.requestsTo('/hooks/lead');
    assert.equal(more.length, 0);
    assert.ok(request);
    assert.equal(verified(request, s.payload), id);
    assert.deepEqual(JSON.parse(request.body), s.payload);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-api-key'], SECRET);
    assert.equal(request.headers['user-agent'], 'immogate-webhooks/1');
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    // Another key, or another body, does not verify.
    assert.throws(() => verified(request, s.payload, 'another-key'), { name: 'WebhookVerificationError' });
    assert.throws(() => verified({ ...request, body: request.body.replace('seeker', 'intruder') }, s.payload), {
      name: 'WebhookVerificationError',
    });

    assert.deepEqual(await delivery(id), { state: 'DELIVERED', attempts: 1, delivered: true });
    assert.deepEqual(await attempts(id), [{ attempt: 1, status_code: 200, error: null, finished: true }]);
  });

  it('retries a receiver that fails twice, then delivers: each attempt recorded, the webhook-id the same', {
    timeout: 30_000,
  }, async () => {
    const s = spec(receiver.script('/flaky', 503, 500));
    const id = await schedule(s);
    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    const requests = receiver.requestsTo('/flaky');
    assert.deepEqual(
      requests.map((r) => verified(r, s.payload)),
      [id, id, id],
    );
    assert.deepEqual(await attempts(id), [
      { attempt: 1, status_code: 503, error: 'receiver answered HTTP 503', finished: true },
      { attempt: 2, status_code: 500, error: 'receiver answered HTTP 500', finished: true },
      { attempt: 3, status_code: 200, error: null, finished: true },
    ]);
    assert.deepEqual(await delivery(id), { state: 'DELIVERED', attempts: 3, delivered: true });

    // The audit reads (as the lead API will, under withTenant): newest first, bounded, last success.
    const tenant = { environment: 'sandbox', agencyId: 'agency-1' } as const;
    const audit = await withTenant(pool, tenant, async (client) => ({
      recent: await recentAttempts(client, { source: 'test', subscriptionId: s.subscriptionId, limit: 2 }),
      last: await lastSuccess(client, { source: 'test', subscriptionId: s.subscriptionId }),
    }));
    assert.deepEqual(
      audit.recent.map(({ deliveryId, attempt, statusCode, error }) => ({ deliveryId, attempt, statusCode, error })),
      [
        { deliveryId: id, attempt: 3, statusCode: 200, error: null },
        { deliveryId: id, attempt: 2, statusCode: 500, error: 'receiver answered HTTP 500' },
      ],
    );
    assert.ok(audit.recent.every((a) => a.attemptedAt instanceof Date && typeof a.latencyMs === 'number'));
    const { rows } = await pool.query<{ delivered_at: Date }>('SELECT delivered_at FROM webhook_deliveries WHERE id = $1', [id]);
    assert.deepEqual(audit.last, rows[0]?.delivered_at);
    // Another agency sees none of it.
    const other = await withTenant(pool, { environment: 'sandbox', agencyId: 'agency-2' }, (client) =>
      recentAttempts(client, { source: 'test', subscriptionId: s.subscriptionId, limit: 10 }),
    );
    assert.deepEqual(other, []);
  });

  it('waits at least as long as the receiver’s Retry-After asks', { timeout: 30_000 }, async () => {
    const s = spec(receiver.script('/busy', { status: 429, headers: { 'retry-after': '2' } }));
    const id = await schedule(s);
    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.attempt, a.status_code]),
      [
        [1, 429],
        [2, 200],
      ],
    );
    // The schedule alone would retry after 0.2-0.25 s.
    const { rows } = await pool.query<{ gap: number }>(
      `SELECT extract(epoch FROM max(attempted_at) - min(attempted_at))::float8 AS gap FROM webhook_attempts WHERE delivery_id = $1`,
      [id],
    );
    assert.ok((rows[0]?.gap ?? 0) >= 2, `second attempt came after ${rows[0]?.gap} s`);
  });

  it('times out on a receiver that hangs, and retries', { timeout: 30_000 }, async () => {
    const s = spec(receiver.script('/slow', 'hang'));
    const id = await schedule(s);
    await withWorker(streamsWith({ sources: testSources, timeouts: { headersTimeoutMs: 300 } }), async () => {
      await settled(id, 'DELIVERED');
    });
    assert.deepEqual(await attempts(id), [
      { attempt: 1, status_code: null, error: `no response from ${new URL(receiver.base).host} within 0.3 s`, finished: true },
      { attempt: 2, status_code: 200, error: null, finished: true },
    ]);
    assert.deepEqual(
      receiver.requestsTo('/slow').map((r) => verified(r, s.payload)),
      [id, id],
    );
  });

  it('stops at 410 Gone: no retry, the source’s onGone hook called, the subscription’s other pending deliveries cancelled', {
    timeout: 30_000,
  }, async () => {
    const url = receiver.script('/gone', 410);
    const first = await schedule(spec(url, { subscriptionId: 'sub-gone' }));
    const later = await schedule(spec(url, { subscriptionId: 'sub-gone' }));
    const elsewhere = await schedule(spec(receiver.script('/gone-other', 503, 503, 503, 503), { subscriptionId: 'sub-unrelated' }));
    // `later` waits for a retry an hour away, as if an earlier attempt had failed.
    await pool.query("UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1", [later]);
    await withWorker(streamsWith({ sources: testSources }), async () => {
      await settled(first, 'FAILED');
      await settled(elsewhere, 'FAILED');
    });
    assert.deepEqual(await attempts(first), [
      {
        attempt: 1,
        status_code: 410,
        error: 'receiver answered HTTP 410 Gone: the subscription is reported gone, no more attempts',
        finished: true,
      },
    ]);
    assert.deepEqual(gone, [
      { subscriptionId: 'sub-gone', context: { environment: 'sandbox', agencyId: 'agency-1', deliveryId: first }, status: 'FAILED' },
    ]);
    assert.deepEqual(await delivery(later), { state: 'CANCELLED', attempts: 0, delivered: false });
    assert.equal(receiver.requestsTo('/gone').length, 1);
    // Another subscription's delivery went through its whole schedule: 1 + 3 retries.
    assert.equal((await attempts(elsewhere)).length, 4);
  });

  it('ends FAILED after the last retry; redeliver() brings failed deliveries through once the receiver is back, same webhook-id', {
    timeout: 60_000,
  }, async () => {
    const since = new Date();
    const path = '/down';
    receiver.script(path, ...Array<Answer>(8).fill(503));
    const mine = spec(`${receiver.base}${path}`);
    const a = await schedule(mine);
    const b = await schedule(spec(`${receiver.base}${path}`, { agencyId: 'agency-2' }));
    await withWorker(STREAMS, async () => {
      await settled(a, 'FAILED');
      await settled(b, 'FAILED');
    });
    assert.deepEqual(
      (await attempts(a)).map((x) => [x.attempt, x.status_code, x.error]),
      [1, 2, 3, 4].map((n) => [n, 503, 'receiver answered HTTP 503']),
    );

    // The receiver is back. Redeliver agency-1's failures by time, then agency-2's delivery by id.
    assert.deepEqual(receiver.pending(path), []);
    assert.deepEqual(await redeliver(pool, { source: 'test', environment: 'sandbox', agencyId: 'agency-1', since }), [a]);
    assert.deepEqual(await redeliver(pool, { source: 'test', environment: 'production', since }), []);
    assert.deepEqual(await redeliver(pool, { deliveryId: b }), [b]);
    assert.deepEqual(await redeliver(pool, { deliveryId: '00000000-0000-4000-8000-000000000000' }), []);
    await withWorker(STREAMS, async () => {
      await settled(a, 'DELIVERED');
      await settled(b, 'DELIVERED');
    });
    assert.deepEqual(
      (await attempts(a)).map((x) => [x.attempt, x.status_code]),
      [
        [1, 503],
        [2, 503],
        [3, 503],
        [4, 503],
        [5, 200],
      ],
    );
    const ids = receiver
      .requestsTo(path)
      .filter((r) => r.headers['x-api-key'] === SECRET && JSON.parse(r.body).leadId === (mine.payload as { leadId: string }).leadId);
    assert.deepEqual(
      ids.map((r) => verified(r, mine.payload)),
      [a, a, a, a, a],
    );
  });

  it('cancelDeliveries() stops a subscription’s pending deliveries; retargetDeliveries() re-aims them with a new key', {
    timeout: 30_000,
  }, async () => {
    const since = new Date();
    const cancelled = await schedule(spec(receiver.script('/cancelled'), { subscriptionId: 'sub-removed' }));
    const moved = spec(receiver.script('/old-url'), { subscriptionId: 'sub-rotated' });
    const movedId = await schedule(moved);
    const newKey = 'rotated-key-9876543210';
    // As the API modules call them: in a request's transaction, under withTenant.
    await withTenant(pool, { environment: 'sandbox', agencyId: 'agency-1' }, async (client) => {
      assert.equal(await cancelDeliveries(client, { source: 'test', subscriptionId: 'sub-removed' }), 1);
      assert.equal(
        await retargetDeliveries(
          client,
          { source: 'test', subscriptionId: 'sub-rotated' },
          { url: receiver.script('/new-url'), secret: sealedWebhookSecret(newKey) },
        ),
        1,
      );
    });
    await withWorker(STREAMS, async () => {
      await settled(movedId, 'DELIVERED');
    });
    assert.deepEqual(await delivery(cancelled), { state: 'CANCELLED', attempts: 0, delivered: false });
    assert.deepEqual([receiver.requestsTo('/cancelled'), receiver.requestsTo('/old-url')], [[], []]);
    const [request] = receiver.requestsTo('/new-url');
    assert.ok(request);
    assert.equal(verified(request, moved.payload, newKey), movedId);
    assert.equal(request.headers['x-api-key'], newKey);
    // redeliver() by time leaves cancelled deliveries alone.
    assert.deepEqual(await redeliver(pool, { source: 'test', agencyId: 'agency-1', since }), []);
  });

  it('applies the address policy: without ALLOW_PRIVATE_TARGETS a loopback receiver is refused, each attempt saying why', {
    timeout: 30_000,
  }, async () => {
    const id = await schedule(spec(receiver.script('/private')));
    const strict = loadConfig({ DATABASE_URL: database.url, ...settings, ALLOW_PRIVATE_TARGETS: 'false' });
    await withWorker(
      STREAMS,
      async () => {
        await settled(id, 'FAILED');
      },
      strict,
    );
    const refusal =
      'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true';
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.status_code, a.error]),
      [1, 2, 3, 4].map(() => [null, refusal]),
    );
    assert.deepEqual(receiver.requestsTo('/private'), []);
  });

  it('lets a worker shut down during a hanging attempt: the attempt is recorded as interrupted and the next worker delivers', {
    timeout: 30_000,
  }, async () => {
    const s = spec(receiver.script('/stuck', 'hang'));
    const id = await schedule(s);
    // No grace: stop() aborts running attempts at once. The receiver timeouts (10 s) are not what ends the call.
    const impatient = loadConfig({ DATABASE_URL: database.url, ...settings, SHUTDOWN_GRACE_SECONDS: '0' });
    await withWorker(
      STREAMS,
      async (worker) => {
        await waitFor(
          'the receiver to be called',
          async () => receiver.requestsTo('/stuck').length,
          (n) => n === 1,
        );
        await worker.stop();
      },
      impatient,
    );
    assert.deepEqual(await attempts(id), [
      { attempt: 1, status_code: null, error: 'interrupted: the worker shut down during the attempt', finished: true },
    ]);
    assert.deepEqual(await delivery(id), { state: 'PENDING', attempts: 1, delivered: false });
    // Given back for the next worker at once, not after a lease.
    assert.equal(await dueNow(id), true);

    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.attempt, a.status_code]),
      [
        [1, null],
        [2, 200],
      ],
    );
    assert.deepEqual(
      receiver.requestsTo('/stuck').map((r) => verified(r, s.payload)),
      [id, id],
    );
  });

  it('after a crash mid-attempt, marks the unfinished attempt interrupted and sends again', { timeout: 30_000 }, async () => {
    const s = spec(receiver.script('/crash'));
    const id = await schedule(s);
    // Its lease has run out already: nobody renews it, so the next claim takes it.
    await leftByDeadWorker(id, -1);
    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    assert.deepEqual(await attempts(id), [
      {
        attempt: 1,
        status_code: null,
        error: 'interrupted: no outcome was recorded (the worker stopped, or could not write it)',
        finished: false,
      },
      { attempt: 2, status_code: 200, error: null, finished: true },
    ]);
    assert.equal(verified(receiver.requestsTo('/crash')[0] as Received, s.payload), id);
  });

  it('when recording an outcome fails, keeps the attempt open, gives the delivery back and sends again', { timeout: 30_000 }, async () => {
    // A source whose subscription store fails once: the 410's transaction rolls back, the run throws.
    const calls: string[] = [];
    const fragile = {
      fragile: {
        scope: 'test:webhooks',
        async onGone(_client: pg.PoolClient, subscriptionId: string) {
          calls.push(subscriptionId);
          if (calls.length === 1) throw new Error('subscription store unavailable');
        },
      },
    };
    const s = spec(receiver.script('/gone-again', 410, 410), { source: 'fragile', subscriptionId: 'sub-fragile' });
    const id = await schedule(s);
    await withWorker(streamsWith({ sources: fragile }), async () => {
      await waitFor(
        'the first outcome to fail',
        async () => calls.length,
        (n) => n >= 1,
      );
      await settled(id, 'FAILED');
    });
    assert.deepEqual(await attempts(id), [
      {
        attempt: 1,
        status_code: null,
        error: 'interrupted: no outcome was recorded (the worker stopped, or could not write it)',
        finished: false,
      },
      {
        attempt: 2,
        status_code: 410,
        error: 'receiver answered HTTP 410 Gone: the subscription is reported gone, no more attempts',
        finished: true,
      },
    ]);
    assert.deepEqual(calls, ['sub-fragile', 'sub-fragile']);
    assert.deepEqual(
      receiver.requestsTo('/gone-again').map((r) => verified(r, s.payload)),
      [id, id],
    );
  });

  it('lets another worker take over a delivery whose worker stopped renewing its lease', { timeout: 30_000 }, async () => {
    const s = spec(receiver.script('/taken-over'));
    const id = await schedule(s);
    await leftByDeadWorker(id, 2);
    const started = Date.now();
    await withWorker(STREAMS, async () => {
      await settled(id, 'DELIVERED');
    });
    // Not before the lease ran out, and soon after.
    const waited = Date.now() - started;
    assert.ok(waited >= 1_500 && waited < 8_000, `delivered after ${waited} ms`);
    assert.deepEqual(
      (await attempts(id)).map((a) => [a.attempt, a.status_code, a.error]),
      [
        [1, null, 'interrupted: no outcome was recorded (the worker stopped, or could not write it)'],
        [2, 200, null],
      ],
    );
  });
});
