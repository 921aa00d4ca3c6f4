/*
 * More than one immogate process on one database, with real processes of the built CLI: two
 * `immogate start` on an external PostgreSQL share the work, and when one is killed mid-load the
 * other finishes what it had leased; `immogate start --processes N` runs N server processes on
 * one port and a worker process at a lower priority over the embedded PostgreSQL, replaces one
 * that dies (the worker's replacement finishing what it held), and stops them all;
 * `--inline-worker` keeps the worker in each server process, or the one process of before.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { alive } from '../src/platform/db/embedded.js';
import { createTestDatabase, freePort, type TestDatabase } from './helpers.js';
import {
  acknowledged,
  assertConsistent,
  type Crash,
  Load,
  MediaServer,
  query,
  Receiver,
  subscribe,
  tokensFor,
  type Tokens,
  waitCaughtUp,
} from './pipeline.js';
import {
  runCli,
  demoClientOf,
  embeddedUrl,
  killLaunched,
  launch,
  logLines,
  parentOf,
  postmasterPid,
  stopEmbeddedLeftover,
  threadNiceness,
  waitForLog,
  waitReady,
  type Immogate,
} from './processes.js';

const STEP = { timeout: 120_000 };

const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  await killLaunched();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('two immogate processes on one external PostgreSQL', () => {
  let database: TestDatabase;

  it('share the work; killed mid-load, one leaves its leased work to the other, which finishes it', { timeout: 180_000 }, async (t) => {
    database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const media = await MediaServer.start();
    const receiver = await Receiver.start();
    cleanups.push(
      () => media.close(),
      () => receiver.close(),
    );
    const env = { DATABASE_URL: database.url, DATA_DIR: '/nonexistent', LOG_LEVEL: 'info', ALLOW_PRIVATE_TARGETS: 'true' };
    const [a, b] = [launch(['start'], await freePort(), env), launch(['start'], await freePort(), env)] as [Immogate, Immogate];
    await Promise.all([waitReady(a), waitReady(b)]);
    const workerId = async (running: Immogate) =>
      (await waitForLog(running, 'worker started', (line) => line.msg === 'worker started')).workerId as string;
    const [workerA, workerB] = [await workerId(a), await workerId(b)];
    const demo = demoClientOf([a, b].find((running) => running.stdout.includes('First start:'))!.stdout);
    const [tokensA, tokensB] = [await tokensFor(a.base, demo), await tokensFor(b.base, demo)];
    await subscribe(tokensA, receiver);

    // Who holds what, sampled while the load runs: the claims are the work each process does.
    const claims = new Map<string, Set<string>>([
      [workerA, new Set()],
      [workerB, new Set()],
    ]);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await query<{ worker: string; item: string }>(
          database.url,
          `SELECT claimed_by AS worker, classified_id::text AS item FROM caas_processing_queue WHERE claimed_by IS NOT NULL
           UNION ALL SELECT claimed_by, id::text FROM webhook_deliveries WHERE claimed_by IS NOT NULL AND state = 'PENDING'`,
        );
        for (const row of rows) claims.get(row.worker)?.add(row.item);
        await sleep(20);
      }
    })();

    const ack = acknowledged();
    const loads = [
      new Load(tokensA, media, ack, 'a').start({ classifieds: 2, leads: 1 }),
      new Load(tokensB, media, ack, 'b').start({ classifieds: 2, leads: 1 }),
    ];
    await sleep(1_500 + Math.random() * 1_500);
    // Downloads wait from now on, so each process is caught holding classifieds it cannot finish.
    media.hold();
    const held = async (worker: string) =>
      (
        await query<{ id: string }>(database.url, 'SELECT classified_id AS id FROM caas_processing_queue WHERE claimed_by = $1', [worker])
      ).map((row) => row.id);
    for (let i = 0; (await held(workerA)).length === 0 || (await held(workerB)).length === 0; i += 1) {
      assert.ok(i < 500, 'both processes to hold classifieds');
      await sleep(10);
    }
    const killedAt = Date.now();
    b.child.kill('SIGKILL');
    assert.deepEqual(await b.exited, { code: null, signal: 'SIGKILL' });
    // Read with its snapshot: a processing transaction B sent just before its death may commit after this read.
    const [atDeath] = await query<{ ids: string[]; snapshot: string }>(
      database.url,
      "SELECT coalesce(array_agg(classified_id::text), '{}') AS ids, pg_current_snapshot()::text AS snapshot FROM caas_processing_queue WHERE claimed_by = $1",
      [workerB],
    );
    const leftByB = atDeath?.ids ?? [];
    const deliveriesLeftByB = await query<{ id: string }>(
      database.url,
      "SELECT id FROM webhook_deliveries WHERE claimed_by = $1 AND state = 'PENDING'",
      [workerB],
    );
    media.release();
    await Promise.all(loads.map((load) => load.stop()));
    // By now the media server has recorded every request B sent; A takes B's work up only once its leases run out.
    const crash = { killedAt, resumedAt: Date.now() };
    sampling = false;
    await sampler;
    assert.ok(leftByB.length > 0);
    assert.ok(claims.get(workerA)!.size > 0 && claims.get(workerB)!.size > 0, 'both processes claimed work before the kill');

    const caughtUpMs = await waitCaughtUp(() => database.url, receiver, killedAt, 30_000);
    // What B held at its death was finished afterwards: committed after that read.
    const finished = await query<{ id: string; after: boolean }>(
      database.url,
      `SELECT classified_id AS id, NOT pg_visible_in_snapshot(xmin::text::xid8, $2::pg_snapshot) AS after
         FROM classified_statuses WHERE classified_id = ANY($1::uuid[]) AND status = 'CREATED'`,
      [leftByB, atDeath?.snapshot],
    );
    assert.deepEqual(finished.map((row) => row.id).sort(), [...leftByB].sort());
    for (const row of finished) assert.ok(row.after, `${row.id} finished after the kill`);
    const figures = await assertConsistent(database.url, ack, receiver, media, [crash]);
    t.diagnostic(
      `before the kill A claimed ${claims.get(workerA)!.size} items, B ${claims.get(workerB)!.size}; B left ${leftByB.length} classifieds and ` +
        `${deliveriesLeftByB.length} deliveries leased; A finished everything ${caughtUpMs} ms after the kill; ${figures.classifieds} classifieds, ` +
        `${figures.leads} leads, ${figures.redelivered} notifications received twice (same webhook-id), ${figures.refetched} media downloaded again (${figures.refetchedAfterAnswer} of them answered before the kill)`,
    );

    a.child.kill('SIGTERM');
    assert.deepEqual(await a.exited, { code: 0, signal: null });
  });
});

/** A GET on a connection of its own, so that node:cluster hands each request to the next process. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { 'user-agent': 'ImmogateTests/1.0.0 node/20 linux/6' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('immogate start --processes', () => {
  let dataDir: string;
  let port: number;
  let primary: Immogate;
  let servers: number[];
  let worker: number;
  let tokens: Tokens;
  let receiver: Receiver;
  let media: MediaServer;
  const ack = acknowledged();
  const crashes: Crash[] = [];
  const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'debug', ALLOW_PRIVATE_TARGETS: 'true' });
  /** Pids of the processes that logged a request since line `from`. */
  const servedBy = (from: number) =>
    new Set(
      logLines(primary)
        .slice(from)
        .filter((line) => line.url === '/health')
        .map((line) => line.pid as number),
    );
  /** The nice value the worker process gets: ten more than the primary's, at most 19. */
  const lowered = () => Math.min(19, threadNiceness(primary.pid)[0]! + 10);
  const niceness = (pid: number) => [...new Set(threadNiceness(pid))];
  const workerIdOf = async (pid: number) =>
    (await waitForLog(primary, `"worker started" of ${pid}`, (line) => line.msg === 'worker started' && line.pid === pid))
      .workerId as string;

  it('a bad --processes: exit 1 with the reason, nothing started', async () => {
    for (const value of ['0', 'two', '1.5', '-3']) {
      assert.deepEqual(await runCli(['start', `--processes=${value}`], { DATA_DIR: '/nonexistent' }), {
        code: 1,
        stdout: '',
        stderr: `immogate: --processes must be a positive whole number or "auto", got "${value}"\n`,
      });
    }
  });

  it(
    '--processes 2: the primary prepares the database, two server children share the port and the requests, a worker child at nice 10 does the work',
    STEP,
    async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-processes-'));
      // PostgreSQL refuses to run as root, so it runs as another user that must reach the directory.
      fs.chmodSync(dataDir, 0o755);
      cleanups.push(async () => {
        await stopEmbeddedLeftover(dataDir);
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      port = await freePort();
      primary = launch(['start', '--processes', '2'], port, env());
      await waitReady(primary);
      const started = await waitForLog(primary, 'all processes started', (line) => line.msg === 'all processes started');
      servers = started.servers as number[];
      worker = started.worker as number;
      assert.equal(servers.length, 2);
      assert.equal(typeof worker, 'number');
      assert.equal(servers.includes(worker), false);
      const listening = logLines(primary).filter((line) => line.msg === 'immogate listening');
      assert.deepEqual(listening.map((line) => line.pid).sort(), [...servers].sort());
      assert.deepEqual(
        listening.map((line) => line.address),
        [primary.base, primary.base],
      );
      // The worker runs in its own process only, ten nice steps below the servers, every thread of it.
      assert.deepEqual(
        logLines(primary)
          .filter((line) => line.msg === 'worker started')
          .map((line) => line.pid),
        [worker],
      );
      assert.deepEqual(niceness(worker), [lowered()]);
      for (const server of servers) assert.deepEqual(niceness(server), niceness(primary.pid));
      for (const child of [...servers, worker]) assert.equal(parentOf(child), primary.pid);
      // The primary started the database and owns it; the children use it as an external one.
      assert.equal(parentOf(postmasterPid(dataDir)!), primary.pid);
      assert.equal(primary.stdout.match(/First start:/g)?.length, 1);

      const from = logLines(primary).length;
      const answers = await Promise.all(Array.from({ length: 20 }, () => getOnNewConnection(`${primary.base}/health`)));
      assert.deepEqual(answers, Array(20).fill(200));
      await sleep(200);
      assert.deepEqual([...servedBy(from)].sort(), [...servers].sort());

      // The API works end to end: a classified goes through the worker child.
      tokens = await tokensFor(primary.base, demoClientOf(primary.stdout));
      receiver = await Receiver.start();
      media = await MediaServer.start();
      cleanups.push(
        () => media.close(),
        () => receiver.close(),
      );
      await subscribe(tokens, receiver);
      const load = new Load(tokens, media, ack, 'p').start({ classifieds: 2, leads: 1 });
      await sleep(1_000);
      await load.stop();
      await waitCaughtUp(() => embeddedUrl(dataDir), receiver, Date.now(), 30_000);
      await assertConsistent(embeddedUrl(dataDir), ack, receiver, media, []);
      assert.ok(ack.classifieds.size > 0 && ack.leads.size > 0);
    },
  );

  it('a server child killed with kill -9 is replaced, and the other answers meanwhile', STEP, async () => {
    const [victim, survivor] = servers as [number, number];
    process.kill(victim, 'SIGKILL');
    const died = await waitForLog(
      primary,
      'about the death',
      (line) => line.msg === 'a server process died: starting another in its place',
    );
    assert.deepEqual(
      { pid: died.pid, code: died.code, signal: died.signal, restartInMs: died.restartInMs },
      { pid: victim, code: null, signal: 'SIGKILL', restartInMs: 1000 },
    );
    const from = logLines(primary).length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => getOnNewConnection(`${primary.base}/health`)));
    assert.deepEqual(answers, Array(10).fill(200));

    const replaced = await waitForLog(
      primary,
      'of the replacement',
      (line) => line.msg === 'immogate listening' && line.pid !== victim && line.pid !== survivor,
    );
    const replacement = replaced.pid as number;
    assert.equal(parentOf(replacement), primary.pid);
    assert.deepEqual(niceness(replacement), niceness(primary.pid));
    servers = [survivor, replacement];
    const after = logLines(primary).length;
    assert.deepEqual(
      await Promise.all(Array.from({ length: 20 }, () => getOnNewConnection(`${primary.base}/health`))),
      Array(20).fill(200),
    );
    await sleep(200);
    assert.ok([...servedBy(from)].every((pid) => pid === survivor || pid === replacement));
    assert.deepEqual([...servedBy(after)].sort(), [...servers].sort());
    // Still the one worker: a server's replacement runs none.
    assert.deepEqual(
      logLines(primary)
        .filter((line) => line.msg === 'worker started')
        .map((line) => line.pid),
      [worker],
    );
  });

  it(
    'the worker child killed with kill -9 while it holds classifieds is replaced at nice 10, and its replacement finishes them',
    STEP,
    async (t) => {
      const killedWorker = await workerIdOf(worker);
      const url = embeddedUrl(dataDir);
      const held = async () =>
        (
          await query<{ id: string }>(url, 'SELECT classified_id AS id FROM caas_processing_queue WHERE claimed_by = $1', [killedWorker])
        ).map((row) => row.id);
      const load = new Load(tokens, media, ack, 'w').start({ classifieds: 2, leads: 1 });
      await sleep(1_000);
      // Downloads wait from now on, so the worker is caught holding classifieds it cannot finish.
      media.hold();
      for (let i = 0; (await held()).length === 0; i += 1) {
        assert.ok(i < 500, 'the worker to hold classifieds');
        await sleep(10);
      }
      const killedAt = Date.now();
      process.kill(worker, 'SIGKILL');
      const died = await waitForLog(
        primary,
        'about the death',
        (line) => line.msg === 'a worker process died: starting another in its place',
      );
      assert.deepEqual(
        { pid: died.pid, code: died.code, signal: died.signal, restartInMs: died.restartInMs },
        { pid: worker, code: null, signal: 'SIGKILL', restartInMs: 1000 },
      );
      // Read with the snapshot it was read in: a processing transaction the worker sent just before
      // its death may still commit after this read (its backend runs what it has received), dated
      // by its start (status_date), before the kill.
      const [atDeath] = await query<{ ids: string[]; snapshot: string }>(
        url,
        "SELECT coalesce(array_agg(classified_id::text), '{}') AS ids, pg_current_snapshot()::text AS snapshot FROM caas_processing_queue WHERE claimed_by = $1",
        [killedWorker],
      );
      const left = atDeath?.ids ?? [];
      assert.ok(left.length > 0);
      media.release();
      // The server children answer while no worker runs: the posts go on being acknowledged.
      const acknowledgedBefore = ack.classifieds.size;
      await sleep(500);
      await load.stop();
      assert.ok(ack.classifieds.size > acknowledgedBefore, 'classifieds acknowledged while the worker was down');
      crashes.push({ killedAt, resumedAt: Date.now() });

      const replaced = await waitForLog(primary, 'of the replacement', (line) => line.msg === 'worker started' && line.pid !== worker);
      const replacement = replaced.pid as number;
      assert.equal(parentOf(replacement), primary.pid);
      assert.deepEqual(niceness(replacement), [lowered()]);
      worker = replacement;

      const caughtUpMs = await waitCaughtUp(() => url, receiver, killedAt, 60_000);
      // What the killed worker held at its death was finished afterwards: committed after that read.
      const finished = await query<{ id: string; after: boolean }>(
        url,
        `SELECT classified_id AS id, NOT pg_visible_in_snapshot(xmin::text::xid8, $2::pg_snapshot) AS after
           FROM classified_statuses WHERE classified_id = ANY($1::uuid[]) AND status = 'CREATED'`,
        [left, atDeath?.snapshot],
      );
      assert.deepEqual(finished.map((row) => row.id).sort(), [...left].sort());
      for (const row of finished) assert.ok(row.after, `${row.id} finished after the kill`);
      const figures = await assertConsistent(url, ack, receiver, media, crashes);
      assert.ok(logLines(primary).some((line) => line.msg === 'immogate listening' && servers.includes(line.pid)));
      assert.equal(logLines(primary).filter((line) => line.msg === 'all processes started').length, 1);
      t.diagnostic(
        `the killed worker held ${left.length} classifieds; everything done ${caughtUpMs} ms after the kill; ` +
          `${figures.refetched} media downloaded again, ${figures.redelivered} notifications received twice (same webhook-id)`,
      );
    },
  );

  it('SIGTERM: the children drain, the primary stops the database last and exits 0', STEP, async () => {
    const postgres = postmasterPid(dataDir)!;
    const children = [...servers, worker];
    primary.child.kill('SIGTERM');
    assert.deepEqual(await primary.exited, { code: 0, signal: null });
    for (const child of children) assert.equal(alive(child), false);
    assert.equal(alive(postgres), false);
    assert.equal(fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid')), false);
    const lines = logLines(primary);
    const drained = lines.filter((line) => line.msg === 'shutting down: draining requests and jobs');
    assert.deepEqual(drained.map((line) => line.pid ?? 'primary').sort(), ['primary', ...children].sort());
    assert.deepEqual(
      lines
        .filter((line) => line.msg === 'stopped')
        .map((line) => line.pid ?? 'primary')
        .sort(),
      ['primary', ...children].sort(),
    );
    // The primary's is the last line: the database stopped after every child.
    assert.equal(lines.at(-1)?.msg, 'stopped');
    assert.equal(lines.at(-1)?.pid, undefined);
    assert.equal(primary.stderr, '');
  });

  it(
    '--processes 2 --inline-worker: two children that are each server and worker; the primary killed with kill -9, they go too, and the next start adopts the database',
    STEP,
    async () => {
      primary = launch(['start', '--processes', '2', '--inline-worker'], port, env());
      await waitReady(primary);
      const started = await waitForLog(primary, 'all processes started', (line) => line.msg === 'all processes started');
      const children = started.servers as number[];
      assert.equal(children.length, 2);
      assert.equal(started.worker, undefined);
      // Logged by each child before it reported ready, so before the primary's line.
      for (const message of ['immogate listening', 'worker started']) {
        assert.deepEqual(
          logLines(primary)
            .filter((line) => line.msg === message)
            .map((line) => line.pid)
            .sort(),
          [...children].sort(),
          message,
        );
      }
      for (const child of children) assert.deepEqual(niceness(child), niceness(primary.pid));
      const postgres = postmasterPid(dataDir)!;
      primary.child.kill('SIGKILL');
      await primary.exited;
      for (let i = 0; children.some(alive); i += 1) {
        assert.ok(i < 100, 'the children to exit with their primary');
        await sleep(100);
      }
      assert.equal(alive(postgres), true);
    },
  );

  it('start --inline-worker is the single process of before: no primary, no child, server and worker in it', STEP, async () => {
    const postgres = postmasterPid(dataDir)!;
    const single = launch(['start', '--inline-worker'], port, env());
    primary = single;
    await waitReady(single);
    assert.equal(postmasterPid(dataDir), postgres);
    await waitForLog(single, 'worker started', (line) => line.msg === 'worker started');
    assert.doesNotMatch(single.stdout, /all processes started|"pid":/);
    assert.ok(logLines(single).some((line) => line.msg === 'immogate listening'));
    const load = new Load(tokens, media, ack, 's').start({ classifieds: 2, leads: 1 });
    await sleep(1_000);
    await load.stop();
    await waitCaughtUp(() => embeddedUrl(dataDir), receiver, Date.now(), 30_000);
    await assertConsistent(embeddedUrl(dataDir), ack, receiver, media, crashes);
    single.child.kill('SIGTERM');
    assert.deepEqual(await single.exited, { code: 0, signal: null });
    assert.equal(alive(postgres), false);
  });
});
