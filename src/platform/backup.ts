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
 *
 * A file to restore is untrusted input (anyone may hand one over): every record has a length cap,
 * read in time linear in its length; the header and the records must agree (the tables, the blobs
 * flag); what describes this server rather than the data (its migrations table, where its servers
 * listen, its identity key) is never taken from a file; and any refusal leaves the target as
 * empty as it was, the migrations after the backup's own included, in the one transaction.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Config } from '../config.js';
import { messageOf } from './caught.js';
import { PRIVATE_DIR, PRIVATE_FILE, makePrivateDir } from './dataDir.js';
import { kekId, keySourceOf, loadKeyring } from './secrets/sealer.js';
import { createMigrationsTable, listMigrations, migrationName } from './db/migrate.js';
import { restartFeedOrder } from './events/restore.js';
import { openDatabase } from './db/open.js';
import { partialOf, removeStalePartials } from './db/partial.js';

const MAGIC = Buffer.from('IMMOGATE-BACKUP\n');
const FORMAT = 1;
const CHUNK = 256 * 1024;
const NEWLINE = 0x0a;
/**
 * The longest record restore reads. JSON records (the header, a table's or blob's description, a
 * count) are small whatever the data's size; data records are written in pieces of CHUNK since
 * this cap, and older backups wrote each COPY chunk as it came off the socket (a socket read,
 * tens of KiB: pg-copy-streams hands on what each read brings, a row split over several).
 */
const MAX_RECORD = 16 * 1024 * 1024;

/**
 * Tables never written to a backup nor restored from one: the migrations table (restore writes it
 * from the header, checked against this immogate's migrations), the URLs the servers of a database
 * listen on (the CLI would send secrets there) and the database's identity key (which proves a
 * server serves this database). Older backups hold server_listeners: its rows are skipped.
 */
const NEVER_RESTORED = new Set(['immogate_migrations', 'server_listeners', 'database_identity']);
const SKIPPED_ON_RESTORE = new Set(['server_listeners']);
const NOT_BACKED_UP = new Set(['immogate_migrations', 'database_identity']);

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

