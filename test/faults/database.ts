/*
 * Database faults made from outside, through the admin connection of the test run: the test's
 * own database stops accepting connections (its backends terminated), or turns read-only. The
 * same on the embedded PostgreSQL of `npm test` and on the one of DATABASE_URL.
 */
import pg from 'pg';

async function asAdmin(work: (admin: pg.Client) => Promise<void>): Promise<void> {
  const url = process.env.IMMOGATE_TEST_ADMIN_URL;
  if (!url) throw new Error('IMMOGATE_TEST_ADMIN_URL is not set: run the tests with npm test');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** Ends every connection to `database` (those of the server under test and of the test alike). */
async function terminate(admin: pg.Client, database: string): Promise<void> {
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
}

/** `ALLOW_CONNECTIONS false` and its backends terminated: to its clients the database is gone. */
export function refuseConnections(database: string): Promise<void> {
  return asAdmin(async (admin) => {
    // A database name is an identifier, which cannot be a parameter: quoted by the driver.
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(database)} ALLOW_CONNECTIONS false`);
    await terminate(admin, database);
  });
}

export function allowConnections(database: string): Promise<void> {
  return asAdmin(async (admin) => {
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(database)} ALLOW_CONNECTIONS true`);
  });
}

/** Every new session of `database` read-only (as on a standby), the open ones terminated. */
export function setReadOnly(database: string, readOnly: boolean): Promise<void> {
  return asAdmin(async (admin) => {
    const name = admin.escapeIdentifier(database);
    await admin.query(
      readOnly
        ? `ALTER DATABASE ${name} SET default_transaction_read_only = on`
        : `ALTER DATABASE ${name} RESET default_transaction_read_only`,
    );
    await terminate(admin, database);
  });
}
