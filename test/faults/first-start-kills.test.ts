/*
 * The embedded PostgreSQL killed (kill -9 of its postmaster) at moments of a first `immogate
 * start` on a fresh DATA_DIR: as its postmaster.pid appears, 150 ms and 300 ms later, while the
 * primary migrates, and as the server process is about to listen (its worker process still
 * starting). Before, such a kill crashed the process on an 'error' event nobody listened for, or
 * stopped the whole start ("a process failed to start: stopping"). Each run must now end ready,
 * with a postmaster started again in place of the one killed, without a stack trace, and stop
 * cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { alive } from '../../src/platform/db/embedded.js';
import { listMigrations } from '../../src/platform/db/migrate.js';
import { freePort } from '../helpers.js';
import { embeddedUrl, killLaunched, launch, postmasterPid, removeDataDir, stop, temporaryDataDir, waitReady } from '../processes.js';

const MIGRATIONS = listMigrations().length;
const dataDirs: string[] = [];

after(async () => {
  await killLaunched();
  for (const dir of dataDirs) await removeDataDir(dir);
});

/** The number `query` answers on the embedded database of `dataDir`, polled on one connection until `wanted` accepts it. */
async function pollDatabase(dataDir: string, query: string, wanted: (n: number) => boolean, deadline: number): Promise<number> {
  let client: pg.Client | undefined;
  try {
    for (;;) {
      if (Date.now() > deadline) throw new Error(`no answer to ${query} in time`);
      try {
        if (!client) {
          const candidate = new pg.Client({ connectionString: embeddedUrl(dataDir) });
          candidate.on('error', () => undefined);
          client = candidate;
          await candidate.connect();
        }
        const { rows } = await client.query<{ n: number }>(query);
        const n = rows[0]?.n ?? 0;
        if (wanted(n)) return n;
      } catch {
        // Not there yet (no pid file, no database, no table): tried again, on a new connection.
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await sleep(5);
    }
  } finally {
    await client?.end().catch(() => undefined);
  }
}

async function pidFileAppears(dataDir: string, deadline: number): Promise<number> {
  for (;;) {
    const pid = postmasterPid(dataDir);
    if (pid !== undefined) return pid;
    if (Date.now() > deadline) throw new Error('no postmaster.pid in time');
    await sleep(2);
  }
}

interface Moment {
  name: string;
  /** Resolves when the postmaster should die, with what was seen then. */
  reached(dataDir: string, deadline: number): Promise<string>;
}

const afterPidFile = (ms: number): Moment => ({
  name: ms === 0 ? 'as postmaster.pid appears' : `${ms} ms after postmaster.pid appears`,
  async reached(dataDir, deadline) {
    await pidFileAppears(dataDir, deadline);
    await sleep(ms);
    return '';
  },
});

const MOMENTS: Moment[] = [
  afterPidFile(0),
  afterPidFile(150),
  afterPidFile(300),
  {
    name: 'while the primary migrates',
    async reached(dataDir, deadline) {
      const applied = await pollDatabase(dataDir, 'SELECT count(*)::int AS n FROM immogate_migrations', (n) => n > 0, deadline);
      return `${applied} of ${MIGRATIONS} migrations applied`;
    },
  },
  {
    name: 'as the server process is about to listen',
    async reached(dataDir, deadline) {
      // Recorded just before it listens (src/platform/listeners.ts).
      await pollDatabase(dataDir, 'SELECT count(*)::int AS n FROM server_listeners', (n) => n > 0, deadline);
      return '';
    },
  },
];

describe('the embedded PostgreSQL killed during a first immogate start', () => {
  for (const moment of MOMENTS) {
    it(`${moment.name}: ready on a restarted postmaster, no stack, stops cleanly`, { timeout: 60_000 }, async (t: TestContext) => {
      const dataDir = temporaryDataDir('immogate-first-kill-');
      dataDirs.push(dataDir);
      const server = launch(['start'], await freePort(), { DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'info' });
      const seen = await moment.reached(dataDir, Date.now() + 30_000);
      const killed = postmasterPid(dataDir);
      assert.ok(killed !== undefined);
      process.kill(killed, 'SIGKILL');
      const killedMs = Date.now() - server.startedAt;

      const readyMs = await waitReady(server, 45_000);
      const restarted = postmasterPid(dataDir);
      assert.ok(restarted !== undefined && restarted !== killed && alive(restarted), 'a new postmaster serves');
      // Told once, however many tries; none only if the kill took the answer to its COMMIT (the secret is then lost).
      const told = server.stdout.match(/^First start: /gm)?.length ?? 0;
      const clientRetried = server.stdout.includes('"step":"creating the first client"');
      assert.ok(told === 1 || (told === 0 && clientRetried), server.stdout);
      assert.doesNotMatch(server.stdout + server.stderr, /^\s+at |Uncaught|unhandled/im);
      assert.doesNotMatch(server.stdout, /a process failed to start/);

      assert.deepEqual(await stop(server), { code: 0, signal: null });
      assert.equal(alive(restarted), false, 'the postmaster was stopped with immogate');
      assert.equal(fs.existsSync(path.join(dataDir, 'postgres', 'owner.pid')), false);
      const retries = server.stdout.split('\n').filter((line) => line.includes('"msg":"database unavailable at start')).length;
      t.diagnostic(
        `killed ${killedMs} ms after launch${seen ? ` (${seen})` : ''}; ready ${readyMs} ms after launch; ${retries} start step(s) retried`,
      );
    });
  }
});
