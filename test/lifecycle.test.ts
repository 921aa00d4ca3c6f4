/*
 * immogate as a user runs it: real processes of the built CLI, stopped by signals. The embedded
 * PostgreSQL part initialises a cluster, which takes seconds, so it checks only the essentials:
 * among them that `immogate start` serves from one child process and works from another.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alive } from '../src/platform/db/embedded.js';
import { createPool, type Pool } from '../src/platform/db/pool.js';
import { minimalClassified } from './fixtures/classifieds.js';
import { createTestDatabase, freePort, http, makeClient, type TestDatabase } from './helpers.js';
import {
  isReady,
  killLaunched,
  launch,
  logLines,
  parentOf,
  postmasterPid as postmasterPidOf,
  removeDataDir,
  runCli,
  stop,
  temporaryDataDir,
  threadNiceness,
  waitForLog,
  waitReady,
  waitUntil,
  type Immogate,
} from './processes.js';

const STEP = { timeout: 120_000 };

/** A process of the CLI on a free port, logging at info level (the steps read its log lines). */
async function start(args: string[], env: Record<string, string | undefined>): Promise<Immogate> {
  return launch(args, await freePort(), { LOG_LEVEL: 'info', ...env });
}

function tokenRequest(base: string, clientId: string, secret: string, intermediary = 'demo-agency') {
  return http('POST', `${base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      audience: `${base}/sandbox/caas/v4`,
      intermediary_id: intermediary,
    },
  });
}

after(killLaunched);

describe('npm start with the embedded PostgreSQL', () => {
  let dataDir: string;
  let server: Immogate;
  let demo: { clientId: string; secret: string };
  let postgresPid: number;
  let children: { server: number; worker: number };
  const postmasterPid = () => postmasterPidOf(dataDir)!;
  const embeddedEnv = () => ({ DATABASE_URL: undefined, DATA_DIR: dataDir });

  before(() => {
    dataDir = temporaryDataDir('immogate-lifecycle-');
  });

  // A failed step may have left the database running: it is stopped before its files go.
  after(() => removeDataDir(dataDir));

  it('first start: initialises the database, prints a sandbox client and a curl line that gets a token', STEP, async () => {
    server = await start(['start'], embeddedEnv());
    await waitUntil('the curl line', () => server.stdout.includes('  curl -s'), server);
    // Printed once the server listens: what is copied the moment it shows works, without a retry.
    assert.equal((await http('GET', `${server.base}/health`)).status, 200);
    await waitReady(server);
    const message =
      /^First start: created a sandbox client with every scope, acting for intermediary "demo-agency"\.\n {2}client_id: {5}(ig_[0-9a-f]{24})\n {2}client_secret: (\S+)\nThe secret is shown only now\. Get a token with:\n {2}curl -s -X POST (\S+) -H 'Content-Type: application\/json' -d '(\{[^']*\})'$/m.exec(
        server.stdout,
      );
    assert.ok(message, server.stdout);
    const [, clientId, secret, url, body] = message as unknown as [string, string, string, string, string];
    demo = { clientId, secret };
    assert.equal(url, `${server.base}/oauth/token`);
    assert.deepEqual(JSON.parse(body), {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      audience: `${server.base}/sandbox/caas/v4`,
      intermediary_id: 'demo-agency',
    });

    // What the curl line sends, sent.
    const token = await http('POST', url, { headers: { 'content-type': 'application/json' }, raw: body });
    assert.equal(token.status, 200);
    const answer = token.body as Record<string, unknown>;
    assert.deepEqual(
      { ...answer, access_token: typeof answer.access_token },
      {
        access_token: 'string',
        expires_in: 86400,
        token_type: 'Bearer',
        scope: 'caas:*',
      },
    );
    assert.ok(fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'PG_VERSION')));
    postgresPid = postmasterPid();
    assert.equal(alive(postgresPid), true);
  });

  it(
    'the server answers from one child process; the worker runs in another, at nice 10, and processes a classified posted',
    STEP,
    async () => {
      const started = await waitForLog(server, 'all processes started', (line) => line.msg === 'all processes started');
      children = { server: started.servers[0] as number, worker: started.worker as number };
      assert.deepEqual(started.servers, [children.server]);
      const pids = (message: string) =>
        logLines(server)
          .filter((line) => line.msg === message)
          .map((line) => line.pid);
      assert.deepEqual(pids('immogate listening'), [children.server]);
      assert.deepEqual(pids('worker started'), [children.worker]);
      assert.notEqual(children.worker, children.server);
      assert.equal(parentOf(children.server), server.pid);
      assert.equal(parentOf(children.worker), server.pid);
      const primaryNiceness = threadNiceness(server.pid)[0]!;
      assert.deepEqual([...new Set(threadNiceness(children.server))], [primaryNiceness]);
      assert.deepEqual([...new Set(threadNiceness(children.worker))], [Math.min(19, primaryNiceness + 10)]);
      // The server's load reaches the worker through the primary (work/requestsFirst.ts), every quarter second.
      const heard = await waitForLog(server, 'the worker to hear the servers', (line) =>
        String(line.msg).startsWith('the worker hears the load'),
      );
      assert.deepEqual({ pid: heard.pid, pace: heard.pace }, { pid: children.worker, pace: 20 });

      const token = ((await tokenRequest(server.base, demo.clientId, demo.secret)).body as { access_token: string }).access_token;
      const headers = { authorization: `Bearer ${token}` };
      const created = await http('POST', `${server.base}/sandbox/caas/v4/classifieds`, { headers, body: minimalClassified() });
      assert.equal(created.status, 202, created.text);
      const id = (created.body as { classifiedId: string }).classifiedId;
      const latest = () => http('GET', `${server.base}/sandbox/caas/v4/classifieds/${id}/statuses?filter=latest&limit=1`, { headers });
      await waitUntil(
        'the classified processed',
        async () => ['accepted', 'rejected'].includes(((await latest()).body as { items: { stage: string }[] }).items[0]?.stage ?? ''),
        server,
      );
      const answer = await latest();
      assert.equal(answer.status, 200);
      const [status] = (answer.body as { items: Record<string, unknown>[] }).items;
      assert.deepEqual({ stage: status?.stage, status: status?.status }, { stage: 'accepted', status: 'CREATED' });
    },
  );

  it('a CLI command joins the running database and leaves it running', STEP, async () => {
    const result = await runCli(['clients', 'list', '--json'], embeddedEnv());
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const clients = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      clients.map((client) => ({
        clientId: client.clientId,
        name: client.name,
        scopes: client.scopes,
        intermediaries: client.intermediaries,
      })),
      [{ clientId: demo.clientId, name: 'sandbox demo client', scopes: ['caas:*', 'clim:*', 'leads:*'], intermediaries: ['demo-agency'] }],
    );
    assert.equal(postmasterPid(), postgresPid);
    assert.equal(alive(postgresPid), true);
    assert.equal(await isReady(server), true);
    assert.equal((await tokenRequest(server.base, demo.clientId, demo.secret)).status, 200);
  });

  it('immogate url and token find the server of DATA_DIR without --url or PORT', STEP, async () => {
    assert.deepEqual(await runCli(['url'], embeddedEnv()), { code: 0, stdout: `${server.base}\n`, stderr: '' });
    const token = await runCli(['token', '--api', 'caas', '--agency', 'demo-agency'], embeddedEnv());
    assert.equal(token.stderr, '');
    const classifieds = await http('GET', `${server.base}/sandbox/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${token.stdout.trim()}` },
    });
    assert.equal(classifieds.status, 200);
  });

  it('SIGTERM: the server and the worker drain, the process exits 0 and stops the embedded database', STEP, async () => {
    assert.deepEqual(await stop(server), { code: 0, signal: null });
    assert.equal(alive(children.server), false);
    assert.equal(alive(children.worker), false);
    assert.equal(alive(postgresPid), false);
    assert.equal(fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid')), false);
    const everyone = (message: string) =>
      logLines(server)
        .filter((line) => line.msg === message)
        .map((line) => line.pid ?? 'primary')
        .sort();
    const all = ['primary', children.server, children.worker].sort();
    assert.deepEqual(everyone('shutting down: draining requests and jobs'), all);
    assert.deepEqual(everyone('stopped'), all);
    // The database stopped after both children: the primary's line is the last.
    assert.deepEqual({ msg: logLines(server).at(-1)?.msg, pid: logLines(server).at(-1)?.pid }, { msg: 'stopped', pid: undefined });
    assert.equal(server.stderr, '');
  });

  it('a second start reuses the data: no first-run message, the client still works', STEP, async () => {
    server = await start(['start'], embeddedEnv());
    await waitReady(server);
    assert.doesNotMatch(server.stdout, /First start/);
    assert.equal((await tokenRequest(server.base, demo.clientId, demo.secret)).status, 200);
    postgresPid = postmasterPid();
  });

  it(
    'after a crash (SIGKILL) the database keeps running, the children exit; the next start adopts it and stops it on SIGTERM',
    STEP,
    async () => {
      const started = await waitForLog(server, 'all processes started', (line) => line.msg === 'all processes started');
      const orphans = [...(started.servers as number[]), started.worker as number];
      assert.deepEqual(await stop(server, 'SIGKILL'), { code: null, signal: 'SIGKILL' });
      assert.equal(alive(postgresPid), true);
      await waitUntil('the children to exit with their parent', () => !orphans.some(alive), undefined, 100);

      server = await start(['start'], embeddedEnv());
      await waitReady(server);
      assert.equal(postmasterPid(), postgresPid);
      assert.equal((await tokenRequest(server.base, demo.clientId, demo.secret)).status, 200);
      assert.deepEqual(await stop(server), { code: 0, signal: null });
      await waitUntil('the adopted database to stop', () => !alive(postgresPid), undefined, 100);
    },
  );
});

describe('immogate server and immogate worker as separate processes on DATABASE_URL', () => {
  let database: TestDatabase;
  let pool: Pool;
  let servers: Immogate[];
  let worker: Immogate;

  before(async () => {
    // Empty: the three processes starting at once must migrate it safely between them.
    database = await createTestDatabase({ empty: true });
  });

  after(async () => {
    await pool?.end();
    await database.drop();
  });

  it('two servers and a worker start together on an empty database; both servers answer', STEP, async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: '/nonexistent' };
    [servers, worker] = await Promise.all([Promise.all([start(['server'], env), start(['server'], env)]), start(['worker'], env)]);
    await Promise.all(servers.map((server) => waitReady(server)));
    await waitUntil('the worker to start', () => worker.stdout.includes('"msg":"worker started"'), worker);
    pool = createPool(database.url, 2);

    // Migrated once, and one sandbox client announced by exactly one of them.
    const announced = [...servers, worker].filter((running) => running.stdout.includes('First start:'));
    assert.equal(announced.length, 1);
    const { rows } = await pool.query<{ name: string }>('SELECT name FROM clients');
    assert.deepEqual(rows, [{ name: 'sandbox demo client' }]);
    const a = await http('GET', `${servers[0]?.base}/.well-known/jwks.json`);
    const b = await http('GET', `${servers[1]?.base}/.well-known/jwks.json`);
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body);
  });

  it('the worker process runs the periodic tasks when they are due', STEP, async () => {
    const client = await makeClient(pool, ['agency-1'], ['caas:*']);
    await pool.query(
      `INSERT INTO token_issuance (jti, client_id, audience, intermediary_id, scope, issued_at) VALUES
         (gen_random_uuid(), $1, 'old', 'agency-1', 'caas:*', now() - interval '100 days'),
         (gen_random_uuid(), $1, 'recent', 'agency-1', 'caas:*', now() - interval '1 day')`,
      [client.clientId],
    );
    const due = await pool.query<{ at: Date }>(
      "UPDATE scheduled_tasks SET next_run_at = now() WHERE name = 'platform:prune_token_issuance' RETURNING now() AS at",
    );
    await waitUntil(
      'the task to run',
      async () =>
        (
          await pool.query("SELECT 1 FROM scheduled_tasks WHERE name = 'platform:prune_token_issuance' AND last_finished_at > $1", [
            due.rows[0]!.at,
          ])
        ).rowCount === 1,
      worker,
    );
    const { rows } = await pool.query('SELECT audience FROM token_issuance WHERE client_id = $1', [client.clientId]);
    assert.deepEqual(rows, [{ audience: 'recent' }]);
    assert.match(worker.stdout, /"deleted":1,"msg":"pruned token issuance records"/);
    for (const server of servers) assert.doesNotMatch(server.stdout, /pruned token issuance records/);
  });

  it('SIGTERM stops each process with exit 0', STEP, async () => {
    const exits = await Promise.all([...servers, worker].map((running) => stop(running)));
    assert.deepEqual(exits, [
      { code: 0, signal: null },
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    for (const running of [...servers, worker]) assert.match(running.stdout, /"msg":"stopped"/);
  });
});
