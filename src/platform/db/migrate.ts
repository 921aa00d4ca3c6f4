/*
 * Versioned migrations: the numbered SQL files of migrations/, applied in order under an advisory
 * lock, each in its own transaction.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { messageOf } from '../caught.js';
import { isDatabaseUnavailable } from './unavailable.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../migrations/', import.meta.url));
// Session-level advisory lock: processes starting together apply migrations one at a time.
const LOCK_KEY = 0x1_6a7e_0001;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/**
 * The database holds migrations this immogate does not have: a newer immogate migrated it. Nothing
 * here guarantees that older code works on a newer schema (010 dropped a column, 012 emptied the
 * clear secrets older code reads), so this immogate refuses the database rather than misread it.
 */
export class NewerSchemaError extends Error {}

/** A migration as the CLI and the logs name it: 010_work_queues. */
export function migrationName(migration: { id: number; name: string }): string {
  return `${String(migration.id).padStart(3, '0')}_${migration.name}`;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ id: Number(file.slice(0, 3)), name: file.slice(4, -4), sql: fs.readFileSync(`${dir}/${file}`, 'utf8') }));
}

/** Refuses a database that records a migration missing from `known`. */
function checkKnown(recorded: { id: number; name: string }[], known: Migration[]): void {
  const ids = new Set(known.map((migration) => migration.id));
  const unknown = recorded.filter((migration) => !ids.has(migration.id));
  if (unknown.length === 0) return;
  const last = known.at(-1);
  throw new NewerSchemaError(
    `this database was migrated by a newer immogate: it has ${unknown.map(migrationName).join(', ')}, which this one does not know ` +
      `(its last is ${last ? migrationName(last) : 'none'}); run the newer immogate, or restore the backup taken before the upgrade`,
  );
}

async function recordedMigrations(client: pg.ClientBase | pg.Pool): Promise<{ id: number; name: string }[]> {
  const { rows } = await client.query<{ id: number; name: string }>('SELECT id, name FROM immogate_migrations ORDER BY id');
  return rows;
}

/**
 * The migrations migrate() would apply, in order, changing nothing (immogate migrate --dry-run).
 * Refuses a newer database as migrate() does.
 */
export async function pendingMigrations(pool: pg.Pool, options: { directory?: string } = {}): Promise<string[]> {
  const exists = await pool.query<{ table: string | null }>("SELECT to_regclass('immogate_migrations')::text AS table");
  const recorded = exists.rows[0]?.table ? await recordedMigrations(pool) : [];
  const known = listMigrations(options.directory);
  checkKnown(recorded, known);
  const done = new Set(recorded.map((migration) => migration.id));
  return known.filter((migration) => !done.has(migration.id)).map(migrationName);
}

/** The table of applied migrations; restore (platform/backup.ts) makes it too, inside its own transaction. */
export async function createMigrationsTable(client: pg.ClientBase): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS immogate_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
}

/**
 * Brings the database up to date. Each migration runs in its own transaction that records it
 * first, so a failed migration leaves nothing behind. Returns the names applied by this call.
 * A database with a migration this immogate does not know is refused (NewerSchemaError) before
 * anything is applied: every process starting, server, worker or CLI, migrates first.
 * `directory` replaces the shipped migrations directory (tests add a failing migration with it).
 */
export async function migrate(pool: pg.Pool, options: { directory?: string } = {}): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  // A connection lost under a migration is neither rolled back nor unlocked: it would wait for the
  // same silence again. Destroyed on release, its session ends, which does both on the server.
  let lost: unknown;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await createMigrationsTable(client);
    const recorded = await recordedMigrations(client);
    const known = listMigrations(options.directory);
    checkKnown(recorded, known);
    const done = new Set(recorded.map((migration) => migration.id));
    for (const migration of known) {
      if (done.has(migration.id)) continue;
      const name = migrationName(migration);
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
        await client.query(migration.sql);
        await client.query('COMMIT');
      } catch (error) {
        if (isDatabaseUnavailable(error)) lost = error;
        else await client.query('ROLLBACK');
        // The cause keeps what failed readable to the caller: a start retries a database gone away.
        throw new Error(`migration ${name} failed: ${messageOf(error)}`, { cause: error });
      }
      applied.push(name);
    }
  } catch (error) {
    if (isDatabaseUnavailable(error)) lost = error;
    throw error;
  } finally {
    if (lost === undefined) await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release(lost !== undefined);
  }
  return applied;
}
