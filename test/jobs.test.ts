import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runner } from 'graphile-worker';
import { loadConfig, type Config } from '../src/config.js';
import { createPool, inTransaction, type Pool } from '../src/platform/db/pool.js';
import { withTenant } from '../src/platform/db/tenant.js';
import { enqueue } from '../src/platform/jobs/queue.js';
import { JOBS, type JobContext, type JobDefinition } from '../src/platform/jobs/registry.js';
import { startWorker } from '../src/platform/jobs/worker.js';
import { createLogger } from '../src/platform/log.js';
import { createTestDatabase, makeClient, waitFor, type TestDatabase } from './helpers.js';

let database: TestDatabase;
let pool: Pool;
let config: Config;
const logger = createLogger({ logLevel: 'silent' });

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 4);
  config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent', WORKER_CONCURRENCY: '4' });
  await pool.query(`CREATE TABLE job_runs (
    seq bigserial PRIMARY KEY, task text NOT NULL, payload jsonb NOT NULL, attempt integer NOT NULL)`);
});

after(async () => {
  await pool.end();
  await database.drop();
});

interface JobRow {
  id: number;
  queue_name: string | null;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  key: string | null;
  payload: unknown;
}

/** The queued jobs of one task as graphile-worker stores them (completed jobs are deleted). */
async function jobRows(task: string): Promise<JobRow[]> {
  const { rows } = await pool.query<JobRow>(
    `SELECT j.id, j.queue_name, j.attempts, j.max_attempts, j.last_error, j.key, p.payload
       FROM graphile_worker.jobs j JOIN graphile_worker._private_jobs p USING (id)
      WHERE j.task_identifier = $1 ORDER BY j.id`,
    [task],
  );
  return rows;
}

async function runs(task: string): Promise<{ payload: unknown; attempt: number }[]> {
  return (await pool.query('SELECT payload, attempt FROM job_runs WHERE task = $1 ORDER BY seq', [task])).rows;
}


/** A job type of the test's own: records each run (payload and attempt) in job_runs. */
function recordingJob(name: string, before?: (payload: unknown, context: JobContext) => Promise<void>): JobDefinition {
  return {
    name,
    async handler(payload, context) {
      await before?.(payload, context);
      await context.pool.query('INSERT INTO job_runs (task, payload, attempt) VALUES ($1, $2, $3)', [name, JSON.stringify(payload), context.attempt]);
    },
  };
}

