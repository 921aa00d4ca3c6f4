/*
 * `immogate backup` and `immogate restore`: a copy of every table immogate's migrations made,
 * taken while the server runs, that a PostgreSQL of another major version can load.
 *
 * Why not pg_dump: the embedded PostgreSQL ships none, and a pg_dump older than the server refuses
 * to dump it. COPY's text format, though, reads the same in every version since long ago, and
 * the schema is ours: restore recreates it with our own migrations, up to exactly the version of
 * the backup, so only the rows travel. One REPEATABLE READ READ ONLY transaction reads them all,
 * so the copy is one consistent moment however many requests the server answers meanwhile.
 *
 * The file is gzip of: the line MAGIC, then records of a type byte, a 4-byte big-endian length
 * and a payload. H: the header (JSON). T: a table (JSON), its D records (COPY text), then E (its
 * row count). F: a blob file (JSON), its D records, then E (its size). Z: the end, so that a file
 * cut short is told from a whole one.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Config } from '../../config.js';
import { messageOf } from '../caught.js';
import { PRIVATE_DIR, PRIVATE_FILE, makePrivateDir } from '../dataDir.js';
import { kekId, keySourceOf, loadKeyring } from '../secrets/sealer.js';
import { createMigrationsTable, listMigrations, migrate, migrationName } from './migrate.js';
import { restartFeedOrder } from '../events/restore.js';
import { openDatabase } from './open.js';
import { createPool } from './pool.js';

const MAGIC = Buffer.from('IMMOGATE-BACKUP\n');
const FORMAT = 1;
const CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

/** A backup file that is no backup, is damaged, or is one this immogate cannot restore; or a target that must not be written. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

interface TableEntry {
  name: string;
  columns: string[];
  rows: number;
}

export interface BackupHeader {
  format: number;
  immogate: string;
  createdAt: string;
  /** The highest migration applied: the schema version. */
  schemaVersion: number;
  migrations: { id: number; name: string }[];
  /** The id of the key-encryption key the sealed secrets need (never the key). */
  secretsKeyId: string | null;
  postgres: string;
  tables: TableEntry[];
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
  blobs: boolean;
}

export interface BackupSummary {
  file: string;
  bytes: number;
  schemaVersion: number;
  secretsKeyId: string | null;
  tables: number;
  rows: number;
  blobFiles: number;
}

export interface RestoreSummary {
  file: string;
  target: string;
  schemaVersion: number;
  migratedTo: string[];
  tables: number;
  rows: number;
  blobFiles: number;
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line per table elsewhere (logs, tests). */
export function progressBar(
  stream: NodeJS.WriteStream,
  verb: string,
  total: number,
): { update(done: number, what: string): void; end(): void } {
  const tty = stream.isTTY === true;
  let lastWhat = '';
  return {
    update(done, what) {
      if (tty) {
        const width = 30;
        const filled = total === 0 ? width : Math.round((done / total) * width);
        stream.write(`\r${verb} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} rows  ${what.padEnd(30)}`);
      } else if (what !== lastWhat) {
        stream.write(`${verb} ${what}: ${done}/${total} rows\n`);
      }
      lastWhat = what;
    },
    end() {
      if (tty) stream.write('\n');
    },
  };
}

type Progress = ReturnType<typeof progressBar>;

function record(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'ascii');
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

const jsonRecord = (type: string, value: unknown) => record(type, Buffer.from(JSON.stringify(value)));

function countNewlines(chunk: Buffer): number {
  let count = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) count += 1;
  return count;
}

