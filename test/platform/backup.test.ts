/*
 * immogate backup and immogate restore, as real CLI processes: a backup taken while leads keep
 * arriving, restored into a new database of the machine's PostgreSQL service (15 here, while the
 * suite's own databases are often the embedded 18) when one answers at 127.0.0.1:5432, else into
 * another fresh test database; a server started on it answers what the first one held, accepts
 * the first one's tokens (same key) and sends the delivery the first left pending. The same
 * backup into an empty DATA_DIR (a new embedded database); a backup of an older schema, brought
 * to HEAD after the load. Then the refusals: a target that is not empty, a backup of a newer
 * schema, a damaged, cut or foreign file, another key, an existing --to file.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { minimalClassified } from '../fixtures/classifieds.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { feedCaughtUp } from '../fixtures/feed.js';
import { leadRequest } from '../fixtures/leads.js';
import { Receiver } from '../fixtures/receiver.js';
import {
  assertProblem,
  createTestDatabase,
  databaseUrl,
  getToken,
  http,
  makeClient,
  REPO_ROOT,
  startTestServer,
  type HttpResult,
  type TestClient,
  type TestDatabase,
  type TestServer,
  TEST_SECRETS_KEY,
  waitFor,
} from '../helpers.js';
import { runCli, stopEmbeddedLeftover, temporaryDataDir, type CliResult } from '../processes.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { createPool } from '../../src/platform/db/pool.js';
import { kekId, parseKey } from '../../src/platform/secrets/sealer.js';

type Body = Record<string, any>;

const SERVICE_URL = process.env.CI_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY_ID = kekId(parseKey(TEST_SECRETS_KEY, 'key'));
const HEAD = Math.max(...listMigrations().map((migration) => migration.id));
const API_KEY = 'backup-test-api-key-0123456789';

// Open to others (0755): as root, the embedded PostgreSQL of the DATA_DIR restore runs as the user postgres.
const work = temporaryDataDir('immogate-backup-');
const sourceDataDir = path.join(work, 'source');
const targetDataDir = path.join(work, 'target');
const backupFile = path.join(work, 'immogate.backup');
const env = { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05' };

let source: TestDatabase;
let target: TestDatabase;
let server: TestServer;
let client: TestClient;
let receiver: Receiver;
const tokens = { caas: '', clim: '', leads: '' };

/** A new database on the PostgreSQL service when one answers, else a fresh (empty) test database. */
async function restoreTarget(): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: SERVICE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch {
    return createTestDatabase({ empty: true });
  }
  const name = `immogate_restore_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const drop = async () => {
    const again = new pg.Client({ connectionString: SERVICE_URL });
    await again.connect();
    await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await again.end();
  };
  return { name, url: databaseUrl(SERVICE_URL, name), drop };
}

function call(method: string, url: string, token: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${url}`, { headers: { authorization: `Bearer ${token}` }, body });
}

async function ok(result: Promise<HttpResult>, status: number): Promise<Body> {
  const answer = await result;
  assert.equal(answer.status, status, answer.text);
  return answer.body as Body;
}

const seeded: Record<string, string> = {};

/** What the seeded objects look like through the APIs: the same before the backup and after the restore. */
async function readBack(): Promise<Body> {
  const { caas, clim, leads } = tokens;
  return {
    classified: await ok(call('GET', `/caas/v4/classifieds/${seeded.classified}`, caas), 200),
    statuses: await ok(call('GET', `/caas/v4/classifieds/${seeded.classified}/statuses`, caas), 200),
    listing: await ok(call('GET', `/import-listings/v1/listings/${seeded.listing}`, clim), 200),
    lead: await ok(call('GET', `/seeker-leads/v1/leads/${seeded.lead}`, leads), 200),
    subscriptions: await ok(call('GET', '/seeker-leads/v1/webhook/subscriptions', leads), 200),
  };
}

/** The rows of server_listeners the backup holds (restore skips them). */
function listenerRowsInBackup(): number {
  const raw = zlib.gunzipSync(fs.readFileSync(backupFile));
  const magic = 'IMMOGATE-BACKUP\n'.length;
  const header = JSON.parse(raw.subarray(magic + 5, magic + 5 + raw.readUInt32BE(magic + 1)).toString());
  return (header.tables as { name: string; rows: number }[]).find((table) => table.name === 'server_listeners')?.rows ?? 0;
}

function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { DATA_DIR: sourceDataDir, DATABASE_URL: source.url, ...extra });
}

let before_: Body;
let feedBefore: Body;
let clientsBefore: unknown;
let leadsAcknowledged = 0;
let leadsBeforeBackup = 0;
let backupResult: CliResult;
let restoreResult: CliResult;

