/*
 * The work machinery on a real database: streams of items claimed in batches with a lease,
 * woken by NOTIFY, shared between workers, taken over when a worker stops renewing its leases,
 * given back on failure and at shutdown; the periodic tasks, run once for all workers; and the
 * platform's own tasks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { retentionTask as classifiedRetention } from '../../src/apis/classifieds/jobs.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { scheduleDelivery } from '../../src/platform/delivery/index.js';
import { createLogger } from '../../src/platform/log.js';
import type { ScheduledTask } from '../../src/platform/work/schedule.js';
import { backoffSeconds, type QueueDepth, type WorkContext, type WorkStream } from '../../src/platform/work/stream.js';
import { PLATFORM_TASKS } from '../../src/platform/tasks.js';
import { startWorker, type Worker } from '../../src/platform/work/worker.js';
import { ServersLoad } from '../../src/platform/work/requestsFirst.js';
import { TEST_SECRETS_KEY, createTestDatabase, makeClient, sealedWebhookSecret, waitFor, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;
let config: Config;
const logger = createLogger({ logLevel: 'silent' });

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 4);
  config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent',
    SECRETS_KEY: TEST_SECRETS_KEY,
    WORKER_CONCURRENCY: '4',
    WORKER_LEASE_SECONDS: '2',
  });
  await pool.query(`
    CREATE TABLE test_work (
      id integer PRIMARY KEY, stream text NOT NULL, due_at timestamptz NOT NULL DEFAULT now(), claimed_by uuid,
      attempts integer NOT NULL DEFAULT 0, last_error text);
    CREATE TABLE test_runs (seq bigserial PRIMARY KEY, stream text NOT NULL, id integer NOT NULL, worker uuid NOT NULL, attempt integer NOT NULL,
      ran_at timestamptz NOT NULL DEFAULT clock_timestamp());
    -- As immogate_notify_work does for a table of one stream: here for each stream a statement added to.
    CREATE FUNCTION test_notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('immogate_work', stream) FROM (SELECT DISTINCT stream FROM added) AS streams;
      RETURN NULL;
    END $$;
    CREATE TRIGGER test_work_queued AFTER INSERT ON test_work
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION test_notify_work()`);
});

after(async () => {
  await pool.end();
  await database.drop();
});

interface Item {
  id: number;
  attempts: number;
}

/**
 * A stream over test_work rows of its own name, claimed like the real streams. `handle` runs an
 * item; resolving records the run and removes the row, throwing leaves it to `fail`.
 */
function testStream(
  name: string,
  handle: (item: Item, context: WorkContext) => Promise<void> = async () => undefined,
  concurrency = 4,
): WorkStream<Item> {
  return {
    name,
    concurrency: () => concurrency,
    async claim(context, limit) {
      const { rows } = await context.pool.query<Item>(
        `WITH picked AS MATERIALIZED (
           SELECT id FROM test_work WHERE stream = $4 AND due_at <= now() ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
         UPDATE test_work t SET due_at = now() + make_interval(secs => $2), claimed_by = $1, attempts = t.attempts + 1
           FROM picked WHERE t.id = picked.id
         RETURNING t.id, t.attempts`,
        [context.workerId, context.leaseSeconds, limit, name],
      );
      return rows;
    },
    key: (item) => String(item.id),
    shares: () => [],
    async run(item, context) {
      await handle(item, context);
      await context.pool.query('INSERT INTO test_runs (stream, id, worker, attempt) VALUES ($1, $2, $3, $4)', [
        name,
        item.id,
        context.workerId,
        item.attempts,
      ]);
      await context.pool.query('DELETE FROM test_work WHERE id = $1 AND claimed_by = $2', [item.id, context.workerId]);
    },
    async renew(context, keys) {
      await context.pool.query(
        'UPDATE test_work SET due_at = now() + make_interval(secs => $2) WHERE id = ANY($3::int[]) AND claimed_by = $1',
        [context.workerId, context.leaseSeconds, keys.map(Number)],
      );
    },
    async fail(context, item, error, interrupted) {
      await context.pool.query(
        'UPDATE test_work SET due_at = now() + make_interval(secs => $3), claimed_by = NULL, last_error = $4 WHERE id = $1 AND claimed_by = $2',
        [
          item.id,
          context.workerId,
          interrupted ? 0 : backoffSeconds(item.attempts),
          interrupted ? 'interrupted' : (error as Error).message,
        ],
      );
    },
    async nextDue(context) {
      const { rows } = await context.pool.query<{ at: Date | null }>(
        'SELECT min(due_at) AS at FROM test_work WHERE stream = $1 AND due_at > now()',
        [name],
      );
      return rows[0]?.at ?? undefined;
    },
    async depth(): Promise<QueueDepth> {
      return { ready: 0, scheduled: 0, locked: 0 };
    },
  };
}

