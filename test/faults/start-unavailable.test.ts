/*
 * A start whose external database (DATABASE_URL) is unavailable: it waits and retries with
 * backoff (0.5, 1, 2, 4 … 10 s), each try on one log line with its reason, for at most
 * DATABASE_START_TIMEOUT_SECONDS, then ends with one line; a database that does not exist fails
 * at once. With `immogate start`, once a server served, a worker that cannot reach the database
 * waits, and one that dies in its start-up is started again: neither stops what serves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { createTestDatabase, freePort, type TestDatabase } from '../helpers.js';
import { killLaunched, launch, logLines, runCli, stop, waitForLog, waitReady, exitedAlready } from '../processes.js';
import { Relay } from './relay.js';

const STEP = { timeout: 60_000 };

let database: TestDatabase;
const relays: Relay[] = [];

before(async () => {
  database = await createTestDatabase({ empty: true });
});

after(async () => {
  await killLaunched();
  for (const relay of relays) await relay.close();
  await database?.drop();
});

/** A relay to the test's PostgreSQL, and the URL of `database` through it. */
async function relayed(port = 0): Promise<{ relay: Relay; url: string; port: number }> {
  const admin = new URL(process.env.IMMOGATE_TEST_ADMIN_URL ?? '');
  const relay = new Relay({ host: admin.hostname, port: Number(admin.port || 5432) });
  relays.push(relay);
  const url = new URL(database.url);
  url.hostname = '127.0.0.1';
  url.port = String(await relay.listen(port));
  return { relay, url: url.toString(), port: Number(url.port) };
}

