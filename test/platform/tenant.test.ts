/*
 * Tenant confinement: withTenant, tenantTransaction, tenantRead and row-level security on every tenant table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Environment } from '../../src/platform/catalogue.js';
import { runInOneTransaction } from '../../src/platform/db/oneTransaction.js';
import { createPool, transaction, type Pool } from '../../src/platform/db/pool.js';
import { MAX_BATCH } from '../../src/platform/db/readTogether.js';
import { confineTo, tenantRead, tenantTransaction, withTenant } from '../../src/platform/db/tenant.js';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;

const A = { environment: 'production', agencyId: 'agency-a' } as const;
const B = { environment: 'production', agencyId: 'agency-b' } as const;
const A_SANDBOX = { environment: 'sandbox', agencyId: 'agency-a' } as const;
const QUOTED = { environment: 'production', agencyId: "o'reilly\\" } as const;

const RLS_REFUSED = { code: '42501', message: 'new row violates row-level security policy for table "notes"' };

before(async () => {
  database = await createTestDatabase();
  // One connection: every test also shows that a tenant transaction leaves nothing behind on it.
  pool = createPool(database.url, 1);
  // A table shaped like the APIs' tenant tables: a serial key and an identity column, both of
  // which the tenant role must be able to draw from.
  await pool.query(`
    CREATE TABLE notes (
      id bigserial PRIMARY KEY,
      revision integer GENERATED ALWAYS AS IDENTITY,
      environment text NOT NULL,
      agency_id text NOT NULL,
      body text NOT NULL
    );
    SELECT immogate_isolate_tenant('notes');
    INSERT INTO notes (environment, agency_id, body) VALUES
      ('production', 'agency-a', 'a1'),
      ('production', 'agency-a', 'a2'),
      ('production', 'agency-b', 'b1'),
      ('sandbox', 'agency-a', 'a-sandbox'),
      ('production', 'o''reilly\\', 'quoted'),
      ('production', 'x', 'x1');
  `);
});

after(async () => {
  await pool.end();
  await database.drop();
});

function bodies(tenant: { environment: Environment; agencyId: string }): Promise<string[]> {
  return withTenant(pool, tenant, async (client) =>
    (await client.query<{ body: string }>('SELECT body FROM notes ORDER BY body')).rows.map((r) => r.body),
  );
}

/** The backend process of the pool's (one) connection. */
async function backend(of: Pool): Promise<number | undefined> {
  return (await of.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
}

/** Which of `names` the pool's connection has prepared. */
async function prepared(names: string[]): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = ANY($1) ORDER BY name', [
    names,
  ]);
  return rows.map((row) => row.name);
}

/** Every row, read as the owner (not subject to row-level security). */
async function allRows(): Promise<{ environment: string; agency_id: string; body: string }[]> {
  return (await pool.query('SELECT environment, agency_id, body FROM notes ORDER BY body, environment, agency_id')).rows;
}