/** The tables of immogate's schema (all but the migrations' own), parents before the tables that refer to them. */
async function tablesInOrder(client: pg.ClientBase): Promise<{ oid: string; name: string }[]> {
  // OIDs as text: they are unsigned 32-bit, past what an integer column holds.
  const { rows: tables } = await client.query<{ oid: string; name: string }>(
    `SELECT c.oid::text AS oid, c.relname AS name FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND c.relname <> 'immogate_migrations'
      ORDER BY c.relname`,
  );
  const { rows: references } = await client.query<{ child: string; parent: string }>(
    `SELECT conrelid::text AS child, confrelid::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = current_schema()::regnamespace AND conrelid <> confrelid`,
  );
  const ordered: { oid: string; name: string }[] = [];
  const placed = new Set<string>();
  const visit = (table: { oid: string; name: string }, path: Set<string>) => {
    if (placed.has(table.oid) || path.has(table.oid)) return;
    path.add(table.oid);
    for (const reference of references.filter((r) => r.child === table.oid)) {
      const parent = tables.find((t) => t.oid === reference.parent);
      if (parent) visit(parent, path);
    }
    placed.add(table.oid);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

async function columnsOf(client: pg.ClientBase, oid: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute
      WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [oid],
  );
  return rows.map((row) => row.name);
}

const quoted = (name: string) => pg.escapeIdentifier(name);
const columnList = (columns: readonly string[]) => columns.map(quoted).join(', ');

function currentKeyId(config: Config): string | null {
  try {
    return kekId(loadKeyring(keySourceOf(config), { create: false }).current);
  } catch {
    return null;
  }
}

/** The files under DATA_DIR/blobs, relative to it; uploads still being received (incoming/) are no blobs yet. */
async function blobFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string) => {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(path.join(root, relative), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const name = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) await walk(name);
      else if (entry.isFile()) found.push(name);
    }
  };
  for (const top of ['objects', 'meta']) await walk(top);
  return found.sort();
}

/**
 * Writes the backup of the database of `config` to `file`: under a temporary name first, renamed
 * when whole, so that an interrupted backup never leaves a file that looks like one.
 */
export async function backup(
  config: Config,
  file: string,
  options: { withBlobs: boolean; version: string; progress: (total: number) => Progress },
): Promise<BackupSummary> {
  if (options.withBlobs && config.s3)
    throw new BackupError('--with-blobs copies DATA_DIR/blobs; the blobs of this server are in S3, back up its bucket instead');
  const database = await openDatabase(config, { existing: true });
  const client = new pg.Client({ connectionString: database.url });
  const temporary = `${file}.${process.pid}.partial`;
  let renamed = false;
  try {
    await client.connect();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: migrations } = await client.query<{ id: number; name: string }>('SELECT id, name FROM immogate_migrations ORDER BY id');
    const tables: TableEntry[] = [];
    const found = await tablesInOrder(client);
    for (const table of found) {
      const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${quoted(table.name)}`);
      tables.push({ name: table.name, columns: await columnsOf(client, table.oid), rows: Number(rows[0]?.count ?? 0) });
    }
    const { rows: sequenceNames } = await client.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'S' ORDER BY relname`,
    );
    const sequences: BackupHeader['sequences'] = [];
    for (const { name } of sequenceNames) {
      // Sequences stand outside transactions: read after the snapshot was taken, a value is at least what any row in it used.
      const { rows } = await client.query<{ last_value: string; is_called: boolean }>(
        `SELECT last_value::text, is_called FROM ${quoted(name)}`,
      );
      const row = rows[0];
      if (row) sequences.push({ name, lastValue: row.last_value, isCalled: row.is_called });
    }
    const { rows: versions } = await client.query<{ server_version: string }>('SHOW server_version');
    const blobRoot = path.join(config.dataDir, 'blobs');
    const files = options.withBlobs ? await blobFiles(blobRoot) : [];
    const header: BackupHeader = {
      format: FORMAT,
      immogate: options.version,
      createdAt: new Date().toISOString(),
      schemaVersion: migrations.at(-1)?.id ?? 0,
      migrations,
      secretsKeyId: currentKeyId(config),
      postgres: versions[0]?.server_version ?? 'unknown',
      tables,
      sequences,
      blobs: options.withBlobs,
    };
    if (header.schemaVersion === 0) throw new BackupError(`${database.description} holds no immogate schema: nothing to back up`);

    makePrivateDir(path.dirname(path.resolve(file)));
    const gzip = zlib.createGzip();
    const written = pipeline(gzip, fs.createWriteStream(temporary, { mode: PRIVATE_FILE, flags: 'wx' }));
    written.catch(() => undefined);
    const write = async (buffer: Buffer) => {
      if (!gzip.write(buffer)) await Promise.race([once(gzip, 'drain'), written]);
    };
    await write(MAGIC);
    await write(jsonRecord('H', header));
    const total = tables.reduce((sum, table) => sum + table.rows, 0);
    const bar = options.progress(total);
    let done = 0;
    for (const table of tables) {
      bar.update(done, table.name);
      await write(jsonRecord('T', { name: table.name, columns: table.columns }));
      let rows = 0;
      const stream = client.query(copyTo(`COPY ${quoted(table.name)} (${columnList(table.columns)}) TO STDOUT`));
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        rows += countNewlines(chunk);
        await write(record('D', chunk));
        bar.update(done + rows, table.name);
      }
      // The count and the copy read one snapshot: a difference is a bug of ours, not a busy server.
      if (rows !== table.rows) throw new Error(`table ${table.name}: COPY gave ${rows} row(s), count(*) ${table.rows}`);
      done += rows;
      await write(jsonRecord('E', { rows }));
    }
    bar.end();
    for (const name of files) {
      // A blob's bytes never change once committed (a rename publishes them): its size read first is its size.
      const source = path.join(blobRoot, name);
      const { size } = await fsp.stat(source);
      await write(jsonRecord('F', { path: name, size }));
      let read = 0;
      for await (const chunk of fs.createReadStream(source, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
        read += chunk.length;
        await write(record('D', chunk));
      }
      if (read !== size) throw new BackupError(`${source} changed while it was copied: back up again`);
      await write(jsonRecord('E', { size }));
    }
    await write(jsonRecord('Z', { tables: tables.length, files: files.length }));
    gzip.end();
    await written;
    await client.query('COMMIT');
    await fsp.rename(temporary, file);
    renamed = true;
    return {
      file,
      bytes: (await fsp.stat(file)).size,
      schemaVersion: header.schemaVersion,
      secretsKeyId: header.secretsKeyId,
      tables: tables.length,
      rows: done,
      blobFiles: files.length,
    };
  } finally {
    if (!renamed) await fsp.rm(temporary, { force: true });
    await client.end().catch(() => undefined);
    await database.close();
  }
}