async function withWorker(
  streams: WorkStream<any>[],
  fn: (worker: Worker) => Promise<void>,
  options: { tasks?: ScheduledTask[]; config?: Config; serversLoad?: ServersLoad } = {},
): Promise<void> {
  const workerPool = createPool(database.url, 4);
  let worker: Worker | undefined;
  try {
    worker = await startWorker({
      pool: workerPool,
      databaseUrl: database.url,
      logger,
      config: options.config ?? config,
      streams,
      tasks: options.tasks ?? [],
      ...(options.serversLoad ? { serversLoad: options.serversLoad } : {}),
    });
    await fn(worker);
  } finally {
    await worker?.stop().catch(() => undefined);
    await workerPool.end();
  }
}

async function add(stream: string, ids: number[], dueInSeconds = 0): Promise<void> {
  await pool.query(
    'INSERT INTO test_work (id, stream, due_at) SELECT id, $2, now() + make_interval(secs => $3) FROM unnest($1::int[]) AS id',
    [ids, stream, dueInSeconds],
  );
}

async function runsOf(stream: string): Promise<{ id: number; worker: string; attempt: number }[]> {
  return (await pool.query('SELECT id, worker, attempt FROM test_runs WHERE stream = $1 ORDER BY seq', [stream])).rows;
}

