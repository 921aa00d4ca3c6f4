/*
 * Versioned migrations: the numbered SQL files of migrations/, applied in order under an advisory
 * lock, each in its own transaction.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { messageOf } from '../caught.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../migrations/', import.meta.url));
// Session-level advisory lock: processes starting together apply migrations one at a time.
const LOCK_KEY = 0x1_6a7e_0001;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ id: Number(file.slice(0, 3)), name: file.slice(4, -4), sql: fs.readFileSync(`${dir}/${file}`, 'utf8') }));
}

/** The table of applied migrations; restore (backup.ts) makes it too, inside its own transaction. */
export async function createMigrationsTable(client: pg.ClientBase): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS immogate_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
}

/**
 * Brings the database up to date. Each migration runs in its own transaction that records it
 * first, so a failed migration leaves nothing behind. Returns the names applied by this call.
 * `directory` replaces the shipped migrations directory (tests add a failing migration with it).
 */
export async function migrate(pool: pg.Pool, options: { directory?: string } = {}): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await createMigrationsTable(client);
    const done = new Set((await client.query<{ id: number }>('SELECT id FROM immogate_migrations')).rows.map((row) => row.id));
    for (const migration of listMigrations(options.directory)) {
      if (done.has(migration.id)) continue;
      const name = `${String(migration.id).padStart(3, '0')}_${migration.name}`;
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
        await client.query(migration.sql);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${messageOf(error)}`);
      }
      applied.push(name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
  return applied;
}
