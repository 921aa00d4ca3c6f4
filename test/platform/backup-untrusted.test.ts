/*
 * A backup file is untrusted input: whoever hands one over may have crafted it. Each crafted file
 * below is refused by `immogate restore` with a line naming what is wrong, and leaves the target
 * exactly as it was: no table in the database, the media of DATA_DIR/blobs untouched. A record
 * of any declared length is read in time linear in the file, and what describes a server rather
 * than its data (the migrations table, where its servers listen, its identity key) is never taken
 * from a file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, makeClient, type TestDatabase } from '../helpers.js';
import { runCli, temporaryDataDir } from '../processes.js';
import { createPool } from '../../src/platform/db/pool.js';
import { listMigrations } from '../../src/platform/db/migrate.js';

const HEAD = Math.max(...listMigrations().map((migration) => migration.id));
const MAGIC = Buffer.from('IMMOGATE-BACKUP\n');
const STEP = { timeout: 60_000 };

const work = temporaryDataDir('immogate-backup-untrusted-');
const sourceDataDir = path.join(work, 'source');
const original = path.join(work, 'original.backup');
let source: TestDatabase;

interface Record_ {
  type: string;
  payload: Buffer;
}

function readRecords(file: string): Record_[] {
  const raw = zlib.gunzipSync(fs.readFileSync(file));
  assert.ok(raw.subarray(0, MAGIC.length).equals(MAGIC));
  const records: Record_[] = [];
  for (let at = MAGIC.length; at < raw.length; ) {
    const length = raw.readUInt32BE(at + 1);
    records.push({ type: raw.toString('ascii', at, at + 1), payload: raw.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return records;
}

function head(type: string, length: number): Buffer {
  const bytes = Buffer.alloc(5);
  bytes.write(type, 0, 'ascii');
  bytes.writeUInt32BE(length, 1);
  return bytes;
}

const encode = (records: Record_[]) => Buffer.concat([MAGIC, ...records.flatMap((r) => [head(r.type, r.payload.length), r.payload])]);
const json = (type: string, value: unknown): Record_ => ({ type, payload: Buffer.from(JSON.stringify(value)) });

function writeBackup(name: string, content: Buffer): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, zlib.gzipSync(content));
  return file;
}

/** The original's records with its header changed by `change`, and `insert` put in before its first table. */
function crafted(name: string, change: (header: Record<string, any>) => void, insert: Record_[] = []): string {
  const records = readRecords(original);
  const header = JSON.parse(records[0]?.payload.toString() ?? '') as Record<string, any>;
  change(header);
  return writeBackup(name, encode([json('H', header), ...insert, ...records.slice(1)]));
}

async function tablesOf(database: TestDatabase): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/**
 * Restores `file` into a new empty database and an empty DATA_DIR (`withMedia`: one holding a
 * media file): refused with `error` as the last line, exit 1, and the database and DATA_DIR as they were.
 */
async function assertRefused(file: string, error: string | RegExp, withMedia = false): Promise<number> {
  const empty = await createTestDatabase({ empty: true });
  const dataDir = fs.mkdtempSync(path.join(work, 'target-'));
  const media = path.join(dataDir, 'blobs', 'objects', 'agency-9', 'keep.jpg');
  if (withMedia) {
    fs.mkdirSync(path.dirname(media), { recursive: true });
    fs.writeFileSync(media, 'the media of the server restored into');
  }
  try {
    const started = performance.now();
    const result = await runCli(['restore', '--from', file], { DATABASE_URL: empty.url, DATA_DIR: dataDir });
    const seconds = (performance.now() - started) / 1000;
    const last = result.stderr.trimEnd().split('\n').at(-1) ?? '';
    assert.deepEqual([result.code, result.stdout], [1, ''], result.stderr);
    if (typeof error === 'string') assert.equal(last, `immogate: ${error}`);
    else assert.match(last, error);
    assert.deepEqual(await tablesOf(empty), []);
    if (withMedia) assert.equal(fs.readFileSync(media, 'utf8'), 'the media of the server restored into');
    assert.deepEqual(fs.readdirSync(dataDir), withMedia ? ['blobs'] : []);
    return seconds;
  } finally {
    await empty.drop();
  }
}