describe('withTenant', () => {
  it('shows a tenant only its own rows, even for a query without WHERE', async () => {
    assert.deepEqual(await bodies(A), ['a1', 'a2']);
    assert.deepEqual(await bodies(B), ['b1']);
    assert.deepEqual(
      await withTenant(pool, A, async (client) => (await client.query('SELECT count(*)::int AS n, max(body) AS last FROM notes')).rows),
      [{ n: 2, last: 'a2' }],
    );
  });

  it('keeps production and sandbox of the same agency apart', async () => {
    assert.deepEqual(await bodies(A_SANDBOX), ['a-sandbox']);
    assert.deepEqual(await bodies({ environment: 'sandbox', agencyId: 'agency-b' }), []);
  });

  it('lets a tenant insert its own rows, drawing ids from the serial and identity sequences', async () => {
    const inserted = await withTenant(
      pool,
      A,
      async (client) =>
        (
          await client.query(
            "INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-a', 'a3') RETURNING environment, agency_id, body",
          )
        ).rows,
    );
    assert.deepEqual(inserted, [{ environment: 'production', agency_id: 'agency-a', body: 'a3' }]);
    assert.deepEqual(await bodies(A), ['a1', 'a2', 'a3']);
    await pool.query("DELETE FROM notes WHERE body = 'a3'");
  });

  it('refuses an INSERT for another agency or another environment', async () => {
    await assert.rejects(
      withTenant(pool, A, (client) =>
        client.query("INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-b', 'forged')"),
      ),
      RLS_REFUSED,
    );
    await assert.rejects(
      withTenant(pool, A, (client) =>
        client.query("INSERT INTO notes (environment, agency_id, body) VALUES ('sandbox', 'agency-a', 'forged')"),
      ),
      RLS_REFUSED,
    );
    assert.equal((await allRows()).filter((row) => row.body === 'forged').length, 0);
  });

  it('refuses an UPDATE that moves a row to another tenant', async () => {
    await assert.rejects(
      withTenant(pool, A, (client) => client.query("UPDATE notes SET agency_id = 'agency-b' WHERE body = 'a1'")),
      RLS_REFUSED,
    );
    await assert.rejects(
      withTenant(pool, A, (client) => client.query("UPDATE notes SET environment = 'sandbox' WHERE body = 'a1'")),
      RLS_REFUSED,
    );
    assert.deepEqual(
      (await allRows()).find((row) => row.body === 'a1'),
      { environment: 'production', agency_id: 'agency-a', body: 'a1' },
    );
  });

  it("cannot UPDATE or DELETE another tenant's rows: they are not there for it", async () => {
    const before = await allRows();
    const counts = await withTenant(pool, A, async (client) => ({
      updated: (await client.query("UPDATE notes SET body = 'hijacked' WHERE agency_id = 'agency-b' OR environment = 'sandbox'")).rowCount,
      deleted: (await client.query("DELETE FROM notes WHERE agency_id <> 'agency-a' OR environment <> 'production'")).rowCount,
    }));
    assert.deepEqual(counts, { updated: 0, deleted: 0 });
    assert.deepEqual(await allRows(), before);
  });

  it('passes an agency id with quotes and backslashes as data, never as SQL', async () => {
    assert.deepEqual(await bodies(QUOTED), ['quoted']);
    // Attempts to break out of the set_config literal select nothing instead of widening the filter.
    for (const agencyId of [
      "x' OR '1'='1",
      "x', true), set_config('immogate.agency_id', 'agency-b",
      "agency-a'; RESET ROLE; --",
      'x\\',
      "x'",
    ]) {
      assert.deepEqual(await bodies({ environment: 'production', agencyId }), [], agencyId);
    }
  });

  it('leaves the connection as it was: the role and the settings end with the transaction', async () => {
    await bodies(A);
    await assert.rejects(
      withTenant(pool, A, () => Promise.reject(new Error('handler failed'))),
      { message: 'handler failed' },
    );
    const { rows } = await pool.query(
      "SELECT current_user = session_user AS own_role, coalesce(current_setting('immogate.agency_id', true), '') AS agency, count(*)::int AS visible FROM notes",
    );
    assert.deepEqual(rows, [{ own_role: true, agency: '', visible: 6 }]);
  });

  it('denies the tenant role the platform tables', async () => {
    for (const table of ['clients', 'signing_keys', 'token_issuance', 'rate_limit_windows', 'immogate_migrations', 'scheduled_tasks']) {
      await assert.rejects(
        withTenant(pool, A, (client) => client.query(`SELECT * FROM ${table}`)),
        {
          code: '42501',
          message: `permission denied for table ${table}`,
        },
      );
    }
    await assert.rejects(
      withTenant(pool, A, (client) => client.query("SELECT immogate_isolate_tenant('clients')")),
      {
        code: '42501',
        message: 'permission denied for function immogate_isolate_tenant',
      },
    );
  });
});

