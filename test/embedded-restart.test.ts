/*
 * Restarts of the embedded PostgreSQL after a crash. A postmaster killed with kill -9 stays a
 * zombie until something reaps it, and PostgreSQL counts a zombie named in postmaster.pid as a
 * running server; the next start must succeed on its first try all the same. (The whole crash,
 * immogate and its PostgreSQL killed under load and restarted, is crash-recovery.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { alive, openEmbedded } from '../src/platform/db/embedded.js';
import { freePort } from './helpers.js';
import { postmasterPid, removeDataDir, runCli, temporaryDataDir, waitUntil } from './processes.js';

const STEP = { timeout: 120_000 };

const dataDirs: string[] = [];
const children: ChildProcess[] = [];

const pidFile = (dataDir: string) => path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid');
const processState = (pid: number) => /^\d+ \(.*\) (\S)/s.exec(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];

after(async () => {
  // Only what a failed step left running: processes first, then the clusters' postmasters.
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dataDirs) await removeDataDir(dir);
});

describe('embedded PostgreSQL restarts after a crash', () => {
  it('a stale postmaster.pid naming a zombie: the cluster starts on the first try', STEP, async () => {
    const dataDir = temporaryDataDir('immogate-restart-');
    dataDirs.push(dataDir);
    const first = await openEmbedded(dataDir);
    assert.equal(first.owned, true);
    const crashed = fs.readFileSync(pidFile(dataDir), 'utf8');
    const { uid, gid } = fs.statSync(pidFile(dataDir));
    await first.stop();
    assert.equal(fs.existsSync(pidFile(dataDir)), false);

    // A child that exits at once stays a zombie: its parent never waits for it (a shell might reap
    // it before exec'ing something that does not, so the parent is perl, which reaps only on wait).
    // It runs as the user PostgreSQL runs as, whose kill(pid, 0) on it then succeeds, as on the
    // zombie of a killed postmaster.
    const user = process.getuid?.() === 0 ? { uid, gid } : {};
    const parent = spawn('perl', ['-e', '$| = 1; my $child = fork() // die; exit 0 unless $child; print "$child\\n"; sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      ...user,
    });
    children.push(parent);
    let output = '';
    parent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil('the pid of the zombie', () => output.endsWith('\n'), undefined, 100);
    const zombie = Number(output.trim());
    await waitUntil(`process ${zombie} to become a zombie`, () => processState(zombie) === 'Z', undefined, 100);
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
      assert.equal(alive(pid!), true);
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
});

describe('embedded PostgreSQL under a directory its user may not enter', () => {
  // Only as root does PostgreSQL run as another user (postgres), who may be shut out.
  const asRoot = { ...STEP, skip: process.getuid?.() === 0 ? false : 'runs as root only' };

  it('immogate start names the closed directory and what to do, and exits 1', asRoot, async () => {
    const closed = temporaryDataDir('immogate-closed-');
    dataDirs.push(closed);
    fs.chmodSync(closed, 0o700);
    const dataDir = path.join(closed, 'data');
    const result = await runCli(['start'], { DATA_DIR: dataDir, PORT: String(await freePort()) });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        `immogate: error: the embedded PostgreSQL runs as the user postgres (it refuses to run as root), which may not enter ${closed}: ` +
        'chmod o+x it, or choose another DATA_DIR\n',
    });
  });
});