before(async () => {
  source = await createTestDatabase();
  const pool = createPool(source.url, 2);
  try {
    await makeClient(pool, ['agency-1'], ['caas:*']);
    await pool.query(
      "INSERT INTO server_listeners (instance_id, public_url, started_at) VALUES (gen_random_uuid(), 'http://attacker.example:9', '2099-01-01')",
    );
  } finally {
    await pool.end();
  }
  fs.mkdirSync(path.join(sourceDataDir, 'blobs', 'objects', 'agency-1'), { recursive: true });
  fs.writeFileSync(path.join(sourceDataDir, 'blobs', 'objects', 'agency-1', 'photo.jpg'), 'a photo');
  const result = await runCli(['backup', '--to', original, '--with-blobs'], { DATABASE_URL: source.url, DATA_DIR: sourceDataDir });
  assert.equal(result.code, 0, result.stderr);
});

after(async () => {
  await source?.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('immogate restore refuses a crafted backup, leaving the target as empty as it was', () => {
  it('blob records under a header that says it holds none (the media there would be replaced unchecked)', STEP, async () => {
    const file = crafted('blobs-mismatch.backup', (header) => {
      header.blobs = false;
    });
    await assertRefused(file, `${file} is damaged: it holds blob files, and its header says it holds none`, true);
  });

  it('a header listing immogate_migrations or database_identity, tables never restored from a file', STEP, async () => {
    for (const table of [
      { name: 'immogate_migrations', columns: ['id', 'name', 'applied_at'], rows: 1, data: '999\tevil\t2026-01-01 00:00:00+00\n' },
      { name: 'database_identity', columns: ['only_row', 'key'], rows: 1, data: 't\t\\\\x00\n' },
    ]) {
      const file = crafted(
        `forbidden-${table.name}.backup`,
        (header) => {
          header.tables.unshift({ name: table.name, columns: table.columns, rows: table.rows });
        },
        [json('T', { name: table.name, columns: table.columns }), { type: 'D', payload: Buffer.from(table.data) }, json('E', { rows: 1 })],
      );
      await assertRefused(
        file,
        `${file} lists table ${table.name}, which is never restored from a file: it was not written by immogate backup`,
      );
    }
  });

  it('a table the schema of its migrations has not', STEP, async () => {
    const file = crafted(
      'unknown-table.backup',
      (header) => {
        header.tables.unshift({ name: 'no_such_table', columns: ['a'], rows: 1 });
      },
      [json('T', { name: 'no_such_table', columns: ['a'] }), { type: 'D', payload: Buffer.from('1\n') }, json('E', { rows: 1 })],
    );
    await assertRefused(
      file,
      `${file} lists table no_such_table, which the schema of its migrations (version ${HEAD}) has not: it was not written by immogate backup`,
    );
  });

  it('a record longer than its kind may be: refused at its length, before anything is read of it', STEP, async (t) => {
    const records = readRecords(original);
    const firstTable = records.findIndex((r) => r.type === 'T');
    const oversized = Buffer.concat([encode(records.slice(0, firstTable + 1)), head('D', 0xffff_fff0), Buffer.alloc(1000)]);
    const file = writeBackup('oversized.backup', oversized);
    const seconds = await assertRefused(
      file,
      `${file} is damaged: a record "D" of 4294967280 bytes, past the 16777216 bytes a record may have`,
    );
    // The same work as any restore up to its first table (start, connect, migrate): the baseline of the next test's figure.
    t.diagnostic(`a record refused at its length, after the schema was made: ${seconds.toFixed(2)} s`);
    const header = writeBackup('oversized-header.backup', Buffer.concat([MAGIC, head('H', 100_000_000), Buffer.alloc(1000, 0x20)]));
    await assertRefused(header, `${header} is damaged: a record "H" of 100000000 bytes, past the 16777216 bytes a record may have`);
  });

  it('a file cut short inside a table', STEP, async () => {
    const content = encode(readRecords(original));
    const clients = content.lastIndexOf('{"name":"clients","columns"');
    const file = writeBackup('truncated.backup', content.subarray(0, clients + 200));
    await assertRefused(file, `${file} ends early: the backup is incomplete (cut short while written or copied?)`);
  });

  it('a 100 KB file declaring a 100 MiB record: refused at its length, at once', STEP, async (t) => {
    const records = readRecords(original);
    const firstTable = records.findIndex((r) => r.type === 'T');
    const declared = 100 * 1024 * 1024;
    const content = Buffer.concat([encode(records.slice(0, firstTable + 1)), head('D', declared), Buffer.alloc(declared, 0x61)]);
    const file = writeBackup('declared-100-mib.backup', content);
    assert.ok(fs.statSync(file).size < 120_000, `${fs.statSync(file).size} bytes`);
    const seconds = await assertRefused(
      file,
      `${file} is damaged: a record "D" of ${declared} bytes, past the 16777216 bytes a record may have`,
    );
    t.diagnostic(`restore of the ${fs.statSync(file).size}-byte file refused in ${seconds.toFixed(2)} s`);
  });

  it('a 100 KB file of 100 MiB in records at the cap is read in linear time: refused within seconds, not minutes', STEP, async (t) => {
    const records = readRecords(original);
    const firstTable = records.findIndex((r) => r.type === 'T');
    const cap = 16 * 1024 * 1024;
    const piece = Buffer.concat([head('D', cap), Buffer.alloc(cap, 0x61)]);
    const content = Buffer.concat([encode(records.slice(0, firstTable + 1)), ...Array.from({ length: 6 }, () => piece)]);
    const file = writeBackup('records-at-the-cap.backup', content);
    assert.ok(fs.statSync(file).size < 120_000, `${fs.statSync(file).size} bytes`);
    // Cut short after the records: refused at the end of the file (or by the COPY, should it see the row first).
    const seconds = await assertRefused(
      file,
      /^immogate: (?:.* ends early: the backup is incomplete|.*(?:COPY|extra data|invalid input syntax).*)/,
    );
    // The whole CLI run (start, connect, migrate, read); generous for a busy machine: the reader
    // that joined every chunk to all before it of a record took minutes for such records.
    t.diagnostic(
      `restore of the ${fs.statSync(file).size}-byte file (${content.length} bytes unzipped) refused in ${seconds.toFixed(2)} s`,
    );
    assert.ok(seconds < 10, `${seconds.toFixed(1)} s`);
  });
});

describe('immogate restore of a genuine backup', () => {
  it('restores the rows, never where its servers listened (a row dated 2099 naming another URL)', STEP, async () => {
    const records = readRecords(original);
    const header = JSON.parse(records[0]?.payload.toString() ?? '') as { tables: { name: string }[] };
    // The backup still holds it (older immogates' backups do too); restore skips it.
    assert.ok(header.tables.some((table) => table.name === 'server_listeners'));
    assert.ok(!header.tables.some((table) => ['immogate_migrations', 'database_identity'].includes(table.name)));
    const empty = await createTestDatabase({ empty: true });
    const dataDir = fs.mkdtempSync(path.join(work, 'genuine-'));
    try {
      const result = await runCli(['restore', '--from', original, '--json'], { DATABASE_URL: empty.url, DATA_DIR: dataDir });
      assert.equal(result.code, 0, result.stderr);
      const pool = createPool(empty.url, 1);
      try {
        assert.deepEqual((await pool.query('SELECT count(*)::int AS n FROM clients')).rows, [{ n: 1 }]);
        assert.deepEqual((await pool.query('SELECT count(*)::int AS n FROM server_listeners')).rows, [{ n: 0 }]);
        // Its own identity, made by its own migration, not the backed-up database's.
        const identity = await pool.query<{ key: Buffer }>('SELECT key FROM database_identity');
        assert.equal(identity.rows.length, 1);
        const sourcePool = createPool(source.url, 1);
        try {
          const theirs = await sourcePool.query<{ key: Buffer }>('SELECT key FROM database_identity');
          assert.notDeepEqual(identity.rows[0]?.key, theirs.rows[0]?.key);
        } finally {
          await sourcePool.end();
        }
      } finally {
        await pool.end();
      }
      assert.equal(fs.readFileSync(path.join(dataDir, 'blobs', 'objects', 'agency-1', 'photo.jpg'), 'utf8'), 'a photo');
    } finally {
      await empty.drop();
    }
  });
});
