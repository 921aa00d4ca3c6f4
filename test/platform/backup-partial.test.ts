/*
 * The temporary file of `immogate backup` (FILE.<pid>.partial): gone when the backup ends early,
 * by SIGTERM or SIGINT while it writes or by an error (its connection ended under it), with one
 * line saying why; and one left by a backup that was killed outright is removed by the next
 * backup to the same file, unless its process still runs.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers.js';
import { CLI, childEnv, runCli, temporaryDataDir } from '../processes.js';

const STEP = { timeout: 60_000 };
/** Enough rows that the backup writes for a second or more, to be caught at it. */
const ROWS = 300_000;

let database: TestDatabase;
const work = temporaryDataDir('immogate-backup-partial-');
const children: ChildProcess[] = [];

before(async () => {
  database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO server_listeners (instance_id, public_url)
        SELECT gen_random_uuid(), 'http://' || md5(n::text) || '.example.org:8080' FROM generate_series(1, $1::int) AS n`,
      [ROWS],
    );
  } finally {
    await client.end();
  }
});

after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await database?.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stderr: string;
  exited: Promise<number | null>;
}

function startBackup(file: string): Run {
  const child = spawn(process.execPath, [CLI, 'backup', '--to', file], {
    env: childEnv({ DATABASE_URL: database.url }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const run: Run = { child, stderr: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  child.stdout?.resume();
  return run;
}

/** Waits until the backup's partial file exists (it is writing); fails if the backup ends first. */
async function partialAppears(run: Run, file: string): Promise<string> {
  const partial = `${file}.${run.child.pid}.partial`;
  for (;;) {
    if (fs.existsSync(partial)) return partial;
    assert.equal(run.child.exitCode, null, `the backup ended before its partial file was seen:\n${run.stderr}`);
    await sleep(5);
  }
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

/** A pid that no process has: one that has just exited. */
function deadPid(): number {
  const done = spawnSync('true');
  assert.ok(done.pid);
  return done.pid;
}

describe('the partial file of immogate backup', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} while it writes: the partial file goes, no backup file, one line, exit 1`, STEP, async () => {
      const file = path.join(work, `signal-${signal}.backup`);
      const run = startBackup(file);
      const partial = await partialAppears(run, file);
      run.child.kill(signal);
      assert.equal(await run.exited, 1);
      assert.equal(lastLine(run.stderr), `immogate: interrupted by ${signal}: ${file} was not written`);
      assert.doesNotMatch(run.stderr, /^\s+at /m);
      assert.equal(fs.existsSync(partial), false);
      assert.equal(fs.existsSync(file), false);
    });
  }

  it('its connection ended under it: the partial file goes, one line, exit 1', STEP, async () => {
    const file = path.join(work, 'terminated.backup');
    const run = startBackup(file);
    const partial = await partialAppears(run, file);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Ended while it copies the big table: its COPY fails with the server's reason.
      for (;;) {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE 'COPY "server_listeners"%'`,
          [database.name],
        );
        if (rows.length > 0) break;
        assert.equal(run.child.exitCode, null, `the backup ended before its COPY was seen:\n${run.stderr}`);
        await sleep(5);
      }
    } finally {
      await admin.end();
    }
    assert.equal(await run.exited, 1);
    // The server's reason, or, when the socket's end is read before the reason the server sent
    // (a busy machine), the client's: either names the connection's end, in one line.
    assert.match(
      lastLine(run.stderr) ?? '',
      /^immogate: error: (terminating connection due to administrator command|Connection terminated unexpectedly)$/,
    );
    assert.doesNotMatch(run.stderr, /^\s+at /m);
    assert.equal(fs.existsSync(partial), false);
    assert.equal(fs.existsSync(file), false);
  });

  it('the next backup to a file removes the partial files left by backups that died, not those of one that runs', STEP, async () => {
    const file = path.join(work, 'next.backup');
    const dead = `${file}.${deadPid()}.partial`;
    // This test's process stands for a backup still under way.
    const running = `${file}.${process.pid}.partial`;
    const otherTarget = path.join(work, `other.backup.${deadPid()}.partial`);
    for (const left of [dead, running, otherTarget]) fs.writeFileSync(left, 'left over');

    const result = await runCli(['backup', '--to', file], { DATABASE_URL: database.url });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.existsSync(file), true);
    assert.equal(fs.existsSync(dead), false, 'the partial file of a backup that died is removed');
    assert.equal(fs.existsSync(running), true, 'the partial file of a backup that runs is left');
    assert.equal(fs.existsSync(otherTarget), true, 'the partial files of another file are left');
    assert.deepEqual(
      fs.readdirSync(work).filter((name) => name.startsWith('next.backup')),
      ['next.backup', path.basename(running)].sort(),
    );
  });
});