before(async () => {
  source = await createTestDatabase();
  target = await restoreTarget();
  receiver = await Receiver.start();
  // No worker: the lead's notification stays pending, for the restored server to send.
  server = await startTestServer(source, { env: { ...env, DATA_DIR: sourceDataDir } });
  client = await makeClient(server.pool, ['agency-1'], ['caas:*', 'clim:*', 'leads:*']);
  tokens.caas = await getToken(server, client, { root: '/caas/v4', intermediary: 'agency-1' });
  tokens.clim = await getToken(server, client, { root: '/import-listings/v1', intermediary: 'agency-1' });
  tokens.leads = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-1' });

  const classified = minimalClassified();
  classified.data.metaData.source.offererEstateId = 'BACKUP-1';
  seeded.classified = (await ok(call('POST', '/caas/v4/classifieds', tokens.caas, classified), 202)).classifiedId;
  await ok(
    call('PUT', '/caas/v4/webhooks', tokens.caas, { url: receiver.script('/hooks'), secret: 'a-receiver-secret-of-some-length' }),
    200,
  );
  const listing = berlinRentApartment() as Body;
  listing.metadata.source.offererEstateId = 'BACKUP-L1';
  await ok(call('POST', '/import-listings/v1/listings', tokens.clim, listing), 201);
  seeded.listing = 'BACKUP-L1';
  await ok(call('POST', '/seeker-leads/v1/webhook/subscriptions', tokens.leads, { url: receiver.script('/crm'), apiKey: API_KEY }), 201);
  const lead = await ok(call('POST', '/seeker-leads/v1/leads', tokens.leads, leadRequest({ email: 'seed@example.org' })), 200);
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM leads WHERE request_id = $1', [lead.requestId]);
  seeded.lead = rows[0]?.id ?? '';
  before_ = await readBack();
  await feedCaughtUp(server.pool);
  feedBefore = await ok(call('GET', '/seeker-leads/v1/events?limit=100', tokens.leads), 200);
  clientsBefore = JSON.parse((await cli(['clients', 'list', '--json'])).stdout);

  // Writes go on while the backup runs: a lead at a time, until it is done.
  fs.mkdirSync(path.join(sourceDataDir, 'blobs', 'objects', 'agency-1'), { recursive: true });
  fs.writeFileSync(path.join(sourceDataDir, 'blobs', 'objects', 'agency-1', 'photo.jpg'), randomBytes(300_000));
  leadsBeforeBackup = 1;
  let backingUp = true;
  const load = (async () => {
    while (backingUp) {
      const result = await call(
        'POST',
        '/seeker-leads/v1/leads',
        tokens.leads,
        leadRequest({ email: `load-${leadsAcknowledged}@example.org` }),
      );
      assert.equal(result.status, 200, result.text);
      leadsAcknowledged += 1;
    }
  })();
  while (leadsAcknowledged < 5) await new Promise((resolve) => setTimeout(resolve, 20));
  leadsBeforeBackup += leadsAcknowledged;
  backupResult = await cli(['backup', '--to', backupFile, '--with-blobs', '--json']);
  backingUp = false;
  await load;
  await server.close();

  restoreResult = await runCli(['restore', '--from', backupFile, '--json'], { DATABASE_URL: target.url, DATA_DIR: targetDataDir });
  // The restored server takes the first one's place: same address, so the tokens' audience is its own.
  server = await startTestServer(target, { worker: true, env: { ...env, DATA_DIR: targetDataDir, PORT: new URL(server.base).port } });
});

after(async () => {
  await server?.close();
  await receiver?.close();
  await source?.drop();
  await target?.drop();
  await stopEmbeddedLeftover(path.join(work, 'embedded'));
  fs.rmSync(work, { recursive: true, force: true });
});

describe('immogate backup while the server takes writes', () => {
  it('writes every table, the schema version and the key id (not the key), and reports it', () => {
    assert.equal(backupResult.code, 0, backupResult.stderr);
    const summary = JSON.parse(backupResult.stdout);
    assert.deepEqual(summary, {
      file: backupFile,
      bytes: fs.statSync(backupFile).size,
      schemaVersion: HEAD,
      secretsKeyId: KEY_ID,
      tables: summary.tables,
      rows: summary.rows,
      blobFiles: 1,
    });
    assert.ok(summary.tables >= 20, `${summary.tables} tables`);
    // Progress on stderr: a line per table when stderr is no terminal.
    assert.match(backupResult.stderr, /^backup leads: \d+\/\d+ rows$/m);
    assert.equal((fs.statSync(backupFile).mode & 0o777).toString(8), '600');
    const text = zlib.gunzipSync(fs.readFileSync(backupFile)).toString('latin1');
    assert.ok(!text.includes(TEST_SECRETS_KEY), 'the key is not in the backup');
  });
});

