/*
 * `immogate url` and `immogate token` name only a server that answers now and proves it serves
 * this database: never one killed with kill -9 (its record stays), never the source's address
 * after a restore; a second server on the same database at another PUBLIC_URL is warned about,
 * and a token of one refused by the other names both issuers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { assertProblem, createTestDatabase, freePort, http, type TestDatabase } from './helpers.js';
import { demoToken } from './pipeline.js';
import {
  demoClientOf,
  killLaunched,
  launch,
  removeDataDir,
  runCli,
  stop,
  temporaryDataDir,
  waitForLog,
  waitReady,
  waitUntil,
} from './processes.js';

const databases: TestDatabase[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

after(async () => {
  await killLaunched();
  for (const cleanup of cleanups) await cleanup();
  for (const database of databases) await database.drop();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

const NO_SERVER = (why: string, otherwise = 'set PUBLIC_URL') =>
  `immogate: no running immogate serves this database (${why}): start one (immogate start), or ${otherwise}\n`;

describe('immogate url names only a server that answers now', () => {
  it('a live server; after kill -9 of it, none: url and token say so and exit 1', async () => {
    const database = await freshDatabase();
    const env = { DATABASE_URL: database.url };
    const server = launch(['server'], await freePort(), env);
    await waitReady(server);
    assert.deepEqual(await runCli(['url'], env), { code: 0, stdout: `${server.base}\n`, stderr: '' });

    assert.deepEqual(await stop(server, 'SIGKILL'), { code: null, signal: 'SIGKILL' });
    const hostPort = server.base.slice('http://'.length);
    const killed = NO_SERVER(`${server.base} could not be asked whether it serves this database (connect ECONNREFUSED ${hostPort})`);
    assert.deepEqual(await runCli(['url'], env), { code: 1, stdout: '', stderr: killed });
    assert.deepEqual(await runCli(['token', '--api', 'caas', '--agency', 'demo-agency'], env), {
      code: 1,
      stdout: '',
      stderr: killed.replace('set PUBLIC_URL', 'give its --url (or PUBLIC_URL)'),
    });
  });

  it("after a restore into a fresh DATA_DIR, not the source's server, which still runs", async () => {
    const database = await freshDatabase();
    const source = launch(['server'], await freePort(), { DATABASE_URL: database.url });
    await waitReady(source);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-url-backup-'));
    const dataDir = temporaryDataDir('immogate-url-restored-');
    cleanups.push(
      () => fs.rmSync(dir, { recursive: true, force: true }),
      () => removeDataDir(dataDir),
    );
    const file = path.join(dir, 'backup.gz');
    const backup = await runCli(['backup', '--to', file], { DATABASE_URL: database.url });
    assert.equal(backup.code, 0, backup.stderr);
    const restored = { DATABASE_URL: undefined, DATA_DIR: dataDir };
    const restore = await runCli(['restore', '--from', file], restored);
    assert.equal(restore.code, 0, restore.stderr);

    assert.deepEqual(await runCli(['url'], restored), { code: 1, stdout: '', stderr: NO_SERVER('none is recorded') });
    // The source still answers for its own database.
    assert.deepEqual(await runCli(['url'], { DATABASE_URL: database.url }), { code: 0, stdout: `${source.base}\n`, stderr: '' });
    assert.deepEqual(await stop(source), { code: 0, signal: null });
  });
});

describe('a second server on the same database at another PUBLIC_URL', () => {
  it('is warned about; url names it, with the first on stderr; a token of one is refused by the other naming both issuers', async () => {
    const database = await freshDatabase();
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'info' };
    const first = launch(['server'], await freePort(), env);
    await waitReady(first);
    await waitUntil('the first-start banner', () => first.stdout.includes('client_secret:'), first);
    const demo = demoClientOf(first.stdout);

    const second = launch(['server'], await freePort(), env);
    await waitReady(second);
    const warning = await waitForLog(second, 'warning of the first server', (line) => line.level === 40 && Array.isArray(line.others));
    assert.deepEqual(
      [warning.publicUrl, warning.others, warning.msg],
      [
        second.base,
        [first.base],
        'another server serves this database at another PUBLIC_URL: each refuses the tokens the other issues (another issuer), and immogate url and token now name this one, started last; give them one PUBLIC_URL, or each a database of its own',
      ],
    );
    assert.deepEqual(await runCli(['url'], env), {
      code: 0,
      stdout: `${second.base}\n`,
      stderr: `note: servers at other URLs serve this database too (${first.base}); each refuses the tokens of the others\n`,
    });

    const token = await runCli(['token', '--api', 'caas', '--agency', 'demo-agency'], env);
    assert.equal(token.code, 0, token.stderr);
    const refused = await http('GET', `${first.base}/sandbox/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${token.stdout.trim()}` },
    });
    assertProblem(
      refused,
      401,
      'Unauthorized',
      `The access token is not valid: the token's issuer is ${second.base}, expected ${first.base}`,
    );
    // The first still serves its own tokens.
    await demoToken(first.base, demo, '/sandbox/caas/v4');
    assert.deepEqual(await stop(second), { code: 0, signal: null });
    assert.deepEqual(await stop(first), { code: 0, signal: null });
  });
});