/** The tables of immogate's schema (all but NOT_BACKED_UP), parents before the tables that refer to them. */
async function tablesInOrder(client: pg.ClientBase): Promise<{ oid: string; name: string }[]> {
  // OIDs as text: they are unsigned 32-bit, past what an integer column holds.
  const { rows: tables } = await client.query<{ oid: string; name: string }>(
    `SELECT c.oid::text AS oid, c.relname AS name FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname`,
  );
  tables.splice(0, tables.length, ...tables.filter((table) => !NOT_BACKED_UP.has(table.name)));
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
 * when whole, so that an interrupted backup never leaves a file that looks like one. The
 * temporary file goes whatever ends the backup early: an error, or `signal` (SIGINT, SIGTERM),
 * whose reason is then what it throws; one left by a backup killed outright is removed by the
 * next backup to `file` (partial.ts).
 */
export async function backup(
  config: Config,
  file: string,
  options: { withBlobs: boolean; version: string; progress: (total: number) => Progress; signal?: AbortSignal },
): Promise<BackupSummary> {
  if (options.withBlobs && config.s3)
    throw new BackupError('--with-blobs copies DATA_DIR/blobs; the blobs of this server are in S3, back up its bucket instead');
  removeStalePartials(file);
  const { signal } = options;
  signal?.throwIfAborted();
  const database = await openDatabase(config, { existing: true });
  const client = new pg.Client({ connectionString: database.url });
  // A connection lost mid-backup fails the statement or COPY under way; unheard, the event would crash the process.
  client.on('error', () => undefined);
  // Stopped at once, not at the end of a table: what waits on the database fails now.
  const interrupt = () => socketOf(client)?.destroy?.();
  signal?.addEventListener('abort', interrupt, { once: true });
  const temporary = partialOf(file);
  let renamed = false;
  try {
    signal?.throwIfAborted();
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
      signal?.throwIfAborted();
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
        // COPY reads rows split anywhere: a large row is written in pieces under the reader's cap.
        for (let at = 0; at < chunk.length; at += CHUNK) await write(record('D', chunk.subarray(at, at + CHUNK)));
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
  } catch (error) {
    // What the interruption made fail (a COPY cut short) is not the reason the backup ended.
    signal?.throwIfAborted();
    throw error;
  } finally {
    signal?.removeEventListener('abort', interrupt);
    if (!renamed) await fsp.rm(temporary, { force: true });
    await client.end().catch(() => undefined);
    await database.close();
  }
}

/** The socket of a pg client, which pg's declarations leave out: every member optional. */
function socketOf(client: pg.Client): { destroy?(): void } | undefined {
  return (client as { connection?: { stream?: { destroy?(): void } } }).connection?.stream;
}

/**
 * Reads the records of the gunzipped file, each chunk of it handled once (a record is collected in
 * a list and joined once, or handed on in pieces), so the time is linear in the file's length
 * whatever its records declare; damage, an early end and a record over its cap become
 * BackupErrors naming the file.
 */
class Reader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly source: AsyncIterator<Buffer>;

  constructor(
    private readonly file: string,
    input: AsyncIterable<Buffer>,
  ) {
    this.source = input[Symbol.asyncIterator]();
  }

  private async refill(): Promise<void> {
    while (this.pending.length === 0) {
      let next: IteratorResult<Buffer>;
      try {
        next = await this.source.next();
      } catch (error) {
        throw new BackupError(`${this.file} is damaged (${messageOf(error)}): it is no complete immogate backup`);
      }
      if (next.done) throw new BackupError(`${this.file} ends early: the backup is incomplete (cut short while written or copied?)`);
      this.pending = next.value;
    }
  }

  /** The next `length` bytes in pieces as they come, none kept. */
  async *pieces(length: number): AsyncGenerator<Buffer> {
    let left = length;
    while (left > 0) {
      await this.refill();
      const piece = this.pending.subarray(0, left);
      this.pending = this.pending.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  async take(length: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const piece of this.pieces(length)) parts.push(piece);
    return parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts, length);
  }

  /** The next record's type and length, refused when the length passes the cap. */
  async head(): Promise<{ type: string; length: number }> {
    const head = await this.take(5);
    const type = head.toString('ascii', 0, 1);
    if (!'HTDEFZ'.includes(type)) throw new BackupError(`${this.file} is damaged: unknown record "${type}"`);
    const length = head.readUInt32BE(1);
    if (length > MAX_RECORD) {
      throw new BackupError(
        `${this.file} is damaged: a record "${type}" of ${length} bytes, past the ${MAX_RECORD} bytes a record may have`,
      );
    }
    return { type, length };
  }

  async next(): Promise<{ type: string; payload: Buffer }> {
    const { type, length } = await this.head();
    return { type, payload: await this.take(length) };
  }

  /** The payload of a JSON record of `type`; `check` says what is wrong with its shape, if anything. */
  async json<T>(type: string, check: (value: unknown) => string | undefined): Promise<T> {
    const got = await this.next();
    if (got.type !== type) throw new BackupError(`${this.file} is damaged: record "${got.type}" where "${type}" belongs`);
    return parseRecord<T>(this.file, type, got.payload, check);
  }
}

function parseRecord<T>(file: string, type: string, payload: Buffer, check: (value: unknown) => string | undefined): T {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new BackupError(`${file} is damaged: a record "${type}" is no JSON`);
  }
  const wrong = check(value);
  if (wrong !== undefined) throw new BackupError(`${file} is damaged: a record "${type}" ${wrong}`);
  return value as T;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isName = (value: unknown): value is string => typeof value === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(value);

function checkTableRecord(value: unknown): string | undefined {
  if (!isObject(value) || !isName(value.name)) return 'names no table';
  if (!Array.isArray(value.columns) || value.columns.length === 0 || !value.columns.every(isName)) return 'names no columns';
  return undefined;
}