/** A worker process of its own: its own pool, stopped and closed by `fn`'s end whatever happens. */
async function withWorker(jobs: readonly JobDefinition[], fn: (runner: Runner) => Promise<void>): Promise<void> {
  const workerPool = createPool(database.url, config.workerConcurrency + 2);
  let runner: Runner | undefined;
  try {
    runner = await startWorker({ pool: workerPool, logger, config, jobs });
    await fn(runner);
  } finally {
    await runner?.stop().catch(() => undefined);
    await workerPool.end();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('enqueue', () => {
  it('adds the job with the transaction: a rollback leaves none, a commit leaves one', async () => {
    const task = 'test:transactional';
    await assert.rejects(
      inTransaction(pool, async (client) => {
        await enqueue(client, { task, payload: { n: 1 } });
        // Inside the transaction the job exists...
        const { rows } = await client.query('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = $1', [task]);
        assert.deepEqual(rows, [{ n: 1 }]);
        throw new Error('the write failed');
      }),
      { message: 'the write failed' },
    );
    // ...and goes with it.
    assert.deepEqual(await jobRows(task), []);

    const id = await inTransaction(pool, (client) => enqueue(client, { task, payload: { n: 2 } }));
    assert.deepEqual(await jobRows(task), [
      { id, queue_name: null, attempts: 0, max_attempts: 25, last_error: null, key: null, payload: { n: 2 } },
    ]);
  });

  it('works inside withTenant, through immogate_add_job only, with queue, key and attempts', async () => {
    const task = 'test:tenant';
    const tenant = { environment: 'sandbox', agencyId: 'agency-1' } as const;
    await assert.rejects(
      withTenant(pool, tenant, async (client) => {
        await enqueue(client, { task, payload: { n: 0 } });
        throw new Error('rolled back');
      }),
      { message: 'rolled back' },
    );
    const first = await withTenant(pool, tenant, (client) => enqueue(client, { task, payload: { n: 1 }, queue: 'listing-7', jobKey: 'listing-7:sync', maxAttempts: 3 }));
    // The same key replaces the pending job rather than adding a second one.
    const second = await withTenant(pool, tenant, (client) => enqueue(client, { task, payload: { n: 2 }, queue: 'listing-7', jobKey: 'listing-7:sync', maxAttempts: 3 }));
    assert.equal(second, first);
    assert.deepEqual(await jobRows(task), [
      { id: first, queue_name: 'listing-7', attempts: 0, max_attempts: 3, last_error: null, key: 'listing-7:sync', payload: { n: 2 } },
    ]);
  });
});

describe('worker', () => {
  it('runs, exactly once, a job committed by a process that is gone before any worker starts', { timeout: 30_000 }, async () => {
    const task = 'test:durable';
    const producer = createPool(database.url, 2);
    const id = await inTransaction(producer, (client) => enqueue(client, { task, payload: { order: 'o-1' } }));
    await producer.end();
    assert.deepEqual((await jobRows(task)).map((row) => row.id), [id]);

    await withWorker([recordingJob(task)], async () => {
      await waitFor('the job to complete', () => jobRows(task), (rows) => rows.length === 0);
    });
    assert.deepEqual(await runs(task), [{ payload: { order: 'o-1' }, attempt: 1 }]);
  });

  it('retries a job whose handler throws, counting attempts, until maxAttempts', { timeout: 30_000 }, async () => {
    const task = 'test:failing';
    const job = recordingJob(task);
    const failing: JobDefinition = {
      name: task,
      async handler(payload, context) {
        await job.handler(payload, context);
        throw new Error(`receiver unavailable (attempt ${context.attempt})`);
      },
    };
    const id = await inTransaction(pool, (client) => enqueue(client, { task, payload: { n: 1 }, maxAttempts: 2 }));
    const failed = (rows: JobRow[]) => rows[0]?.last_error !== null && rows[0]?.last_error !== undefined;

    await withWorker([failing], async () => {
      const afterFirst = await waitFor('the first failure', () => jobRows(task), failed);
      assert.deepEqual(afterFirst, [
        { id, queue_name: null, attempts: 1, max_attempts: 2, last_error: 'receiver unavailable (attempt 1)', key: null, payload: { n: 1 } },
      ]);
      const { rows } = await pool.query('SELECT run_at > now() AS backing_off FROM graphile_worker.jobs WHERE id = $1', [id]);
      assert.deepEqual(rows, [{ backing_off: true }]);

      // Skip the exponential backoff instead of waiting it out.
      await pool.query('SELECT graphile_worker.reschedule_jobs(ARRAY[$1]::bigint[], run_at := now())', [id]);
      // attempts counts up when the second attempt starts; its failure is recorded after it ends.
      const afterSecond = await waitFor('the second failure', () => jobRows(task), (r) => r[0]?.last_error?.endsWith('(attempt 2)') === true);
      assert.deepEqual(afterSecond, [
        { id, queue_name: null, attempts: 2, max_attempts: 2, last_error: 'receiver unavailable (attempt 2)', key: null, payload: { n: 1 } },
      ]);
    });
    // Out of attempts: the job stays, failed, for an operator to see; it is not run again.
    assert.deepEqual(await runs(task), [
      { payload: { n: 1 }, attempt: 1 },
      { payload: { n: 1 }, attempt: 2 },
    ]);
  });

  it('runs the jobs of one queue strictly in order, one at a time, while other jobs run in parallel', { timeout: 30_000 }, async () => {
    const ordered = 'test:ordered';
    const parallel = 'test:parallel';
    let inFlight = 0;
    let maxInFlight = 0;
    const orderedJob = recordingJob(ordered, async (payload) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Uneven durations: without the queue, later jobs would overtake earlier ones.
      await sleep(((payload as { n: number }).n % 4) * 5);
      inFlight--;
    });
    // Three jobs that finish only when all three run at once: proof the worker is concurrent.
    let started = 0;
    const allStarted = deferred();
    const parallelJob = recordingJob(parallel, async () => {
      if (++started === 3) allStarted.resolve();
      await Promise.race([allStarted.promise, sleep(10_000, undefined, { ref: false }).then(() => Promise.reject(new Error('jobs did not run concurrently')))]);
    });

    await inTransaction(pool, async (client) => {
      for (let n = 0; n < 20; n++) await enqueue(client, { task: ordered, payload: { n }, queue: 'test-queue' });
      for (let n = 0; n < 3; n++) await enqueue(client, { task: parallel, payload: { n } });
    });
    await withWorker([orderedJob, parallelJob], async () => {
      await waitFor('all jobs to complete', async () => [...(await jobRows(ordered)), ...(await jobRows(parallel))], (rows) => rows.length === 0);
    });

    assert.deepEqual(
      (await runs(ordered)).map((run) => run.payload),
      Array.from({ length: 20 }, (_, n) => ({ n })),
    );
    assert.equal(maxInFlight, 1);
    assert.deepEqual(
      (await runs(parallel)).map((run) => run.attempt),
      [1, 1, 1],
    );
  });

  it('lets a running job finish when the worker stops', { timeout: 30_000 }, async () => {
    const task = 'test:graceful';
    const started = deferred();
    const release = deferred();
    let aborted: boolean | undefined;
    const job = recordingJob(task, async (_payload, context) => {
      started.resolve();
      await release.promise;
      aborted = context.signal.aborted;
    });
    await inTransaction(pool, (client) => enqueue(client, { task, payload: { n: 1 } }));

    await withWorker([job], async (runner) => {
      await started.promise;
      let stopped = false;
      const stopping = runner.stop().then(() => (stopped = true));
      await sleep(300);
      assert.equal(stopped, false, 'stop() returned while a job was still running');
      release.resolve();
      await stopping;
    });
    assert.equal(aborted, false);
    assert.deepEqual(await runs(task), [{ payload: { n: 1 }, attempt: 1 }]);
    // Completed, not failed or handed back: the row is gone.
    assert.deepEqual(await jobRows(task), []);
  });
});

describe('platform jobs', () => {
  it('platform:prune_rate_limits deletes windows that have ended and keeps open ones, however long', { timeout: 30_000 }, async () => {
    await pool.query(`
      WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
      INSERT INTO rate_limit_windows (key, window_start, window_end, hits)
      SELECT 'ended', ms - 120000, ms - 119800, 5 FROM now
      UNION ALL SELECT 'hour-long', ms - 120000, ms - 120000 + 3600000, 7 FROM now
      UNION ALL SELECT 'current', ms - ms % 200, ms - ms % 200 + 60000, 3 FROM now`);
    const id = await inTransaction(pool, (client) => enqueue(client, { task: 'platform:prune_rate_limits', payload: {} }));

    await withWorker(JOBS, async () => {
      await waitFor('the prune job to complete', async () => (await pool.query('SELECT 1 FROM graphile_worker.jobs WHERE id = $1', [id])).rowCount, (n) => n === 0);
    });
    const { rows } = await pool.query('SELECT key, hits FROM rate_limit_windows ORDER BY key');
    assert.deepEqual(rows, [
      { key: 'current', hits: 3 },
      { key: 'hour-long', hits: 7 },
    ]);
  });

  it('platform:prune_token_issuance deletes issuance records over 90 days old and keeps the rest', { timeout: 30_000 }, async () => {
    const client = await makeClient(pool, ['agency-1'], ['caas:*']);
    await pool.query(
      `INSERT INTO token_issuance (jti, client_id, audience, intermediary_id, scope, issued_at)
       SELECT gen_random_uuid(), $1, 'http://127.0.0.1/caas/v4', 'agency-1', label, now() - age
         FROM (VALUES ('91 days', interval '91 days'), ('89 days', interval '89 days'), ('today', interval '0')) AS t (label, age)`,
      [client.clientId],
    );
    const id = await inTransaction(pool, (c) => enqueue(c, { task: 'platform:prune_token_issuance', payload: {} }));

    await withWorker(JOBS, async () => {
      await waitFor('the prune job to complete', async () => (await pool.query('SELECT 1 FROM graphile_worker.jobs WHERE id = $1', [id])).rowCount, (n) => n === 0);
    });
    const { rows } = await pool.query('SELECT scope FROM token_issuance WHERE client_id = $1 ORDER BY issued_at', [client.clientId]);
    assert.deepEqual(rows, [{ scope: '89 days' }, { scope: 'today' }]);
  });
});