describe('immogate restore into a new database (of the PostgreSQL service when one answers)', () => {
  it('loads every row into the empty database and says so', () => {
    assert.equal(restoreResult.code, 0, restoreResult.stderr);
    const summary = JSON.parse(restoreResult.stdout);
    const backedUp = JSON.parse(backupResult.stdout);
    assert.deepEqual(summary, {
      file: backupFile,
      target: `PostgreSQL at ${new URL(target.url).host}`,
      schemaVersion: HEAD,
      migratedTo: [],
      // Where the backed-up servers listened is never restored (backup-untrusted.test.ts).
      tables: backedUp.tables - 1,
      rows: backedUp.rows - listenerRowsInBackup(),
      blobFiles: 1,
    });
    assert.match(restoreResult.stderr, /^restore leads: \d+\/\d+ rows$/m);
  });

  it('serves every classified, status, listing, lead and subscription, to the tokens issued before', async () => {
    // The restored server's worker goes on with the classified the first left unprocessed: its statuses grow.
    const { statuses, ...rest } = await readBack();
    const { statuses: statusesBefore, ...restBefore } = before_;
    assert.deepEqual(rest, restBefore);
    assert.ok(statusesBefore.items.length > 0);
    for (const item of statusesBefore.items)
      assert.ok(
        statuses.items.some((now: Body) => isDeepStrictEqual(now, item)),
        JSON.stringify(item),
      );
  });

  it('holds every client and the leads acknowledged before the backup began, and none it never acknowledged', async () => {
    assert.deepEqual(JSON.parse((await runCli(['clients', 'list', '--json'], { DATABASE_URL: target.url })).stdout), clientsBefore);
    const { rows } = await server.pool.query<{ count: number }>('SELECT count(*)::int AS count FROM leads');
    const count = rows[0]?.count ?? 0;
    assert.ok(leadsAcknowledged + 1 > leadsBeforeBackup, 'leads were written while the backup ran');
    assert.ok(
      count >= leadsBeforeBackup && count <= leadsAcknowledged + 1,
      `${count} leads: ${leadsBeforeBackup}..${leadsAcknowledged + 1}`,
    );
  });

  it("answers the feed's cursors of the database before with 410; from oldestCursor, the restored events, then the new ones", async () => {
    const gone = await call('GET', `/seeker-leads/v1/events?after=${feedBefore.next}`, tokens.leads);
    const oldestCursor = (gone.body as Body).oldestCursor as string;
    assertProblem(
      gone,
      410,
      'Gone',
      'This cursor belongs to the database before a restore from a backup; resume from oldestCursor, which reads every event ' +
        'kept again, and drop those already handled by their id.',
      { oldestCursor },
      'cursor-expired',
    );
    const fresh = await ok(call('POST', '/seeker-leads/v1/leads', tokens.leads, leadRequest({ email: 'after-restore@example.org' })), 200);
    const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM leads WHERE request_id = $1', [fresh.requestId]);
    await feedCaughtUp(server.pool);
    const ids: string[] = [];
    for (let after = oldestCursor; ; ) {
      const page = await ok(call('GET', `/seeker-leads/v1/events?limit=100&after=${after}`, tokens.leads), 200);
      if (page.events.length === 0) break;
      ids.push(...page.events.map((event: Body) => event.id));
      after = page.next;
    }
    // Every event read before the backup is there, in its order, and the new lead comes after all of them.
    const earlier = feedBefore.events.map((event: Body) => event.id);
    assert.deepEqual(
      ids.filter((id) => earlier.includes(id)),
      earlier,
    );
    assert.equal(ids.at(-1), rows[0]?.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('sends the notifications the first server left pending, with the subscription apiKey sealed under the same key', async () => {
    const received = await waitFor(
      'the pending lead notifications',
      async () => receiver.received.filter((request) => request.path === '/crm'),
      (requests) => requests.some((request) => JSON.parse(request.body).metadata?.leadId === seeded.lead),
    );
    const seed = received.find((request) => JSON.parse(request.body).metadata?.leadId === seeded.lead);
    assert.equal(seed?.headers['x-api-key'], API_KEY);
    // Its webhook-id is the id of its lead.received event: the lead's.
    assert.equal(seed?.headers['webhook-id'], seeded.lead);
  });

  it('writes the blobs back into DATA_DIR/blobs', () => {
    const name = path.join('blobs', 'objects', 'agency-1', 'photo.jpg');
    assert.deepEqual(fs.readFileSync(path.join(targetDataDir, name)), fs.readFileSync(path.join(sourceDataDir, name)));
    assert.equal((fs.statSync(path.join(targetDataDir, name)).mode & 0o777).toString(8), '600');
  });
});

describe('immogate restore into an empty DATA_DIR', () => {
  it('creates the embedded database there, loads the backup, and CLI commands find it', async () => {
    const dataDir = path.join(work, 'embedded');
    const restored = await runCli(['restore', '--from', backupFile, '--json'], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    assert.equal(restored.code, 0, restored.stderr);
    const summary = JSON.parse(restored.stdout);
    assert.equal(summary.target, `embedded PostgreSQL in ${dataDir}`);
    assert.equal(summary.rows, JSON.parse(backupResult.stdout).rows - listenerRowsInBackup());
    assert.deepEqual(
      JSON.parse((await runCli(['clients', 'list', '--json'], { DATA_DIR: dataDir, DATABASE_URL: undefined })).stdout),
      clientsBefore,
    );
  });
});

describe('immogate restore of a backup from an older immogate', () => {
  it("recreates the backup's schema exactly, loads it, then applies the newer migrations", async () => {
    // An immogate that knew one migration less: the shipped directory less its last file.
    const older = path.join(work, 'older-migrations');
    fs.mkdirSync(older);
    const all = listMigrations();
    const newest = all.at(-1);
    assert.ok(newest);
    for (const file of fs.readdirSync(path.join(REPO_ROOT, 'migrations'))) {
      if (!file.startsWith(String(newest.id).padStart(3, '0')))
        fs.copyFileSync(path.join(REPO_ROOT, 'migrations', file), path.join(older, file));
    }
    const old = await createTestDatabase({ empty: true });
    const fresh = await createTestDatabase({ empty: true });
    try {
      const pool = createPool(old.url, 1);
      await migrate(pool, { directory: older });
      await pool.end();
      const file = path.join(work, 'older.backup');
      const backedUp = await runCli(['backup', '--to', file], { DATABASE_URL: old.url, DATA_DIR: undefined });
      assert.equal(backedUp.code, 0, backedUp.stderr);
      const restored = await runCli(['restore', '--from', file, '--json'], { DATABASE_URL: fresh.url });
      assert.equal(restored.code, 0, restored.stderr);
      const summary = JSON.parse(restored.stdout);
      assert.deepEqual(
        [summary.schemaVersion, summary.migratedTo],
        // The one before the newest (ids may have gaps while branches add theirs).
        [all.at(-2)?.id, [`${String(newest.id).padStart(3, '0')}_${newest.name}`]],
      );
    } finally {
      await old.drop();
      await fresh.drop();
    }
  });
});

describe('immogate restore refuses', () => {
  it('a database that is not empty', async () => {
    const result = await runCli(['restore', '--from', backupFile], { DATABASE_URL: target.url, DATA_DIR: path.join(work, 'other') });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^immogate: PostgreSQL at [^ ]+ is not empty \(\d+ table\(s\), e\.g\. [a-z_, ]+\): restore only into an empty database, a new DATABASE_URL or an empty DATA_DIR\n$/,
    );
  });

  it('a backup of a newer schema than this immogate knows', async () => {
    const raw = zlib.gunzipSync(fs.readFileSync(backupFile));
    const magic = 'IMMOGATE-BACKUP\n'.length;
    const length = raw.readUInt32BE(magic + 1);
    const header = JSON.parse(raw.subarray(magic + 5, magic + 5 + length).toString());
    header.schemaVersion = HEAD + 1;
    header.migrations.push({ id: HEAD + 1, name: 'from_the_future' });
    header.immogate = '9.0.0';
    const payload = Buffer.from(JSON.stringify(header));
    const head = Buffer.alloc(5);
    head.write('H');
    head.writeUInt32BE(payload.length, 1);
    const newer = path.join(work, 'newer.backup');
    fs.writeFileSync(newer, zlib.gzipSync(Buffer.concat([raw.subarray(0, magic), head, payload, raw.subarray(magic + 5 + length)])));
    const empty = await createTestDatabase({ empty: true });
    try {
      const result = await runCli(['restore', '--from', newer], { DATABASE_URL: empty.url });
      const next = String(HEAD + 1).padStart(3, '0');
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr: `immogate: ${newer} is at schema version ${HEAD + 1} (immogate 9.0.0); this immogate knows up to ${HEAD} and not migration(s) ${next}_from_the_future: restore it with immogate 9.0.0 or newer\n`,
      });
    } finally {
      await empty.drop();
    }
  });

  it('a damaged file, a file cut short and a file that is no backup, leaving the target empty', async () => {
    const bytes = fs.readFileSync(backupFile);
    const cut = path.join(work, 'cut.backup');
    const content = zlib.gunzipSync(bytes);
    fs.writeFileSync(cut, zlib.gzipSync(content.subarray(0, 200_000)));
    // Cut inside a table's rows: the COPY under way must end (it once held the ROLLBACK for ever).
    const inRows = path.join(work, 'cut-in-rows.backup');
    // The table's record (after the header, which names it too), then 300 bytes into its rows.
    const leadsTable = content.lastIndexOf('{"name":"leads","columns"');
    assert.ok(leadsTable > content.indexOf('{"name":"leads","columns"'));
    fs.writeFileSync(inRows, zlib.gzipSync(content.subarray(0, leadsTable + content.readUInt32BE(leadsTable - 4) + 5 + 300)));
    const damaged = path.join(work, 'damaged.backup');
    const flipped = Buffer.from(bytes);
    for (let at = 2_000; at < 2_100; at++) flipped[at] = (flipped[at] ?? 0) ^ 0xff;
    // Past the tables, in the blob: found by gzip's check at the end, after rows went in (and were rolled back).
    const late = path.join(work, 'late.backup');
    const lateBytes = Buffer.from(bytes);
    for (let at = bytes.length - 5_000; at < bytes.length - 4_900; at++) lateBytes[at] = (lateBytes[at] ?? 0) ^ 0xff;
    fs.writeFileSync(late, lateBytes);
    fs.writeFileSync(damaged, flipped);
    const other = path.join(work, 'other.backup');
    fs.writeFileSync(other, zlib.gzipSync('hello, world\n'));
    const empty = await createTestDatabase({ empty: true });
    try {
      const run = (file: string) => runCli(['restore', '--from', file], { DATABASE_URL: empty.url });
      // The progress lines of the tables read before the damage come first; the error is the last line.
      const outcome = async (file: string) => {
        const result = await run(file);
        return { code: result.code, stdout: result.stdout, error: result.stderr.trimEnd().split('\n').at(-1) };
      };
      for (const file of [cut, inRows]) {
        assert.deepEqual(await outcome(file), {
          code: 1,
          stdout: '',
          error: `immogate: ${file} ends early: the backup is incomplete (cut short while written or copied?)`,
        });
      }
      for (const file of [damaged, late]) {
        const result = await outcome(file);
        assert.deepEqual([result.code, result.stdout], [1, '']);
        // Told by gzip's check, or by the garbage it gave out before its check came: the backup ids
        // and dates differ from run to run, so the bytes flipped fall on other data each time, and
        // the garbage reaches the record reader as a record of no known type, one in the wrong
        // place, or a record whose payload is no JSON, is too long or has the wrong shape.
        assert.match(
          result.error ?? '',
          new RegExp(
            `^immogate: ${file} is damaged(?: \\(.+\\): it is no complete immogate backup|: unknown record "."|: record "." where "." belongs|: a record "." .+)$`,
          ),
        );
      }
      for (const file of [other, path.join(REPO_ROOT, 'README.md')]) {
        assert.deepEqual(await run(file), { code: 1, stdout: '', stderr: `immogate: ${file} is no immogate backup\n` });
      }
      const admin = new pg.Client({ connectionString: empty.url });
      await admin.connect();
      const { rows } = await admin.query("SELECT count(*)::int AS count FROM pg_tables WHERE schemaname = 'public'");
      await admin.end();
      assert.deepEqual(rows, [{ count: 0 }]);
    } finally {
      await empty.drop();
    }
  });

  it('a key that does not open the secrets of the backup', async () => {
    const otherKey = randomBytes(32).toString('base64');
    const result = await runCli(['restore', '--from', backupFile], { DATABASE_URL: target.url, SECRETS_KEY: otherKey });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: `immogate: the backup's secrets are sealed with key ${KEY_ID}; this immogate's key is ${kekId(parseKey(otherKey, 'key'))}: restore with the SECRETS_KEY (or DATA_DIR/secrets.key) of the server that was backed up\n`,
    });
  });

  it('to write over an existing file', async () => {
    assert.deepEqual(await cli(['backup', '--to', backupFile]), {
      code: 1,
      stdout: '',
      stderr: `immogate: ${backupFile} exists: give a new file to --to\n`,
    });
  });
});