/** The header's shape, before anything in it is used. */
function checkHeader(value: unknown): string | undefined {
  if (!isObject(value)) return 'is no object';
  if (typeof value.format !== 'number') return 'has no format';
  // A header of another format is told as such by openBackup, whatever else it holds.
  if (value.format !== FORMAT) return undefined;
  if (typeof value.immogate !== 'string' || typeof value.createdAt !== 'string' || typeof value.postgres !== 'string')
    return 'lacks immogate, createdAt or postgres';
  if (!isCount(value.schemaVersion)) return 'has no schemaVersion';
  if (!Array.isArray(value.migrations) || !value.migrations.every((m) => isObject(m) && isCount(m.id) && typeof m.name === 'string'))
    return 'has no list of migrations';
  if (value.secretsKeyId !== null && typeof value.secretsKeyId !== 'string') return 'has a secretsKeyId that is no string';
  if (!Array.isArray(value.tables) || !value.tables.every((t) => checkTableRecord(t) === undefined && isObject(t) && isCount(t.rows)))
    return 'has no list of tables with their columns and rows';
  if (
    !Array.isArray(value.sequences) ||
    !value.sequences.every(
      (q) =>
        isObject(q) &&
        isName(q.name) &&
        typeof q.lastValue === 'string' &&
        /^-?\d{1,19}$/.test(q.lastValue) &&
        typeof q.isCalled === 'boolean',
    )
  )
    return 'has no list of sequences';
  if (typeof value.blobs !== 'boolean') return 'does not say whether it holds blobs';
  return undefined;
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
  let gzipped: boolean;
  try {
    gzipped = await isGzip(file);
    input = fs.createReadStream(file);
  } catch (error) {
    throw new BackupError(`cannot read ${file}: ${messageOf(error)}`);
  }
  // The reader's iterator takes the gunzip's errors from its first read, which follows at once:
  // no await may come between the pipe and that read, or a file that is no gzip fails the stream
  // with nobody listening and ends the process.
  const gunzip = zlib.createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const reader = new Reader(file, gunzip);
  // Not gzip, or gzip of too little: no backup. A gzip file whose start is damaged says so instead.
  const magic = await reader.take(MAGIC.length).catch((error: unknown) => {
    if (gzipped && !/ends early/.test(messageOf(error))) throw error;
    return undefined;
  });
  if (magic === undefined || !magic.equals(MAGIC)) throw new BackupError(`${file} is no immogate backup`);
  const header = await reader.json<BackupHeader>('H', checkHeader);
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

/**
 * Refuses a backup whose schema this immogate does not know (a newer immogate made it), and one
 * whose migrations are not this immogate's first ones in order, as every backup's are.
 */
function checkSchema(header: BackupHeader, file: string): void {
  const all = listMigrations();
  const known = new Map(all.map((migration) => [migration.id, migration.name]));
  const newest = Math.max(...known.keys());
  const unknown = header.migrations.filter((migration) => known.get(migration.id) !== migration.name);
  if (header.schemaVersion > newest || unknown.length > 0) {
    throw new BackupError(
      `${file} is at schema version ${header.schemaVersion} (immogate ${header.immogate}); this immogate knows up to ${newest}` +
        `${unknown.length > 0 ? ` and not migration(s) ${unknown.map(migrationName).join(', ')}` : ''}: ` +
        `restore it with immogate ${header.immogate} or newer`,
    );
  }
  const inOrder = header.migrations.every((migration, at) => all[at]?.id === migration.id);
  if (header.migrations.length === 0 || !inOrder || header.schemaVersion !== header.migrations.at(-1)?.id) {
    throw new BackupError(
      `${file} is damaged: its migrations are not the first ones in order up to its schema version ${header.schemaVersion}`,
    );
  }
}

/** The tables the header lists: each once, none of those never restored from a file (the skipped ones aside). */
function checkTableList(header: BackupHeader, file: string): void {
  const seen = new Set<string>();
  for (const { name } of header.tables) {
    if (NEVER_RESTORED.has(name) && !SKIPPED_ON_RESTORE.has(name)) {
      throw new BackupError(`${file} lists table ${name}, which is never restored from a file: it was not written by immogate backup`);
    }
    if (seen.has(name)) throw new BackupError(`${file} is damaged: it lists table ${name} twice`);
    seen.add(name);
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
 * DATA_DIR): the schema of the backup's migrations, every row, then the migrations this immogate
 * has beyond it, in one transaction, so a failed restore leaves the target as empty as it was;
 * the blobs move into DATA_DIR/blobs only once it committed.
 */
export async function restore(config: Config, file: string, options: { progress: (total: number) => Progress }): Promise<RestoreSummary> {
  const opened = await openBackup(file);
  try {
    const { reader, header } = opened;
    checkSchema(header, file);
    checkTableList(header, file);
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
    // A connection lost mid-restore fails the statement or COPY under way; unheard, the event would crash the process.
    client.on('error', () => undefined);
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
      const migrations = listMigrations();
      await client.query('BEGIN');
      await createMigrationsTable(client);
      for (const migration of migrations.slice(0, header.migrations.length)) {
        await client.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
        await client.query(migration.sql);
      }
      const loaded = header.tables.filter((table) => !SKIPPED_ON_RESTORE.has(table.name));
      const { rows: schema } = await client.query<{ name: string }>(
        `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition`,
      );
      const tables = new Set(schema.map((table) => table.name));
      const stranger = loaded.find((table) => !tables.has(table.name));
      if (stranger) {
        throw new BackupError(
          `${file} lists table ${stranger.name}, which the schema of its migrations (version ${header.schemaVersion}) has not: it was not written by immogate backup`,
        );
      }
      // Migrations may seed rows; the backup holds each table whole.
      if (loaded.length > 0) await client.query(`TRUNCATE ${loaded.map((t) => quoted(t.name)).join(', ')}`);
      // The event feed's triggers stay quiet: the events table is restored with the rest (migrations/017).
      await client.query("SELECT set_config('immogate.restoring', 'on', true)");
      const total = loaded.reduce((sum, table) => sum + table.rows, 0);
      const bar = options.progress(total);
      let done = 0;
      for (const entry of header.tables) {
        const table = await reader.json<{ name: string; columns: string[] }>('T', checkTableRecord);
        if (table.name !== entry.name) throw new BackupError(`${file} is damaged: table ${table.name} where ${entry.name} belongs`);
        if (SKIPPED_ON_RESTORE.has(table.name)) {
          await skipData(reader, file, table.name);
          continue;
        }
        bar.update(done, table.name);
        const copy = client.query(copyFrom(`COPY ${quoted(table.name)} (${columnList(table.columns)}) FROM STDIN`));
        const copied = finished(copy);
        copied.catch(() => undefined);
        let rows = 0;
        try {
          for await (const piece of dataPieces(reader, file, `table ${table.name}`)) {
            rows += countNewlines(piece);
            if (!copy.write(piece)) await Promise.race([once(copy, 'drain'), copied]);
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
        // Blobs replace DATA_DIR/blobs: only a header that said so had it checked empty above.
        if (!header.blobs) throw new BackupError(`${file} is damaged: it holds blob files, and its header says it holds none`);
        const blob = parseRecord<{ path: string; size: number }>(file, 'F', next.payload, (value) =>
          isObject(value) && typeof value.path === 'string' && isCount(value.size) ? undefined : 'names no blob path and size',
        );
        const target = path.join(staging, safeBlobPath(blob.path, file));
        await fsp.mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR });
        const out = fs.createWriteStream(target, { mode: PRIVATE_FILE, flags: 'wx' });
        const written = finished(out);
        written.catch(() => undefined);
        let size = 0;
        try {
          for await (const piece of dataPieces(reader, file, `blob ${blob.path}`)) {
            size += piece.length;
            if (!out.write(piece)) await Promise.race([once(out, 'drain'), written]);
          }
        } finally {
          out.end();
          await written.catch((error: unknown) => {
            throw new BackupError(`${file}: blob ${blob.path} could not be written (${messageOf(error)}): is it listed twice?`);
          });
        }
        if (size !== blob.size)
          throw new BackupError(`${file} is damaged: blob ${blob.path} has ${size} byte(s), its record says ${blob.size}`);
        blobCount += 1;
      }
      // What this immogate has beyond the backup's schema, in the same transaction as the rows.
      await client.query("SELECT set_config('immogate.restoring', 'off', true)");
      const migratedTo: string[] = [];
      for (const migration of migrations.slice(header.migrations.length)) {
        await client.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
        try {
          await client.query(migration.sql);
        } catch (error) {
          throw new BackupError(`migration ${migrationName(migration)} failed on the restored rows: ${messageOf(error)}`);
        }
        migratedTo.push(migrationName(migration));
      }
      await client.query('COMMIT');
      if (blobCount > 0) {
        makePrivateDir(config.dataDir);
        await fsp.rm(blobRoot, { recursive: true, force: true });
        await fsp.rename(staging, blobRoot);
      }
      return {
        file,
        target: database.description,
        schemaVersion: header.schemaVersion,
        migratedTo,
        tables: loaded.length,
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

/** Reads past the rows of a table that is never restored (older backups hold server_listeners). */
async function skipData(reader: Reader, file: string, table: string): Promise<void> {
  for await (const _piece of dataPieces(reader, file, `table ${table}`));
}

/** The pieces of the data records ('D') of a table or blob, up to its end record ('E'), which it takes. */
async function* dataPieces(reader: Reader, file: string, inside: string): AsyncGenerator<Buffer> {
  for (;;) {
    const next = await reader.head();
    if (next.type === 'E') {
      await reader.take(next.length);
      return;
    }
    if (next.type !== 'D') throw new BackupError(`${file} is damaged: record "${next.type}" inside ${inside}`);
    yield* reader.pieces(next.length);
  }
}