/** Reads exact lengths from the gunzipped file; damage and an early end become BackupErrors naming the file. */
class Reader {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly source: AsyncIterator<Buffer>;

  constructor(
    private readonly file: string,
    input: AsyncIterable<Buffer>,
  ) {
    this.source = input[Symbol.asyncIterator]();
  }

  async take(length: number): Promise<Buffer> {
    while (this.buffered.length < length) {
      let next: IteratorResult<Buffer>;
      try {
        next = await this.source.next();
      } catch (error) {
        throw new BackupError(`${this.file} is damaged (${messageOf(error)}): it is no complete immogate backup`);
      }
      if (next.done) throw new BackupError(`${this.file} ends early: the backup is incomplete (cut short while written or copied?)`);
      this.buffered = this.buffered.length === 0 ? next.value : Buffer.concat([this.buffered, next.value]);
    }
    const taken = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return taken;
  }

  async next(): Promise<{ type: string; payload: Buffer }> {
    const head = await this.take(5);
    const type = head.toString('ascii', 0, 1);
    if (!'HTDEFZ'.includes(type)) throw new BackupError(`${this.file} is damaged: unknown record "${type}"`);
    return { type, payload: await this.take(head.readUInt32BE(1)) };
  }

  async json<T>(type: string): Promise<T> {
    const got = await this.next();
    if (got.type !== type) throw new BackupError(`${this.file} is damaged: record "${got.type}" where "${type}" belongs`);
    try {
      return JSON.parse(got.payload.toString('utf8')) as T;
    } catch {
      throw new BackupError(`${this.file} is damaged: a record "${type}" is no JSON`);
    }
  }
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await fsp.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function openBackup(file: string): Promise<{ reader: Reader; header: BackupHeader; close(): void }> {
  let input: fs.ReadStream;
  try {
    await fsp.access(file, fs.constants.R_OK);
    input = fs.createReadStream(file);
  } catch (error) {
    throw new BackupError(`cannot read ${file}: ${messageOf(error)}`);
  }
  const gunzip = zlib.createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const reader = new Reader(file, gunzip);
  // Not gzip, or gzip of too little: no backup. A gzip file whose start is damaged says so instead.
  const gzipped = await isGzip(file);
  const magic = await reader.take(MAGIC.length).catch((error: unknown) => {
    if (gzipped && !/ends early/.test(messageOf(error))) throw error;
    return undefined;
  });
  if (magic === undefined || !magic.equals(MAGIC)) throw new BackupError(`${file} is no immogate backup`);
  const header = await reader.json<BackupHeader>('H');
  if (header.format !== FORMAT)
    throw new BackupError(`${file} is a backup of format ${header.format}; this immogate reads format ${FORMAT}`);
  return {
    reader,
    header,
    close() {
      input.destroy();
      gunzip.destroy();
    },
  };
}

/** Refuses a backup whose schema this immogate does not know: a newer immogate made it. */
function checkSchema(header: BackupHeader, file: string): void {
  const known = new Map(listMigrations().map((migration) => [migration.id, migration.name]));
  const newest = Math.max(...known.keys());
  const unknown = header.migrations.filter((migration) => known.get(migration.id) !== migration.name);
  if (header.schemaVersion > newest || unknown.length > 0) {
    throw new BackupError(
      `${file} is at schema version ${header.schemaVersion} (immogate ${header.immogate}); this immogate knows up to ${newest}` +
        `${unknown.length > 0 ? ` and not migration(s) ${unknown.map(migrationName).join(', ')}` : ''}: ` +
        `restore it with immogate ${header.immogate} or newer`,
    );
  }
}

/** The target's key must open what the backup's secrets were sealed with, or the restored server would not start. */
function checkKey(config: Config, header: BackupHeader): void {
  if (header.secretsKeyId === null) return;
  let ids: string[];
  try {
    ids = loadKeyring(keySourceOf(config), { create: false }).all.map(kekId);
  } catch (error) {
    throw new BackupError(
      `the backup's secrets are sealed with key ${header.secretsKeyId}, and no key is set here (${messageOf(error)}): ` +
        'set SECRETS_KEY, or copy the secrets.key of the backed-up DATA_DIR into this DATA_DIR, then restore',
    );
  }
  if (!ids.includes(header.secretsKeyId)) {
    throw new BackupError(
      `the backup's secrets are sealed with key ${header.secretsKeyId}; this immogate's key is ${ids[0]}: ` +
        'restore with the SECRETS_KEY (or DATA_DIR/secrets.key) of the server that was backed up',
    );
  }
}

function safeBlobPath(relative: string, file: string): string {
  const normal = path.posix.normalize(relative);
  if (path.posix.isAbsolute(normal) || normal.startsWith('..') || !/^(objects|meta)\//.test(normal)) {
    throw new BackupError(`${file} is damaged: blob path "${relative}" is outside DATA_DIR/blobs`);
  }
  return normal;
}

/**
 * Loads a backup into the empty database of `config` (creating the embedded one of an empty
 * DATA_DIR): the schema of the backup's migrations and every row in one transaction, so a failed
 * restore leaves the target as empty as it was; then the migrations this immogate has beyond it.
 */
export async function restore(config: Config, file: string, options: { progress: (total: number) => Progress }): Promise<RestoreSummary> {
  const opened = await openBackup(file);
  try {
    const { reader, header } = opened;
    checkSchema(header, file);
    checkKey(config, header);
    const blobRoot = path.join(config.dataDir, 'blobs');
    if (header.blobs) {
      if (config.s3)
        throw new BackupError(
          'this backup holds blobs for DATA_DIR/blobs, but this server keeps its blobs in S3 (unset the S3 variables to restore)',
        );
      if ((await blobFiles(blobRoot)).length > 0) throw new BackupError(`${blobRoot} is not empty: restore only into an empty DATA_DIR`);
    }
    const database = await openDatabase(config);
    const client = new pg.Client({ connectionString: database.url });
    const staging = `${blobRoot}.restoring-${process.pid}`;
    try {
      await client.connect();
      const { rows: present } = await client.query<{ name: string }>(
        `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY relname`,
      );
      if (present.length > 0) {
        const examples = present
          .slice(0, 3)
          .map((t) => t.name)
          .join(', ');
        throw new BackupError(
          `${database.description} is not empty (${present.length} table(s), e.g. ${examples}): restore only into an empty database, a new DATABASE_URL or an empty DATA_DIR`,
        );
      }
      const migrations = new Map(listMigrations().map((migration) => [migration.id, migration]));
      await client.query('BEGIN');
      await createMigrationsTable(client);
      for (const { id, name } of header.migrations) {
        await client.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [id, name]);
        await client.query(migrations.get(id)?.sql ?? '');
      }
      // Migrations may seed rows; the backup holds each table whole.
      if (header.tables.length > 0) await client.query(`TRUNCATE ${header.tables.map((t) => quoted(t.name)).join(', ')}`);
      // The event feed's triggers stay quiet: the events table is restored with the rest (migrations/017).
      await client.query("SELECT set_config('immogate.restoring', 'on', true)");
      const total = header.tables.reduce((sum, table) => sum + table.rows, 0);
      const bar = options.progress(total);
      let done = 0;
      for (const entry of header.tables) {
        const table = await reader.json<{ name: string; columns: string[] }>('T');
        if (table.name !== entry.name) throw new BackupError(`${file} is damaged: table ${table.name} where ${entry.name} belongs`);
        bar.update(done, table.name);
        const copy = client.query(copyFrom(`COPY ${quoted(table.name)} (${columnList(table.columns)}) FROM STDIN`));
        const copied = finished(copy);
        copied.catch(() => undefined);
        let rows = 0;
        try {
          for (;;) {
            const next = await reader.next();
            if (next.type === 'E') break;
            if (next.type !== 'D') throw new BackupError(`${file} is damaged: record "${next.type}" inside table ${table.name}`);
            rows += countNewlines(next.payload);
            if (!copy.write(next.payload)) await Promise.race([once(copy, 'drain'), copied]);
            bar.update(done + rows, table.name);
          }
        } catch (error) {
          // The COPY is still open on the connection: left so, it would hold the ROLLBACK queued
          // behind it for ever. Destroyed, the stream sends CopyFail and the COPY ends.
          copy.destroy(error instanceof Error ? error : new Error(String(error)));
          await copied.catch(() => undefined);
          throw error;
        }
        copy.end();
        await copied;
        if (copy.rowCount !== entry.rows) {
          throw new BackupError(`${file} is damaged: table ${table.name} has ${copy.rowCount} row(s), its header says ${entry.rows}`);
        }
        done += rows;
      }
      bar.end();
      await restartFeedOrder(client);
      for (const sequence of header.sequences) {
        await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [quoted(sequence.name), sequence.lastValue, sequence.isCalled]);
      }
      let blobCount = 0;
      for (;;) {
        const next = await reader.next();
        if (next.type === 'Z') break;
        if (next.type !== 'F') throw new BackupError(`${file} is damaged: record "${next.type}" where a blob or the end belongs`);
        const blob = JSON.parse(next.payload.toString('utf8')) as { path: string; size: number };
        const target = path.join(staging, safeBlobPath(blob.path, file));
        await fsp.mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR });
        const out = fs.createWriteStream(target, { mode: PRIVATE_FILE });
        let size = 0;
        for (;;) {
          const part = await reader.next();
          if (part.type === 'E') break;
          size += part.payload.length;
          if (!out.write(part.payload)) await once(out, 'drain');
        }
        out.end();
        await finished(out);
        if (size !== blob.size)
          throw new BackupError(`${file} is damaged: blob ${blob.path} has ${size} byte(s), its record says ${blob.size}`);
        blobCount += 1;
      }
      await client.query('COMMIT');
      if (blobCount > 0) {
        makePrivateDir(config.dataDir);
        await fsp.rm(blobRoot, { recursive: true, force: true });
        await fsp.rename(staging, blobRoot);
      }
      const pool = createPool(database.url, 2);
      let migratedTo: string[];
      try {
        migratedTo = await migrate(pool);
      } finally {
        await pool.end();
      }
      return {
        file,
        target: database.description,
        schemaVersion: header.schemaVersion,
        migratedTo,
        tables: header.tables.length,
        rows: done,
        blobFiles: blobCount,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await fsp.rm(staging, { recursive: true, force: true });
      await client.end().catch(() => undefined);
      await database.close();
    }
  } finally {
    opened.close();
  }
}
