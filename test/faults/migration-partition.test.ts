/*
 * A network partition while a start migrates: the migration's statement waits on the database
 * (here for the migrations' advisory lock, which the test holds, as another process migrating
 * would), and from one moment nothing crosses between immogate and its database, not even a
 * connection's end. Before, that start waited for ever, with nothing logged and nothing
 * listening. Now the start's liveness check (src/platform/db/liveness.ts) notices within 15-22 s,
 * says so on one line, and retries the step; once the network is back it ends the session it
 * abandoned, which the database kept (still waiting, then holding the lock), and serves.
 */
import assert from 'node:assert/strict';
import { after, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { createTestDatabase, freePort, type TestDatabase } from '../helpers.js';
import { killLaunched, launch, logLines, stop, waitForLog, waitReady, waitUntil } from '../processes.js';
import { Relay } from './relay.js';

/** The migrations' advisory lock (src/platform/db/migrate.ts). */
const MIGRATIONS_LOCK = 0x1_6a7e_0001;

let database: TestDatabase | undefined;
let relay: Relay | undefined;
const holder = { client: undefined as pg.Client | undefined };

after(async () => {
  await killLaunched();
  await holder.client?.end().catch(() => undefined);
  await relay?.close();
  await database?.drop();
});

/** The pid of the session waiting for the migrations' lock in `database`, if one does. */
async function lockWaiter(client: pg.Client, name: string): Promise<number | undefined> {
  const { rows } = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = $1 AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    [name],
  );
  return rows[0]?.pid;
}

async function sessionExists(client: pg.Client, pid: number): Promise<boolean> {
  const { rows } = await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
  return rows.length > 0;
}

describe('a partition while a start migrates', () => {
  it('is noticed in under 25 s, logged on one line and retried; the abandoned session is ended; then it serves', {
    timeout: 90_000,
  }, async (t: TestContext) => {
    database = await createTestDatabase({ empty: true });
    const admin = new URL(process.env.IMMOGATE_TEST_ADMIN_URL ?? '');
    relay = new Relay({ host: admin.hostname, port: Number(admin.port || 5432) });
    const relayed = new URL(database.url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(await relay.listen());

    const client = new pg.Client({ connectionString: database.url });
    client.on('error', () => undefined);
    holder.client = client;
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK]);

    const server = launch(['server'], await freePort(), { DATABASE_URL: relayed.toString(), LOG_LEVEL: 'info' });
    let waiter: number | undefined;
    await waitUntil(
      'the start waiting for the migrations lock',
      async () => {
        waiter = await lockWaiter(client, database!.name);
        return waiter !== undefined;
      },
      server,
    );
    relay.dark();
    const darkAt = Date.now();

    const noticed = await waitForLog(
      server,
      'saying the migration lost its database',
      (line) => line.msg === 'database unavailable at start (migrating): trying again in 0.5 s',
      40_000,
    );
    const noticedMs = Date.now() - darkAt;
    assert.deepEqual(
      { ...noticed, time: 0, reason: noticed.reason.replace(/\(.*\)$/, '(…)') },
      {
        level: 40,
        time: 0,
        service: 'immogate',
        step: 'migrating',
        try: 1,
        retryInSeconds: 0.5,
        reason: 'the database is unreachable: no answer from the database for 15 s while a start-up statement waited on it (…)',
        msg: 'database unavailable at start (migrating): trying again in 0.5 s',
      },
    );
    // 15 s of silence since the last answer, which came at most one check (2 s) before the partition; a failed check takes up to 5 s.
    assert.ok(noticedMs >= 12_000 && noticedMs < 25_000, `noticed ${noticedMs} ms after the partition`);
    // Its end never reached the database: the session still waits there for the lock.
    assert.equal(await sessionExists(client, waiter!), true);

    relay.heal();
    // The abandoned session gets the lock now, and would keep it: the retried start must end it.
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK]);
    const readyMs = await waitReady(server, 90_000);
    assert.equal(await sessionExists(client, waiter!), false, 'the abandoned session was ended');

    const lines = logLines(server);
    const done = lines.find((line) => line.msg === 'database available: migrating done');
    assert.ok(done, server.stdout);
    assert.equal(lines.filter((line) => line.msg === 'migrations applied').length, 1);
    assert.doesNotMatch(server.stdout + server.stderr, /^\s+at /m);
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM immogate_migrations');
    assert.ok((rows[0]?.n ?? 0) > 0);

    assert.deepEqual(await stop(server), { code: 0, signal: null });
    t.diagnostic(
      `partition noticed ${noticedMs} ms after it began; ready ${readyMs} ms after launch, after ${done.tries} tries of the step`,
    );
  });
});
