import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// Counts come back as bigint strings; our counts fit a JavaScript number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection (database restart) must not crash the process;
  // the pool replaces it on the next checkout.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `fn` in a transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
