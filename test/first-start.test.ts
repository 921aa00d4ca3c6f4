/*
 * A first `immogate start` as a newcomer meets it. On a PORT already taken it fails saying so and
 * leaves no client behind, so that the next start creates the sandbox client and shows its secret
 * (the secret is shown exactly once: never for a client removed unshown). The banner's command
 * runs as printed: `immogate` when the immogate on PATH is this one, else a path from the directory
 * the server was started in.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createPool } from '../src/platform/db/pool.js';
import { REPO_ROOT, createTestDatabase, freePort, type TestDatabase } from './helpers.js';
import { demoToken } from './pipeline.js';
import { childEnv, demoClientOf, killLaunched, launch, stop, waitReady, waitUntil, type Immogate } from './processes.js';

const databases: TestDatabase[] = [];
const directories: string[] = [];

after(async () => {
  await killLaunched();
  for (const database of databases) await database.drop();
  for (const dir of directories) fs.rmSync(dir, { recursive: true, force: true });
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

async function clientCount(database: TestDatabase): Promise<number> {
  const pool = createPool(database.url, 1);
  try {
    return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM clients')).rows[0]!.n;
  } finally {
    await pool.end();
  }
}

async function bannerOf(server: Immogate): Promise<string> {
  await waitReady(server);
  await waitUntil('the first-start banner', () => /^or, from this directory: .*$/m.test(server.stdout), server);
  return server.stdout;
}

describe('a first start on a PORT already taken', () => {
  for (const args of [['start'], ['start', '--inline-worker']]) {
    it(`immogate ${args.join(' ')}: exits 1 naming the port and leaves no client; the next start shows one whose secret gets a token`, async () => {
      const database = await freshDatabase();
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as net.AddressInfo).port;
      try {
        const failed = launch(args, port, { DATABASE_URL: database.url });
        assert.deepEqual(await failed.exited, { code: 1, signal: null });
        assert.equal(failed.stderr, `immogate: PORT: port ${port} is already in use on 127.0.0.1\n`);
        assert.doesNotMatch(failed.stdout, /client_secret|First start/);
        assert.equal(await clientCount(database), 0);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }

      const server = launch(args, port, { DATABASE_URL: database.url });
      const demo = demoClientOf(await bannerOf(server));
      assert.match(server.stdout, /^First start: created a sandbox client/m);
      await demoToken(server.base, demo, '/sandbox/caas/v4');
      assert.equal(await clientCount(database), 1);
      assert.deepEqual(await stop(server), { code: 0, signal: null });
    });
  }
});

/** Runs the shell command line `line` in `cwd` with `env` (the server's, as the user's shell would have it). */
function shell(
  line: string,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', line], { cwd, env: childEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+\n$/;

describe('the first-start banner prints a command that works as printed', () => {
  const nodeDir = path.dirname(process.execPath);

  it('immogate, when the immogate on PATH is this one (node_modules/.bin put on PATH)', async () => {
    const database = await freshDatabase();
    const env = { DATABASE_URL: database.url, PATH: `${path.join(REPO_ROOT, 'node_modules/.bin')}:${nodeDir}:/usr/bin:/bin` };
    const server = launch(['start'], await freePort(), env, { cwd: REPO_ROOT });
    const line = /^or, from this directory: (.*)$/m.exec(await bannerOf(server))![1]!;
    assert.equal(line, 'immogate token --api caas --env sandbox --agency demo-agency');
    const result = await shell(line, REPO_ROOT, env);
    assert.deepEqual([result.code, result.stderr], [0, '']);
    assert.match(result.stdout, JWT);
    assert.deepEqual(await stop(server), { code: 0, signal: null });
  });

  it("a path from the server's directory, when immogate is not on PATH or another one is found first", async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-elsewhere-'));
    directories.push(elsewhere);
    // Another immogate, found first on PATH: not this one.
    fs.mkdirSync(path.join(elsewhere, 'bin'));
    fs.writeFileSync(path.join(elsewhere, 'bin', 'immogate'), '#!/bin/sh\necho another immogate\n', { mode: 0o755 });
    const cwd = path.join(elsewhere, 'work');
    fs.mkdirSync(cwd);
    const relative = path.relative(cwd, path.join(REPO_ROOT, 'bin/immogate.js'));
    for (const PATH of [
      `${nodeDir}:/usr/bin:/bin`,
      `${path.join(elsewhere, 'bin')}:${path.join(REPO_ROOT, 'node_modules/.bin')}:${nodeDir}:/usr/bin:/bin`,
    ]) {
      const database = await freshDatabase();
      const env = { DATABASE_URL: database.url, PATH };
      const server = launch(['start'], await freePort(), env, { cwd });
      const line = /^or, from this directory: (.*)$/m.exec(await bannerOf(server))![1]!;
      assert.equal(line, `node ${relative} token --api caas --env sandbox --agency demo-agency`);
      const result = await shell(line, cwd, env);
      assert.deepEqual([result.code, result.stderr], [0, '']);
      assert.match(result.stdout, JWT);
      assert.deepEqual(await stop(server), { code: 0, signal: null });
    }
  });
});
