/**
 * Restarts of the embedded PostgreSQL after a crash. A postmaster killed with kill -9 stays a
 * zombie until something reaps it, and PostgreSQL counts a zombie named in postmaster.pid as a
 * running server; the next start must succeed on its first try all the same.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { alive, openEmbedded } from '../src/platform/db/embedded.js';
import { freePort } from './helpers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const STEP = { timeout: 120_000 };

const dataDirs: string[] = [];
const children: ChildProcess[] = [];

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-restart-'));
  // PostgreSQL refuses to run as root, so it runs as another user that must reach the directory.
  fs.chmodSync(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

const pidFile = (dataDir: string) => path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid');
const postmasterPid = (dataDir: string) => Number(fs.readFileSync(pidFile(dataDir), 'utf8').split('\n')[0]);
const processState = (pid: number) => /^\d+ \(.*\) (\S)/s.exec(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await check()) return;
    await sleep(100);
  }
  assert.fail(`${what}: still not true after ${attempts} attempts`);
}

after(async () => {
  // Only what a failed step left running: processes first, then the clusters' postmasters.
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dataDirs) {
    if (fs.existsSync(pidFile(dir))) {
      const pid = postmasterPid(dir);
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGINT');
      for (let i = 0; i < 100 && pid > 0 && alive(pid); i += 1) await sleep(100);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('embedded PostgreSQL restarts after a crash', () => {
  it('a stale postmaster.pid naming a zombie: the cluster starts on the first try', STEP, async () => {
    const dataDir = tempDataDir();
    const first = await openEmbedded(dataDir);
    assert.equal(first.owned, true);
    const crashed = fs.readFileSync(pidFile(dataDir), 'utf8');
    const { uid, gid } = fs.statSync(pidFile(dataDir));
    await first.stop();
    assert.equal(fs.existsSync(pidFile(dataDir)), false);

    // `sleep 0` exits at once and stays a zombie: its parent, now `sleep 60`, never reaps it. It
    // runs as the user PostgreSQL runs as, whose kill(pid, 0) on it then succeeds, as on the
    // zombie of a killed postmaster.
    const user = process.getuid?.() === 0 ? { uid, gid } : {};
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'], ...user });
    children.push(parent);
    let output = '';
    parent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil('the pid of the zombie', () => output.endsWith('\n'), 100);
    const zombie = Number(output.trim());
    await waitUntil(`process ${zombie} to become a zombie`, () => processState(zombie) === 'Z', 100);
    assert.equal(processState(zombie), 'Z');
    assert.equal(alive(zombie), false);

    fs.writeFileSync(pidFile(dataDir), crashed.replace(/^\d+\n/, `${zombie}\n`), { mode: 0o600 });
    fs.chownSync(pidFile(dataDir), uid, gid);
    assert.equal(postmasterPid(dataDir), zombie);

    const logPath = path.join(dataDir, 'postgres', 'postgres.log');
    const logBefore = fs.statSync(logPath).size;
    const second = await openEmbedded(dataDir);
    try {
      assert.equal(second.owned, true);
      // On the first try: one postmaster started, and nothing refused.
      const log = fs.readFileSync(logPath, 'utf8').slice(logBefore);
      assert.equal(log.match(/LOG: {2}starting PostgreSQL/g)?.length, 1);
      assert.doesNotMatch(log, /lock file|shared memory/);
      const pid = postmasterPid(dataDir);
      assert.notEqual(pid, zombie);
      assert.equal(alive(pid), true);
      const client = new pg.Client({ connectionString: second.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ answer: number }>('SELECT 41 + 1 AS answer');
        assert.deepEqual(rows, [{ answer: 42 }]);
        // A failed statement is logged without the data it was about.
        assert.deepEqual((await client.query('SHOW log_error_verbosity')).rows, [{ log_error_verbosity: 'terse' }]);
        await client.query('CREATE TEMPORARY TABLE people (email text UNIQUE)');
        await client.query('INSERT INTO people VALUES ($1)', ['erase.me@example.com']);
        await assert.rejects(client.query('INSERT INTO people VALUES ($1)', ['erase.me@example.com']), { code: '23505' });
        const logged = fs.readFileSync(logPath, 'utf8').slice(logBefore);
        assert.match(logged, /ERROR: {2}duplicate key value violates unique constraint "people_email_key"\n/);
        assert.doesNotMatch(logged, /erase\.me/);
      } finally {
        await client.end();
      }
    } finally {
      await second.stop();
      parent.kill('SIGKILL');
    }
    assert.equal(fs.existsSync(pidFile(dataDir)), false);
  });

  it('immogate and its PostgreSQL killed with kill -9: each next start is ready on the first try', STEP, async () => {
    const dataDir = tempDataDir();
    const launch = async () => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
      delete env.DATABASE_URL;
      const child = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      const running = {
        child,
        base: `http://127.0.0.1:${port}`,
        output: '',
        exited: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
          child.once('exit', (code, signal) => resolve({ code, signal })),
        ),
      };
      child.stdout?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
      return running;
    };
    const ready = async (running: Awaited<ReturnType<typeof launch>>) => {
      await waitUntil(`${running.base}/ready`, async () => {
        if (running.child.exitCode !== null) assert.fail(`the start exited (${running.child.exitCode}):\n${running.output}`);
        try {
          const response = await fetch(`${running.base}/ready`);
          await response.arrayBuffer();
          return response.status === 200;
        } catch {
          return false;
        }
      });
    };

    let server = await launch();
    await ready(server);
    for (let crash = 1; crash <= 3; crash += 1) {
      const postgres = postmasterPid(dataDir);
      assert.equal(alive(postgres), true);
      server.child.kill('SIGKILL');
      process.kill(postgres, 'SIGKILL');
      assert.deepEqual(await server.exited, { code: null, signal: 'SIGKILL' });

      server = await launch();
      await ready(server);
      assert.notEqual(postmasterPid(dataDir), postgres, `crash ${crash}`);
      assert.equal(alive(postmasterPid(dataDir)), true);
    }

    const postgres = postmasterPid(dataDir);
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.equal(alive(postgres), false);
    assert.equal(fs.existsSync(pidFile(dataDir)), false);
  });
});