async function left(stream: string): Promise<{ id: number; attempts: number; last_error: string | null; held: boolean }[]> {
  return (
    await pool.query('SELECT id, attempts, last_error, claimed_by IS NOT NULL AS held FROM test_work WHERE stream = $1 ORDER BY id', [
      stream,
    ])
  ).rows;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('a work stream', () => {
  it('runs each item once, committed by a process gone before any worker starts, up to its concurrency at a time', {
    timeout: 30_000,
  }, async () => {
    const stream = 'test:once';
    await add(
      stream,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    let running = 0;
    let most = 0;
    const handle = async () => {
      most = Math.max(most, ++running);
      await sleep(20);
      running--;
    };
    await withWorker([testStream(stream, handle, 3)], async () => {
      await waitFor(
        'every item to run',
        () => runsOf(stream),
        (runs) => runs.length === 20,
      );
    });
    assert.deepEqual(
      (await runsOf(stream)).map((run) => run.id).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal(most, 3);
    assert.deepEqual(await left(stream), []);
  });

  it('starts a stream that yields to requests at its pace while a server beside the worker is busy, the others as fast as before, and fills its slots once the servers calm down', {
    timeout: 60_000,
  }, async () => {
    const heavy = 'test:yields';
    const promised = 'test:promised';
    const ids = (from: number) => Array.from({ length: 20 }, (_, i) => from + i);
    await add(heavy, ids(301));
    await add(promised, ids(401));
    const load = new ServersLoad();
    const report = (utilisation: number) => load.heed({ type: 'immogate:load', utilisation, from: 1 });
    report(1);
    let reporting = setInterval(() => report(1), 100);
    const started: number[] = [];
    const begun = Date.now();
    try {
      await withWorker(
        [{ ...testStream(heavy, async () => void started.push(Date.now())), yieldsToRequests: true }, testStream(promised)],
        async () => {
          await waitFor(
            'every item of the stream that does not yield',
            () => runsOf(promised),
            (runs) => runs.length === 20,
          );
          await sleep(1_000);
          // One a second, after a first one: however slow the machine, never more than that.
          const seconds = (Date.now() - begun) / 1000;
          assert.ok(started.length <= 1 + Math.ceil(seconds), `${started.length} started in ${seconds} s at a pace of 1 a second`);
          assert.ok(started.length < 20, 'the pace held the stream back');
          for (const [index, at] of started.entries())
            assert.ok(at - begun >= (index - 1) * 1000 - 50, `item ${index + 1} started ${at - begun} ms in`);
          clearInterval(reporting);
          reporting = setInterval(() => report(0.1), 100);
          await waitFor(
            'the rest once the servers calmed down',
            () => runsOf(heavy),
            (runs) => runs.length === 20,
          );
        },
        { config: { ...config, workerPaceWhileServersBusy: 1 }, serversLoad: load },
      );
    } finally {
      clearInterval(reporting);
    }
    assert.deepEqual(await left(heavy), []);
  });

  it('is woken by the NOTIFY of a new item, well before its poll', { timeout: 30_000 }, async () => {
    const stream = 'test:notified';
    await withWorker([testStream(stream)], async () => {
      // The worker has looked once and found nothing; it sleeps up to 5 s unless told.
      await sleep(300);
      const { rows: before } = await pool.query<{ at: Date }>('SELECT clock_timestamp() AS at');
      await add(stream, [101]);
      await waitFor(
        'the item to run',
        () => runsOf(stream),
        (runs) => runs.length === 1,
      );
      // Timed by the database's clock, from before the insert to the run: the time this test
      // takes to see the run (its polls, on a busy machine) is not the worker's.
      const { rows: ran } = await pool.query<{ ms: number }>(
        'SELECT extract(epoch FROM ran_at - $2::timestamptz) * 1000 AS ms FROM test_runs WHERE stream = $1',
        [stream, before[0]?.at],
      );
      const ms = Number(ran[0]?.ms);
      assert.ok(ms < 1_000, `ran ${Math.round(ms)} ms after it was added`);
    });
  });

  it('runs an item at its due time, not before', { timeout: 30_000 }, async () => {
    const stream = 'test:later';
    await withWorker([testStream(stream)], async () => {
      await add(stream, [201], 1.5);
      const added = Date.now();
      // Told of it, the worker finds nothing due, and when the item will be: it sleeps until then.
      await waitFor(
        'the item to run',
        () => runsOf(stream),
        (runs) => runs.length === 1,
      );
      const waited = Date.now() - added;
      assert.ok(waited >= 1_400 && waited < 3_000, `ran after ${waited} ms`);
    });
  });

  it('shares the items between two workers, each run by one of them', { timeout: 30_000 }, async () => {
    const stream = 'test:shared';
    // An item ends only once both workers have started one (or after 10 s, twice the idle poll),
    // so under load the first worker cannot finish all 40 before the second claims its share.
    const starters = new Set<string>();
    const bothStarted = deferred();
    const slow = async (_item: Item, context: WorkContext) => {
      starters.add(context.workerId);
      if (starters.size === 2) bothStarted.resolve();
      await Promise.race([bothStarted.promise, sleep(10_000, undefined, { ref: false })]);
      await sleep(15);
    };
    await withWorker([testStream(stream, slow, 2)], (first) =>
      withWorker([testStream(stream, slow, 2)], async (second) => {
        await add(
          stream,
          Array.from({ length: 40 }, (_, i) => 300 + i),
        );
        await waitFor(
          'every item to run',
          () => runsOf(stream),
          (runs) => runs.length === 40,
        );
        const runs = await runsOf(stream);
        assert.equal(new Set(runs.map((run) => run.id)).size, 40);
        const workers = new Set(runs.map((run) => run.worker));
        assert.deepEqual([...workers].sort(), [first.workerId, second.workerId].sort());
      }),
    );
  });

  it('gives a failed item back with a backoff, then runs it again', { timeout: 30_000 }, async () => {
    const stream = 'test:failing';
    let calls = 0;
    const handle = async () => {
      if (++calls === 1) throw new Error('receiver unavailable');
    };
    await add(stream, [401]);
    await withWorker([testStream(stream, handle)], async () => {
      const [failed] = await waitFor(
        'the failure',
        () => left(stream),
        (rows) => rows[0]?.last_error !== null && rows[0]?.last_error !== undefined,
      );
      assert.deepEqual(failed, { id: 401, attempts: 1, last_error: 'receiver unavailable', held: false });
      const { rows } = await pool.query('SELECT due_at > now() AS backing_off FROM test_work WHERE id = 401');
      assert.deepEqual(rows, [{ backing_off: true }]);
      await waitFor(
        'the second run',
        () => runsOf(stream),
        (runs) => runs.length === 1,
      );
    });
    assert.deepEqual(
      (await runsOf(stream)).map((run) => [run.id, run.attempt]),
      [[401, 2]],
    );
  });

  it('renews the lease of a long item, so no other worker takes it', { timeout: 30_000 }, async () => {
    const stream = 'test:long';
    const release = deferred();
    const started = deferred();
    const long = async () => {
      started.resolve();
      await release.promise;
    };
    await add(stream, [501]);
    await withWorker([testStream(stream, long)], async () => {
      await started.promise;
      // Three leases of 2 s go by; a second worker finds nothing to take.
      await withWorker([testStream(stream, long)], async () => {
        await sleep(5_000);
        assert.deepEqual(
          (await left(stream)).map((row) => [row.id, row.attempts, row.held]),
          [[501, 1, true]],
        );
      });
      release.resolve();
      await waitFor(
        'the item to finish',
        () => runsOf(stream),
        (runs) => runs.length === 1,
      );
    });
  });

  it('takes over the items of a worker that stopped renewing (a crash) once their lease runs out', { timeout: 30_000 }, async () => {
    const stream = 'test:crashed';
    await add(stream, [601, 602]);
    // What a killed worker leaves: claimed, leased for 2 more seconds, never renewed.
    await pool.query(
      "UPDATE test_work SET claimed_by = gen_random_uuid(), attempts = 1, due_at = now() + interval '2 seconds' WHERE stream = $1",
      [stream],
    );
    const started = Date.now();
    await withWorker([testStream(stream)], async () => {
      await waitFor(
        'both items to run',
        () => runsOf(stream),
        (runs) => runs.length === 2,
      );
    });
    const waited = Date.now() - started;
    assert.ok(waited >= 1_500 && waited < 6_000, `taken over after ${waited} ms`);
    assert.deepEqual(
      (await runsOf(stream)).map((run) => run.attempt),
      [2, 2],
    );
  });

  it('lets running items finish when the worker stops, and gives back at once those still running after the grace period', {
    timeout: 30_000,
  }, async () => {
    const stream = 'test:stopping';
    const release = deferred();
    const started = deferred();
    let finishedAborted: boolean | undefined;
    const graceful = async (_item: Item, context: WorkContext) => {
      started.resolve();
      await release.promise;
      finishedAborted = context.signal.aborted;
    };
    await add(stream, [701]);
    await withWorker([testStream(stream, graceful)], async (worker) => {
      await started.promise;
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await sleep(300);
      assert.equal(stopped, false, 'stop() returned while an item was still running');
      release.resolve();
      await stopping;
    });
    assert.equal(finishedAborted, false);
    assert.deepEqual(
      (await runsOf(stream)).map((run) => run.id),
      [701],
    );

    const stuck = 'test:stuck';
    const impatient = loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      DATA_DIR: '/nonexistent',
      SECRETS_KEY: TEST_SECRETS_KEY,
      WORKER_LEASE_SECONDS: '60',
      SHUTDOWN_GRACE_SECONDS: '0',
    });
    const hanging = async (_item: Item, context: WorkContext) => {
      await new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    await add(stuck, [702]);
    await withWorker(
      [testStream(stuck, hanging)],
      async (worker) => {
        await waitFor(
          'the item to be claimed',
          () => left(stuck),
          (rows) => rows[0]?.held === true,
        );
        await worker.stop();
      },
      { config: impatient },
    );
    // Given back due now, not after its 60 s lease.
    const { rows } = await pool.query(
      'SELECT claimed_by IS NULL AS free, due_at <= now() AS due, last_error FROM test_work WHERE id = 702',
    );
    assert.deepEqual(rows, [{ free: true, due: true, last_error: 'interrupted' }]);
  });
});

describe('scheduled tasks', () => {
  it('run once for all workers at each due time, and record their failures', { timeout: 30_000 }, async () => {
    const runs: string[] = [];
    const counting: ScheduledTask = { name: 'test:counting', everySeconds: 3600, run: async (context) => void runs.push(context.workerId) };
    const failing: ScheduledTask = {
      name: 'test:failing-task',
      everySeconds: 3600,
      run: async () => {
        throw new Error('sweep failed');
      },
    };
    await withWorker(
      [],
      (first) =>
        withWorker(
          [],
          async (second) => {
            await waitFor(
              'both tasks to have run',
              async () =>
                (
                  await pool.query(
                    "SELECT count(*)::int AS n FROM scheduled_tasks WHERE name LIKE 'test:%' AND last_finished_at IS NOT NULL",
                  )
                ).rows[0].n,
              (n) => n === 2,
            );
            await sleep(300);
            assert.equal(runs.length, 1);
            assert.ok([first.workerId, second.workerId].includes(runs[0]!));
          },
          { tasks: [counting, failing] },
        ),
      { tasks: [counting, failing] },
    );
    const { rows } = await pool.query(
      "SELECT name, last_error, next_run_at > now() + interval '59 minutes' AS next_in_an_hour FROM scheduled_tasks WHERE name LIKE 'test:%' ORDER BY name",
    );
    assert.deepEqual(rows, [
      { name: 'test:counting', last_error: null, next_in_an_hour: true },
      { name: 'test:failing-task', last_error: 'sweep failed', next_in_an_hour: true },
    ]);
  });
});

function task(name: string): ScheduledTask {
  const found = PLATFORM_TASKS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
}

function context(overrides: Partial<Config> = {}): WorkContext {
  return {
    pool,
    logger,
    config: { ...config, ...overrides },
    workerId: '00000000-0000-4000-8000-000000000001',
    leaseSeconds: 10,
    signal: new AbortController().signal,
  };
}

describe('platform tasks', () => {
  it('platform:prune_rate_limits deletes windows that have ended and keeps open ones, however long', async () => {
    await pool.query(`
      WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
      INSERT INTO rate_limit_windows (key, window_start, window_end, hits)
      SELECT 'ended', ms - 120000, ms - 119800, 5 FROM now
      UNION ALL SELECT 'hour-long', ms - 120000, ms - 120000 + 3600000, 7 FROM now
      UNION ALL SELECT 'current', ms - ms % 200, ms - ms % 200 + 60000, 3 FROM now`);
    const prune = task('platform:prune_rate_limits');
    assert.equal(prune.everySeconds, 60);
    await prune.run(context());
    const { rows } = await pool.query('SELECT key, hits FROM rate_limit_windows ORDER BY key');
    assert.deepEqual(rows, [
      { key: 'current', hits: 3 },
      { key: 'hour-long', hits: 7 },
    ]);
  });

  it('platform:prune_token_issuance deletes issuance records over 90 days old and keeps the rest', async () => {
    const client = await makeClient(pool, ['agency-1'], ['caas:*']);
    await pool.query(
      `INSERT INTO token_issuance (jti, client_id, audience, intermediary_id, scope, issued_at)
       SELECT gen_random_uuid(), $1, 'http://127.0.0.1/caas/v4', 'agency-1', label, now() - age
         FROM (VALUES ('91 days', interval '91 days'), ('89 days', interval '89 days'), ('today', interval '0')) AS t (label, age)`,
      [client.clientId],
    );
    const prune = task('platform:prune_token_issuance');
    assert.equal(prune.everySeconds, 24 * 3600);
    await prune.run(context());
    const { rows } = await pool.query('SELECT scope FROM token_issuance WHERE client_id = $1 ORDER BY issued_at', [client.clientId]);
    assert.deepEqual(rows, [{ scope: '89 days' }, { scope: 'today' }]);
  });

  it('platform:delivery_retention removes finished deliveries and their attempts past DELIVERY_RETENTION_DAYS, in batches, never a pending one', async () => {
    const spec = {
      source: 'test',
      environment: 'sandbox',
      agencyId: 'agency-r',
      subscriptionId: 'sub-r',
      url: 'https://receiver.example/r',
      payload: {},
      secret: sealedWebhookSecret('k'),
    } as const;
    const ids: Record<string, string> = {};
    for (const name of ['old-delivered', 'old-failed', 'old-cancelled', 'old-pending', 'recent-delivered', 'redelivered-today', 'many']) {
      ids[name] = await scheduleDelivery(pool, spec);
    }
    // 2,500 more old delivered ones: more than two batches.
    await pool.query(
      `INSERT INTO webhook_deliveries (id, environment, agency_id, source, subscription_id, url, payload, secret, state, finished_at, created_at)
       SELECT gen_random_uuid(), 'sandbox', 'agency-r', 'test', 'sub-r', 'https://receiver.example/r', '{}', 'k', 'DELIVERED', now() - interval '40 days', now() - interval '40 days'
         FROM generate_series(1, 2500)`,
    );
    const finish = (name: string, state: string, daysAgo: number) =>
      pool.query(
        "UPDATE webhook_deliveries SET state = $2, next_attempt_at = NULL, finished_at = now() - make_interval(days => $3), created_at = now() - interval '60 days' WHERE id = $1",
        [ids[name], state, daysAgo],
      );
    await finish('old-delivered', 'DELIVERED', 31);
    await finish('old-failed', 'FAILED', 45);
    await finish('old-cancelled', 'CANCELLED', 31);
    await finish('recent-delivered', 'DELIVERED', 29);
    await finish('redelivered-today', 'DELIVERED', 0);
    await pool.query("UPDATE webhook_deliveries SET created_at = now() - interval '60 days' WHERE id = $1", [ids['old-pending']]);
    await pool.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, environment, agency_id, source, subscription_id, status_code, latency_ms)
       SELECT id, 1, environment, agency_id, source, subscription_id, 200, 3 FROM webhook_deliveries WHERE id = $1`,
      [ids['old-delivered']],
    );
    const retention = task('platform:delivery_retention');
    assert.equal(retention.everySeconds, 3600);
    await retention.run(context({ deliveryRetentionDays: 30 }));
    const { rows } = await pool.query("SELECT id FROM webhook_deliveries WHERE agency_id = 'agency-r'");
    assert.deepEqual(
      rows.map((row) => row.id).sort(),
      [ids['old-pending'], ids['recent-delivered'], ids['redelivered-today'], ids.many].sort(),
    );
    const attempts = await pool.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1', [ids['old-delivered']]);
    assert.deepEqual(attempts.rows, [{ n: 0 }]);
  });

  it('caas:deleted_classifieds_retention removes classifieds deleted past DELIVERY_RETENTION_DAYS, with their revisions, media, statuses and work rows', async () => {
    const insert = async (id: string, deletedDaysAgo: number | null) => {
      await pool.query(
        `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload, deleted_at)
         VALUES ($1::uuid, 'sandbox', 'agency-c', $1::text, 2, '{}', CASE WHEN $2::int IS NULL THEN NULL ELSE now() - make_interval(days => $2::int) END)`,
        [id, deletedDaysAgo],
      );
      await pool.query(
        `INSERT INTO classified_statuses (status_id, classified_id, environment, agency_id, revision, status, message, stage, portals)
         VALUES (gen_random_uuid(), $1, 'sandbox', 'agency-c', 2, 'DELETED', 'gone', 'accepted', '{SL}')`,
        [id],
      );
      await pool.query(
        `WITH revision AS (
           INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation) VALUES ($1, 2, 'sandbox', 'agency-c', 'DELETE')),
         media AS (
           INSERT INTO classified_media (classified_id, url, environment, agency_id, media_id)
           VALUES ($1, 'https://media.example/' || $1::text || '.jpg', 'sandbox', 'agency-c', gen_random_uuid()))
         INSERT INTO caas_processing_queue (classified_id, environment, agency_id) VALUES ($1, 'sandbox', 'agency-c')`,
        [id],
      );
    };
    const old = 'a0000000-0000-4000-8000-000000000001';
    const recent = 'a0000000-0000-4000-8000-000000000002';
    const live = 'a0000000-0000-4000-8000-000000000003';
    await insert(old, 31);
    await insert(recent, 29);
    await insert(live, null);
    assert.equal(classifiedRetention.everySeconds, 3600);
    await classifiedRetention.run(context({ deliveryRetentionDays: 30 }));
    const classifieds = await pool.query("SELECT id FROM classifieds WHERE agency_id = 'agency-c' ORDER BY id");
    assert.deepEqual(
      classifieds.rows.map((row) => row.id),
      [recent, live],
    );
    // What belongs to a classified goes with it (a trigger since the foreign keys went, migrations/024).
    for (const table of ['classified_revisions', 'classified_media', 'classified_statuses', 'caas_processing_queue']) {
      const rows = await pool.query(`SELECT classified_id FROM ${table} WHERE agency_id = 'agency-c' ORDER BY classified_id`);
      assert.deepEqual(
        rows.rows.map((row) => row.classified_id),
        [recent, live],
        table,
      );
    }
  });
});