describe('tenantTransaction', () => {
  it('runs its statements in one tenant transaction and answers one result per statement', async () => {
    const [count, inserted, read] = await tenantTransaction(pool, A, [
      { text: 'SELECT count(*)::int AS n FROM notes' },
      {
        text: 'INSERT INTO notes (environment, agency_id, body) VALUES ($1, $2, $3) RETURNING body',
        values: ['production', 'agency-a', 'a3'],
      },
      { text: 'SELECT body FROM notes ORDER BY body' },
    ]);
    assert.deepEqual(count!.rows, [{ n: 2 }]);
    assert.deepEqual(inserted!.rows, [{ body: 'a3' }]);
    assert.deepEqual(read!.rows, [{ body: 'a1' }, { body: 'a2' }, { body: 'a3' }]);
    await pool.query("DELETE FROM notes WHERE body = 'a3'");
  });

  it('refuses rows of another tenant, and a failing statement undoes the ones before it', async () => {
    const before = await allRows();
    await assert.rejects(
      tenantTransaction(pool, A, [
        { text: "INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-a', 'kept?')" },
        { text: "INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-b', 'forged')" },
        { text: "INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-a', 'after')" },
      ]),
      RLS_REFUSED,
    );
    assert.deepEqual(await allRows(), before);
  });

  it('passes an agency id with quotes and backslashes as data, and leaves the connection as it was', async () => {
    const [quoted] = await tenantTransaction(pool, QUOTED, [{ text: 'SELECT body FROM notes' }]);
    assert.deepEqual(quoted!.rows, [{ body: 'quoted' }]);
    const [injected] = await tenantTransaction(pool, { environment: 'production', agencyId: "x'; RESET ROLE; --" }, [
      { text: 'SELECT body FROM notes' },
    ]);
    assert.deepEqual(injected!.rows, []);
    const { rows } = await pool.query(
      "SELECT current_user = session_user AS own_role, coalesce(current_setting('immogate.agency_id', true), '') AS agency, count(*)::int AS visible FROM notes",
    );
    assert.deepEqual(rows, [{ own_role: true, agency: '', visible: 6 }]);
  });
});