/** The URL of `database` on a loopback port nothing listens on (yet). */
function refusedUrl(port: number): string {
  const url = new URL(database.url);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

describe('a start whose database is unavailable', () => {
  it('waits: each try on one line with its reason, after 0.5, 1, 2 s; serves once the database answers', STEP, async (t: TestContext) => {
    const port = await freePort();
    const server = launch(['server'], await freePort(), { DATABASE_URL: refusedUrl(port), LOG_LEVEL: 'info' });
    const step = `connecting to PostgreSQL at 127.0.0.1:${port}`;
    await waitForLog(server, 'the third try', (line) => line.try === 3);
    const { relay } = await relayed(port);
    const readyMs = await waitReady(server);

    const tries = logLines(server).filter((line) => line.step === step && line.level === 40);
    assert.ok(tries.length >= 3, server.stdout);
    assert.deepEqual(
      tries.slice(0, 3).map((line) => ({ ...line, time: 0 })),
      [0.5, 1, 2].map((delay, index) => ({
        level: 40,
        time: 0,
        service: 'immogate',
        step,
        try: index + 1,
        retryInSeconds: delay,
        reason: `ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${port}`,
        msg: `database unavailable at start (${step}): trying again in ${delay} s`,
      })),
    );
    const gaps = tries.slice(1, 3).map((line, index) => line.time - (tries[index]?.time ?? 0));
    assert.ok(gaps[0]! >= 500 && gaps[1]! >= 1000, `gaps between tries: ${gaps.join(', ')} ms`);
    const available = logLines(server).find((line) => line.msg === `database available: ${step} done`);
    assert.equal(available?.tries, tries.length + 1);
    assert.equal(logLines(server).filter((line) => line.msg === 'migrations applied').length, 1);

    assert.deepEqual(await stop(server), { code: 0, signal: null });
    await relay.close();
    t.diagnostic(`ready ${readyMs} ms after launch, after ${tries.length} refused tries`);
  });

  it('gives up after DATABASE_START_TIMEOUT_SECONDS with one line and exit 1', STEP, async () => {
    const port = await freePort();
    const started = Date.now();
    const result = await runCli(['server'], { DATABASE_URL: refusedUrl(port), DATABASE_START_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'warn' });
    const tookMs = Date.now() - started;
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `immogate: the database stayed unavailable for 2 s (DATABASE_START_TIMEOUT_SECONDS) while connecting to PostgreSQL at 127.0.0.1:${port}: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    // 0.5 + 1 s, then what is left of the 2 s (about 0.5 s): the last try comes at the limit.
    const delays = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line).retryInSeconds as number);
    assert.deepEqual(delays.slice(0, 2), [0.5, 1], result.stdout);
    assert.equal(delays.length, 3, result.stdout);
    assert.ok(delays[2]! > 0 && delays[2]! <= 0.5, result.stdout);
    assert.ok(tookMs >= 2_000 && tookMs < 15_000, `took ${tookMs} ms`);
  });

  for (const command of ['server', 'start']) {
    it(`immogate ${command} stops at once on SIGTERM while it waits: exit 0`, STEP, async () => {
      const port = await freePort();
      const waiting = launch([command], await freePort(), { DATABASE_URL: refusedUrl(port), LOG_LEVEL: 'info' });
      await waitForLog(waiting, 'a try', (line) => line.try === 2);
      const signalledAt = Date.now();
      assert.deepEqual(await stop(waiting), { code: 0, signal: null });
      const tookMs = Date.now() - signalledAt;
      const messages = logLines(waiting).map((line) => line.msg);
      assert.deepEqual(messages.slice(-2), ['shutting down: draining requests and jobs', 'stopped'], waiting.stdout);
      assert.equal(waiting.stderr, '');
      assert.ok(tookMs < 3_000, `stopped ${tookMs} ms after the signal`);
    });
  }

  it('a database that does not exist is no outage: it fails at once, with its reason', STEP, async () => {
    const missing = new URL(database.url);
    missing.pathname = '/immogate_missing_database';
    const host = missing.host;
    const result = await runCli(['server'], { DATABASE_URL: missing.toString(), LOG_LEVEL: 'warn' });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: `immogate: DATABASE_URL: cannot connect to PostgreSQL at ${host}: database "immogate_missing_database" does not exist\n`,
    });
  });
});

describe('immogate start, once a server served', () => {
  it(
    'a worker dying in its first start-up is started again, one that cannot reach the database waits; the server serves on',
    STEP,
    async (t: TestContext) => {
      const { relay, url } = await relayed();
      // The worker's first statement of its own (its scheduled tasks) waits for this lock until its
      // lock_timeout (10 s): an error that is no outage, so its first start fails, after the server's.
      const blocker = new pg.Client({ connectionString: database.url });
      blocker.on('error', () => undefined);
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE scheduled_tasks IN ACCESS EXCLUSIVE MODE');
      const primary = launch(['start'], await freePort(), { DATABASE_URL: url, LOG_LEVEL: 'info' });
      let first: Record<string, any>;
      try {
        await waitReady(primary);
        first = await waitForLog(
          primary,
          'the first worker failing',
          (line) => line.msg === 'a worker process failed to start: trying again',
        );
        assert.equal(logLines(primary).filter((line) => line.msg === 'worker started').length, 0);
      } finally {
        await blocker.query('COMMIT').catch(() => undefined);
        await blocker.end();
      }
      const all = await waitForLog(primary, 'all processes started', (line) => line.msg === 'all processes started');
      await waitReady(primary);

      relay.refuse();
      process.kill(all.worker as number, 'SIGKILL');
      await waitForLog(primary, 'the worker replaced', (line) => line.msg === 'a worker process died: starting another in its place');
      // The replacement finds no database: it waits rather than failing.
      const waiting = await waitForLog(
        primary,
        'the replacement waiting for the database',
        (line) => line.level === 40 && line.step?.startsWith('connecting to PostgreSQL at ') && line.pid !== all.worker,
      );
      // Killed while it waits, before it ever started: replaced again, nothing stopped.
      process.kill(waiting.pid as number, 'SIGKILL');
      const failed = await waitForLog(
        primary,
        'the second replacement',
        (line) => line.msg === 'a worker process failed to start: trying again' && line.pid === waiting.pid,
      );

      relay.forward();
      await waitForLog(
        primary,
        'a worker started again',
        (line) => line.msg === 'worker started' && line.pid !== all.worker && line.pid !== waiting.pid,
      );
      assert.equal(exitedAlready(primary), false);
      assert.doesNotMatch(primary.stdout, /a process failed to start: stopping/);
      // Each quick death doubles the pause before the next replacement.
      const pauses = logLines(primary)
        .filter((line) => line.restartInMs !== undefined)
        .map((line) => line.restartInMs);
      assert.deepEqual(pauses, [1_000, 2_000, 4_000]);
      assert.equal(failed.restartInMs, 4_000);
      await waitReady(primary);

      assert.deepEqual(await stop(primary), { code: 0, signal: null });
      t.diagnostic(`the first worker failed ${first.time - primary.startedAt} ms after launch`);
    },
  );
});
