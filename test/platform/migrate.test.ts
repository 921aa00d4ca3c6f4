/*
 * Migrations: applied once, in order, each in its own transaction, safe when processes race.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

const NAMES = listMigrations().map((m) => `${String(m.id).padStart(3, '0')}_${m.name}`);

let database: TestDatabase;
let pools: Pool[];
let scratch: string;

before(async () => {
  database = await createTestDatabase({ empty: true });
  pools = Array.from({ length: 4 }, () => createPool(database.url, 2));
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-migrations-'));
});

after(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await database.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A migrations directory holding the real migrations plus `extra` (file name to SQL). */
function directoryWith(extra: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(scratch, 'dir-'));
  for (const migration of listMigrations()) {
    fs.writeFileSync(path.join(dir, `${String(migration.id).padStart(3, '0')}_${migration.name}.sql`), migration.sql);
  }
  for (const [file, sql] of Object.entries(extra)) fs.writeFileSync(path.join(dir, file), sql);
  return dir;
}

async function recorded(pool: Pool): Promise<{ id: number; name: string }[]> {
  return (await pool.query<{ id: number; name: string }>('SELECT id, name FROM immogate_migrations ORDER BY id')).rows;
}

describe('migrate', () => {
  it('applies every migration exactly once when four processes start together on an empty database', { timeout: 60_000 }, async () => {
    const results = await Promise.all(pools.map((pool) => migrate(pool)));

    // Each migration was applied by exactly one of the four callers.
    assert.deepEqual(results.flat().sort(), NAMES);
    assert.deepEqual(
      await recorded(pools[0]!),
      listMigrations().map((m) => ({ id: m.id, name: m.name })),
    );
    // The work queues are immogate's own tables: no graphile_worker schema or add_job function is left in the database.
    const objects = await pools[0]!.query(
      `SELECT to_regclass('caas_processing_queue')::text AS queue, to_regclass('scheduled_tasks')::text AS tasks,
              to_regnamespace('graphile_worker')::text AS graphile,
              to_regprocedure('immogate_add_job(text, json, text, timestamptz, integer, text)')::text AS add_job`,
    );
    assert.deepEqual(objects.rows, [{ queue: 'caas_processing_queue', tasks: 'scheduled_tasks', graphile: null, add_job: null }]);
  });

  it('applies nothing when run again', { timeout: 60_000 }, async () => {
    const results = await Promise.all(pools.map((pool) => migrate(pool)));
    assert.deepEqual(results, [[], [], [], []]);
    assert.equal((await recorded(pools[0]!)).length, NAMES.length);
  });

  it('rolls a failing migration back completely, names it in the error, keeps the ones before it; then refuses the newer schema', {
    timeout: 60_000,
  }, async () => {
    // After the last shipped id (ids may have gaps while branches add theirs).
    const next = Math.max(...listMigrations().map((m) => m.id)) + 1;
    const good = `${String(next).padStart(3, '0')}_good`;
    const broken = `${String(next + 1).padStart(3, '0')}_broken`;
    const directory = directoryWith({
      [`${good}.sql`]: 'CREATE TABLE migrate_test_good (id integer);',
      [`${broken}.sql`]: 'CREATE TABLE migrate_test_broken (id integer);\nINSERT INTO migrate_test_broken VALUES (1);\nSELECT 1 / 0;',
    });

    await assert.rejects(migrate(pools[1]!, { directory }), {
      name: 'Error',
      message: `migration ${broken} failed: division by zero`,
    });

    assert.deepEqual((await recorded(pools[0]!)).slice(-1), [{ id: next, name: 'good' }]);
    const tables = await pools[0]!.query<{ good: string | null; broken: string | null }>(
      "SELECT to_regclass('migrate_test_good')::text AS good, to_regclass('migrate_test_broken')::text AS broken",
    );
    assert.deepEqual(tables.rows[0], { good: 'migrate_test_good', broken: null });

    // The failure released the migration lock: another process can still migrate, and retries the broken one.
    await assert.rejects(migrate(pools[2]!, { directory }), { message: `migration ${broken} failed: division by zero` });
    // The shipped migrations lack the one applied from the extra directory: a newer schema, refused before anything runs.
    await assert.rejects(migrate(pools[3]!), {
      name: 'Error',
      message:
        `this database was migrated by a newer immogate: it has ${good}, which this one does not know ` +
        `(its last is ${NAMES.at(-1)}); run the newer immogate, or restore the backup taken before the upgrade`,
    });
    assert.deepEqual((await recorded(pools[0]!)).slice(-1), [{ id: next, name: 'good' }]);
  });

  it('014 gives the clients there were token generation 0 and lets auth_failures count wrong ADMIN_TOKENs', {
    timeout: 60_000,
  }, async () => {
    const older = await createTestDatabase({ empty: true });
    const pool = createPool(older.url, 2);
    try {
      const dir = fs.mkdtempSync(path.join(scratch, 'before-014-'));
      for (const migration of listMigrations().filter((m) => m.id < 14)) {
        fs.writeFileSync(path.join(dir, `${String(migration.id).padStart(3, '0')}_${migration.name}.sql`), migration.sql);
      }
      await migrate(pool, { directory: dir });
      await pool.query(
        "INSERT INTO clients (client_id, name, secret_hash, scopes, intermediaries) VALUES ('ig_old', 'old', 'h', '{}', '{a}')",
      );
      assert.equal((await migrate(pool))[0], '014_credentials');
      const { rows } = await pool.query('SELECT client_id, token_generation FROM clients');
      assert.deepEqual(rows, [{ client_id: 'ig_old', token_generation: 0 }]);
      await pool.query("INSERT INTO auth_failures (kind, key, window_started_at, failures) VALUES ('operator', '127.0.0.1', now(), 1)");
      await assert.rejects(
        pool.query("INSERT INTO auth_failures (kind, key, window_started_at, failures) VALUES ('other', 'x', now(), 1)"),
        /violates check constraint "auth_failures_kind_check"/,
      );
      await assert.rejects(pool.query("UPDATE clients SET token_generation = -1 WHERE client_id = 'ig_old'"), /violates check constraint/);
    } finally {
      await pool.end();
      await older.drop();
    }
  });

  it('021 drops the per-client-id failure windows, counts per client and address, and gives each database its own identity key', {
    timeout: 60_000,
  }, async () => {
    const older = await createTestDatabase({ empty: true });
    const other = await createTestDatabase({ empty: true });
    const pool = createPool(older.url, 2);
    const otherPool = createPool(other.url, 2);
    try {
      const dir = fs.mkdtempSync(path.join(scratch, 'before-021-'));
      for (const migration of listMigrations().filter((m) => m.id < 21)) {
        fs.writeFileSync(path.join(dir, `${String(migration.id).padStart(3, '0')}_${migration.name}.sql`), migration.sql);
      }
      await migrate(pool, { directory: dir });
      await pool.query(
        `INSERT INTO auth_failures (kind, key, window_started_at, failures)
         VALUES ('client', 'ig_someone', now(), 10), ('address', '192.0.2.1', now(), 3), ('operator', '192.0.2.1', now(), 2)`,
      );
      assert.equal((await migrate(pool))[0], '021_failures_per_client_address_database_identity');
      const { rows } = await pool.query('SELECT kind, key, failures FROM auth_failures ORDER BY kind');
      assert.deepEqual(rows, [
        { kind: 'address', key: '192.0.2.1', failures: 3 },
        { kind: 'operator', key: '192.0.2.1', failures: 2 },
      ]);
      await pool.query(
        "INSERT INTO auth_failures (kind, key, window_started_at, failures) VALUES ('client_address', '192.0.2.1 ig_x', now(), 1)",
      );
      await assert.rejects(
        pool.query("INSERT INTO auth_failures (kind, key, window_started_at, failures) VALUES ('other', 'ig_x', now(), 1)"),
        /violates check constraint "auth_failures_kind_check"/,
      );
      await migrate(otherPool);
      const keyOf = async (of: typeof pool) => {
        const { rows: keys } = await of.query<{ key: Buffer }>('SELECT key FROM database_identity');
        assert.equal(keys.length, 1);
        assert.equal(keys[0]?.key.length, 32);
        return keys[0]?.key.toString('hex');
      };
      assert.notEqual(await keyOf(pool), await keyOf(otherPool));
      await assert.rejects(pool.query("INSERT INTO database_identity (only_row, key) VALUES (true, '\\x00')"), /duplicate key/);
    } finally {
      await pool.end();
      await otherPool.end();
      await older.drop();
      await other.drop();
    }
  });

  it('015 leaves the deliveries waiting for a retry not ready, the others ready, each with its receiver host', {
    timeout: 60_000,
  }, async () => {
    const older = await createTestDatabase({ empty: true });
    const pool = createPool(older.url, 2);
    try {
      const dir = fs.mkdtempSync(path.join(scratch, 'before-015-'));
      for (const migration of listMigrations().filter((m) => m.id < 15)) {
        fs.writeFileSync(path.join(dir, `${String(migration.id).padStart(3, '0')}_${migration.name}.sql`), migration.sql);
      }
      await migrate(pool, { directory: dir });
      const worker = '5f0c1e2a-3b4d-4c5e-8f6a-7b8c9d0e1f2a';
      await pool.query(
        `INSERT INTO webhook_deliveries (id, environment, agency_id, source, subscription_id, url, payload, secret, state, next_attempt_at, claimed_by)
         VALUES ('00000000-0000-4000-8000-000000000001', 'production', 'a', 'leads', 's', 'https://CRM.example.com:8443/hooks?x=1', '{}', 'x',
                 'PENDING', now() + interval '5 minutes', NULL),
                ('00000000-0000-4000-8000-000000000002', 'production', 'a', 'leads', 's', 'http://crm.example.com/hooks', '{}', 'x',
                 'PENDING', now() - interval '1 second', NULL),
                ('00000000-0000-4000-8000-000000000003', 'production', 'a', 'leads', 's', 'http://[2001:db8::1]:81/h', '{}', 'x',
                 'PENDING', now() + interval '8 seconds', $1),
                ('00000000-0000-4000-8000-000000000004', 'production', 'a', 'leads', 's', 'http://crm.example.com/hooks', '{}', 'x',
                 'DELIVERED', NULL, NULL)`,
        [worker],
      );
      assert.equal((await migrate(pool))[0], '015_fair_shares');
      const { rows } = await pool.query('SELECT id, target, ready FROM webhook_deliveries ORDER BY id');
      assert.deepEqual(rows, [
        { id: '00000000-0000-4000-8000-000000000001', target: 'crm.example.com:8443', ready: false },
        { id: '00000000-0000-4000-8000-000000000002', target: 'crm.example.com', ready: true },
        { id: '00000000-0000-4000-8000-000000000003', target: '[2001:db8::1]:81', ready: true },
        { id: '00000000-0000-4000-8000-000000000004', target: 'crm.example.com', ready: true },
      ]);
    } finally {
      await pool.end();
      await older.drop();
    }
  });

  it('moves the revisions a database left unprocessed into the processing queue when it reaches 010', { timeout: 60_000 }, async () => {
    const older = await createTestDatabase({ empty: true });
    const pool = createPool(older.url, 2);
    try {
      const dir = fs.mkdtempSync(path.join(scratch, 'before-010-'));
      for (const migration of listMigrations().filter((m) => m.id < 10)) {
        fs.writeFileSync(path.join(dir, `${String(migration.id).padStart(3, '0')}_${migration.name}.sql`), migration.sql);
      }
      await migrate(pool, { directory: dir });
      const id = '7d1c3a0e-58e6-4b8e-9f3b-0c4e3c5d6a71';
      await pool.query(
        `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload, payload_hash)
         VALUES ($1, 'sandbox', 'agency-1', 'E-1', 2, '{}', 'h')`,
        [id],
      );
      await pool.query(
        `INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation, payload, processed_at)
         VALUES ($1, 1, 'sandbox', 'agency-1', 'POST', '{}', now()), ($1, 2, 'sandbox', 'agency-1', 'PUT', '{}', NULL)`,
        [id],
      );
      const from010 = listMigrations()
        .filter((m) => m.id >= 10)
        .map((m) => `${String(m.id).padStart(3, '0')}_${m.name}`);
      assert.equal(from010[0], '010_work_queues');
      assert.deepEqual(await migrate(pool), from010);
      const { rows } = await pool.query('SELECT classified_id, environment, agency_id, claimed_by, attempts FROM caas_processing_queue');
      assert.deepEqual(rows, [{ classified_id: id, environment: 'sandbox', agency_id: 'agency-1', claimed_by: null, attempts: 0 }]);
    } finally {
      await pool.end();
      await older.drop();
    }
  });
});