describe('one transaction of known statements (tenantTransaction, transaction)', () => {
  it("sees nothing as the tenant role without the tenant's settings, also on a connection a tenant transaction used just before", async () => {
    await tenantTransaction(pool, A, [{ text: 'SELECT body FROM notes' }]);
    const client = await pool.connect();
    try {
      const [, visible, setting] = await runInOneTransaction(client, [
        { text: "SELECT set_config('role', 'immogate_tenant', true)" },
        { text: 'SELECT count(*)::int AS n FROM notes' },
        { text: "SELECT coalesce(current_setting('immogate.agency_id', true), '') AS agency" },
      ]).results;
      assert.deepEqual(visible!.rows, [{ n: 0 }]);
      assert.deepEqual(setting!.rows, [{ agency: '' }]);
    } finally {
      client.release();
    }
  });

  it('runs the statements as one transaction, and leaves none open', async () => {
    const client = await pool.connect();
    try {
      const [first, second] = await runInOneTransaction(client, [
        { text: 'SELECT txid_current() AS xid' },
        { text: 'SELECT txid_current() AS xid' },
      ]).results;
      // One transaction for both statements.
      assert.equal(first!.rows[0].xid, second!.rows[0].xid);
      const { rows } = await client.query('SELECT txid_current_if_assigned() AS open');
      assert.deepEqual(rows, [{ open: null }]);
    } finally {
      client.release();
    }
  });

  it("prepares a named statement once per connection, and keeps using it beside pg's own queries of the same name", async () => {
    const named = { name: 'test.tenant_bodies', text: 'SELECT body FROM notes ORDER BY body' };
    for (let i = 0; i < 3; i += 1) {
      const [rows] = await tenantTransaction(pool, A, [named]);
      assert.deepEqual(rows!.rows, [{ body: 'a1' }, { body: 'a2' }]);
    }
    // pg's Query finds it prepared on the connection and binds it without a Parse.
    const { rows } = await pool.query(named);
    assert.equal(rows.length, 6);
    const prepared = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'test.tenant_bodies'",
    );
    assert.deepEqual(prepared.rows, [{ n: 1 }]);
  });

  it('prepares each new named statement just before its first use: a failure keeps the connection and the statements before it', async () => {
    const count = { name: 'test.count_notes', text: 'SELECT count(*)::int AS n FROM notes' };
    const forged = {
      name: 'test.insert_note',
      text: 'INSERT INTO notes (environment, agency_id, body) VALUES ($1, $2, $3) RETURNING body',
    };
    const broken = { name: 'test.broken', text: 'SELECT body FROM no_such_table' };
    const names = [count.name, forged.name, broken.name];
    const pid = await backend(pool);
    const before = await allRows();
    await assert.rejects(
      tenantTransaction(pool, A, [count, { ...forged, values: ['production', 'agency-b', 'forged'] }, broken]),
      RLS_REFUSED,
    );
    assert.deepEqual(await allRows(), before);
    assert.equal(await backend(pool), pid);
    // The one before the failure stays prepared; the failing one is closed (its Parse or its run
    // failed); the one after it was never parsed.
    assert.deepEqual(await prepared(names), ['test.count_notes']);
    const [counted, inserted] = await tenantTransaction(pool, A, [count, { ...forged, values: ['production', 'agency-a', 'a3'] }]);
    assert.deepEqual([counted!.rows, inserted!.rows], [[{ n: 2 }], [{ body: 'a3' }]]);
    await assert.rejects(tenantTransaction(pool, A, [broken]), { code: '42P01', message: 'relation "no_such_table" does not exist' });
    assert.deepEqual(await prepared(names), ['test.count_notes', 'test.insert_note']);
    assert.equal(await backend(pool), pid);
    await pool.query("DELETE FROM notes WHERE body = 'a3'");
  });

  it('takes its locks in the order of its statements: a new statement is parsed where it runs, not ahead of a LOCK TABLE', async () => {
    await pool.query('CREATE TABLE lock_first (id int)');
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE notes IN ACCESS EXCLUSIVE MODE');
      const waiting = transaction(pool, [
        { name: 'test.lock_first', text: 'LOCK TABLE lock_first IN SHARE MODE' },
        { name: 'test.count_all_notes', text: 'SELECT count(*)::int AS n FROM notes' },
      ]);
      const locks = async () =>
        (
          await holder.query<{ relation: string; mode: string; granted: boolean }>(
            `SELECT relation::regclass::text AS relation, mode, granted FROM pg_locks
              WHERE pid <> pg_backend_pid() AND relation IN ('lock_first'::regclass, 'notes'::regclass) ORDER BY relation::regclass::text`,
          )
        ).rows;
      const expected = [
        { relation: 'lock_first', mode: 'ShareLock', granted: true },
        { relation: 'notes', mode: 'AccessShareLock', granted: false },
      ];
      for (let tries = 0; tries < 100 && JSON.stringify(await locks()) !== JSON.stringify(expected); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(await locks(), expected);
      await holder.query('ROLLBACK');
      const [locked, counted] = await waiting;
      assert.deepEqual([locked!.command, counted!.rows], ['LOCK', [{ n: 6 }]]);
    } finally {
      await holder.end();
      await pool.query('DROP TABLE lock_first');
    }
  });

  it('keeps the connection when a Parse meets a locked table and its lock deadline (a Parse locks what its statement names)', async () => {
    const deadlines = {
      statementTimeoutMs: 0,
      lockTimeoutMs: 200,
      idleInTransactionTimeoutMs: 0,
      queryTimeoutMs: 0,
      checkoutTimeoutMs: 1_000,
    };
    const timed = createPool(database.url, 1, deadlines);
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      const pid = await backend(timed);
      const insert = {
        name: 'test.insert_while_locked',
        text: 'INSERT INTO notes (environment, agency_id, body) VALUES ($1, $2, $3) RETURNING body',
        values: ['production', 'agency-a', 'a3'],
      };
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE notes IN ACCESS EXCLUSIVE MODE');
      await assert.rejects(tenantTransaction(timed, A, [insert]), { code: '55P03', message: 'canceling statement due to lock timeout' });
      await holder.query('ROLLBACK');
      assert.equal(await backend(timed), pid);
      const [inserted] = await tenantTransaction(timed, A, [insert]);
      assert.deepEqual(inserted!.rows, [{ body: 'a3' }]);
      await pool.query("DELETE FROM notes WHERE body = 'a3'");
    } finally {
      await holder.end();
      await timed.end();
    }
  });

  it('confines each part of one exchange to its tenant, the confinement named twice (group commit does so)', async () => {
    const read = { name: 'test.read_bodies', text: 'SELECT body FROM notes ORDER BY body' };
    const [, a, , b] = await transaction(pool, [confineTo(A), read, confineTo(B), read]);
    assert.deepEqual(a!.rows, [{ body: 'a1' }, { body: 'a2' }]);
    assert.deepEqual(b!.rows, [{ body: 'b1' }]);
  });

  it('opens a block of its own for LOCK TABLE, and after a failure there rolls it back and keeps the connection', async () => {
    const lock = { name: 'test.lock_notes', text: 'LOCK TABLE notes IN ROW EXCLUSIVE MODE' };
    const insert = { text: 'INSERT INTO notes (environment, agency_id, body) VALUES ($1, $2, $3) RETURNING body' };
    const [locked, inserted] = await tenantTransaction(pool, A, [lock, { ...insert, values: ['production', 'agency-a', 'a3'] }]);
    assert.deepEqual([locked!.command, inserted!.rows], ['LOCK', [{ body: 'a3' }]]);
    const before = await allRows();
    await assert.rejects(tenantTransaction(pool, A, [lock, { ...insert, values: ['production', 'agency-b', 'forged'] }]), RLS_REFUSED);
    assert.deepEqual(await allRows(), before);
    const { rows } = await pool.query('SELECT txid_current_if_assigned() AS open, current_user = session_user AS own_role');
    assert.deepEqual(rows, [{ open: null, own_role: true }]);
    await pool.query("DELETE FROM notes WHERE body = 'a3'");
  });

  it('refuses a statement name used before for another text, sending nothing', async () => {
    await tenantTransaction(pool, A, [{ name: 'test.one_name', text: 'SELECT 1 AS one' }]);
    await assert.rejects(tenantTransaction(pool, A, [{ name: 'test.one_name', text: 'SELECT 2 AS two' }]), {
      message: 'The prepared statement test.one_name was used for another statement',
    });
    const [still] = await tenantTransaction(pool, A, [{ name: 'test.one_name', text: 'SELECT 1 AS one' }]);
    assert.deepEqual(still!.rows, [{ one: 1 }]);
  });
});

describe('tenantRead: the reads of a moment share one connection and one write', () => {
  /** A read that says which backend ran it, in which transaction, and what its tenant sees. */
  const SEEN = {
    name: 'test.read_seen',
    text: 'SELECT pg_backend_pid() AS pid, txid_current() AS xid, (SELECT array_agg(body ORDER BY body) FROM notes) AS bodies',
  };
  type Seen = { pid: number; xid: number; bodies: string[] | null };

  async function seen(of: Pool, tenant: { environment: Environment; agencyId: string }): Promise<Seen> {
    const [result] = await tenantRead(of, tenant, [SEEN]);
    return result!.rows[0] as Seen;
  }

  /** A pool of `size` that counts its checkouts. */
  function countingPool(size: number): { pool: Pool; checkouts: () => number } {
    const counted = createPool(database.url, size);
    let checkouts = 0;
    counted.on('acquire', () => {
      checkouts += 1;
    });
    return { pool: counted, checkouts: () => checkouts };
  }

  it('sends the reads of one turn on one connection, each in its own transaction, confined to its own tenant', async () => {
    const { pool: two, checkouts } = countingPool(2);
    try {
      // The first read prepares the statement, alone; the four after it travel together.
      await seen(two, A);
      const before = checkouts();
      const reads = await Promise.all([A, B, A_SANDBOX, QUOTED].map((tenant) => seen(two, tenant)));
      assert.deepEqual(
        reads.map((read) => read.bodies),
        [['a1', 'a2'], ['b1'], ['a-sandbox'], ['quoted']],
      );
      assert.equal(checkouts() - before, 1);
      assert.equal(new Set(reads.map((read) => read.pid)).size, 1);
      assert.equal(new Set(reads.map((read) => read.xid)).size, 4);
      const { rows } = await two.query(
        "SELECT current_user = session_user AS own_role, coalesce(current_setting('immogate.agency_id', true), '') AS agency, txid_current_if_assigned() AS open",
      );
      assert.deepEqual(rows, [{ own_role: true, agency: '', open: null }]);
    } finally {
      await two.end();
    }
  });

  it('fails a failing read alone: the reads around it in the same write are answered', async () => {
    const { pool: one, checkouts } = countingPool(1);
    try {
      const pid = (await seen(one, A)).pid;
      const before = checkouts();
      const [first, failed, last] = await Promise.allSettled([
        seen(one, A),
        tenantRead(one, A, [{ text: 'SELECT 1 / (SELECT count(*)::int - 2 FROM notes) AS never' }]),
        seen(one, B),
      ]);
      assert.equal(checkouts() - before, 1);
      assert.deepEqual(first.status === 'fulfilled' && first.value.bodies, ['a1', 'a2']);
      assert.deepEqual(failed.status === 'rejected' && { code: failed.reason.code, message: failed.reason.message }, {
        code: '22012',
        message: 'division by zero',
      });
      assert.deepEqual(last.status === 'fulfilled' && last.value.bodies, ['b1']);
      assert.equal((await seen(one, B)).pid, pid);
    } finally {
      await one.end();
    }
  });

  it('runs a read that prepares a statement first and alone: its failed Parse fails only itself', async () => {
    const { pool: one } = countingPool(1);
    try {
      const broken = { name: 'test.read_broken', text: 'SELECT body FROM no_such_table' };
      const [failed, ...answered] = await Promise.allSettled([
        tenantRead(one, A, [broken]),
        seen(one, A),
        seen(one, B),
        seen(one, A_SANDBOX),
      ]);
      assert.deepEqual(failed!.status === 'rejected' && failed.reason.code, '42P01');
      assert.deepEqual(
        answered.map((read) => read.status === 'fulfilled' && read.value.bodies),
        [['a1', 'a2'], ['b1'], ['a-sandbox']],
      );
      const { rows } = await one.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'test.read_%' ORDER BY name");
      assert.deepEqual(rows, [{ name: 'test.read_seen' }]);
    } finally {
      await one.end();
    }
  });

  it('takes in the reads that come while its batch waits for a connection, up to MAX_BATCH a batch', async () => {
    const { pool: one, checkouts } = countingPool(1);
    try {
      await seen(one, A);
      const held = await one.connect();
      const before = checkouts();
      const first = seen(one, A);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const later = [seen(one, B), seen(one, A_SANDBOX)];
      held.release();
      const reads = await Promise.all([first, ...later]);
      assert.deepEqual(
        reads.map((read) => read.bodies),
        [['a1', 'a2'], ['b1'], ['a-sandbox']],
      );
      assert.equal(checkouts() - before, 1);
      const many = await Promise.all(Array.from({ length: MAX_BATCH + 1 }, () => seen(one, B)));
      assert.equal(many.filter((read) => JSON.stringify(read.bodies) === '["b1"]').length, MAX_BATCH + 1);
      assert.equal(checkouts() - before, 3);
    } finally {
      await one.end();
    }
  });

  it('refuses a statement that needs a transaction block: such a read would hold up the reads behind it', async () => {
    await assert.rejects(tenantRead(pool, A, [{ text: 'LOCK TABLE notes IN SHARE MODE' }]), {
      message: 'readTogether runs reads; a statement here needs a transaction block',
    });
  });
});

describe('immogate_isolate_tenant', () => {
  it('can be applied again, for a serial column added later', async () => {
    await pool.query("ALTER TABLE notes ADD COLUMN position bigserial; SELECT immogate_isolate_tenant('notes')");
    const inserted = await withTenant(
      pool,
      B,
      async (client) =>
        (await client.query("INSERT INTO notes (environment, agency_id, body) VALUES ('production', 'agency-b', 'b2') RETURNING body"))
          .rows,
    );
    assert.deepEqual(inserted, [{ body: 'b2' }]);
    assert.deepEqual(await bodies(B), ['b1', 'b2']);
    assert.deepEqual(await bodies(A), ['a1', 'a2']);
    const policies = await pool.query("SELECT policyname FROM pg_policies WHERE tablename = 'notes'");
    assert.deepEqual(policies.rows, [{ policyname: 'tenant_isolation' }]);
  });
});
