/*
 * The columns where immogate keeps sealed secrets: sealing values an older version stored in clear,
 * and the check at start that the key in use opens them.
 */
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { SecretsKeyError, kekId, sealedWith, type Sealer } from './sealer.js';

/**
 * A text column holding sealed values, and the purpose each is sealed for. Table, column and key
 * names come from this code, never from input: they are the only names put into SQL text here.
 */
export interface SealedColumn {
  table: string;
  column: string;
  /** The row's key column, as text. */
  key: string;
  purpose(key: string): string;
  /** Where an older immogate kept the value in clear, when not in `column` itself (jsonb or bytea). */
  clearColumn?: string;
  /** The rows whose secret may still be needed, when not all (SQL condition): the start-up key check reads only those. */
  live?: string;
}

/** Webhook secrets (classified status webhooks, lead subscription apiKeys, and the copies their deliveries keep). */
export const WEBHOOK_SECRET = 'webhook-secret';

const BATCH = 500;

/** Sets the sealed values of the rows `keys`, emptying their clear column too when `clear` says so. */
async function updateValues(client: pg.ClientBase, column: SealedColumn, keys: string[], values: string[], clear = false): Promise<void> {
  const emptied = clear && column.clearColumn ? `, ${column.clearColumn} = NULL` : '';
  await client.query(
    `UPDATE ${column.table} t SET ${column.column} = v.value${emptied}
       FROM unnest($1::text[], $2::text[]) AS v (key, value) WHERE t.${column.key}::text = v.key`,
    [keys, values],
  );
}

/**
 * Seals, once, what an older immogate stored in clear (the first start after migration 012),
 * then checks that this process has the key of every sealed value: a process given another key
 * than the one that sealed them stops here, saying so, rather than at its first webhook.
 */
export async function sealStoredSecrets(pool: pg.Pool, sealer: Sealer, columns: readonly SealedColumn[]): Promise<{ sealed: number }> {
  const sealed = await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['immogate.secrets_state']);
    const { rows: done } = await client.query('SELECT 1 FROM secrets_state');
    if (done.length > 0) return 0;
    let count = 0;
    // A delivery header holding the secret itself (the lead API's X-Api-Key) becomes its secret_header.
    const withHeaders = await client.query<{ id: string; secret: string; headers: Record<string, string> }>(
      "SELECT id, secret, headers FROM webhook_deliveries WHERE headers <> '{}'::jsonb",
    );
    for (const row of withHeaders.rows) {
      const name = Object.keys(row.headers).find((header) => row.headers[header] === row.secret);
      if (name === undefined) continue;
      await client.query('UPDATE webhook_deliveries SET secret_header = $2, headers = headers - $2 WHERE id = $1', [row.id, name]);
    }
    for (const column of columns) {
      const clear = column.clearColumn ?? column.column;
      const unsealed = column.clearColumn ? `${clear} IS NOT NULL` : `${clear} IS NOT NULL AND ${clear} !~ '^ig1\\.'`;
      for (;;) {
        const { rows } = await client.query<{ key: string; value: unknown }>(
          `SELECT ${column.key}::text AS key, ${clear} AS value FROM ${column.table} WHERE ${unsealed} ORDER BY 1 LIMIT ${BATCH}`,
        );
        if (rows.length === 0) break;
        const plain = (value: unknown) => (typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value));
        await updateValues(
          client,
          column,
          rows.map((row) => row.key),
          rows.map((row) => sealer.seal(plain(row.value), column.purpose(row.key))),
          true,
        );
        count += rows.length;
      }
    }
    await client.query('INSERT INTO secrets_state (id) VALUES (1)');
    return count;
  });
  const missing = (await keyIdsInUse(pool, columns)).filter((id) => !sealer.has(id));
  if (missing.length > 0) {
    throw new SecretsKeyError(
      `the secrets in this database are sealed with key ${missing.join(', ')}, which this process does not have (its key is ${sealer.currentId}): ` +
        'start it with the SECRETS_KEY (or DATA_DIR/secrets.key) of the processes that stored them',
    );
  }
  return { sealed };
}

/** The KEK ids the stored values that may still be needed were sealed with. */
async function keyIdsInUse(pool: pg.Pool, columns: readonly SealedColumn[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const column of columns) {
    const live = column.live === undefined ? '' : `AND ${column.live}`;
    const { rows } = await pool.query<{ id: string }>(
      `SELECT DISTINCT split_part(${column.column}, '.', 2) AS id FROM ${column.table} WHERE ${column.column} IS NOT NULL ${live}`,
    );
    for (const row of rows) ids.add(row.id);
  }
  return [...ids];
}

/**
 * Re-wraps every sealed value's data key with `target`, in one transaction: either all values
 * open with the new key or, on any failure, none changed. `sealer` must hold every key in use.
 */
export async function rewrapAll(
  pool: pg.Pool,
  sealer: Sealer,
  target: Buffer,
  columns: readonly SealedColumn[],
  progress: (table: string, done: number) => void,
): Promise<number> {
  const targetId = kekId(target);
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['immogate.secrets_state']);
    let total = 0;
    for (const column of columns) {
      let done = 0;
      let after = '';
      for (;;) {
        const { rows } = await client.query<{ key: string; value: string }>(
          `SELECT ${column.key}::text AS key, ${column.column} AS value FROM ${column.table}
            WHERE ${column.column} IS NOT NULL AND ${column.key}::text > $1 ORDER BY 1 LIMIT ${BATCH}`,
          [after],
        );
        const last = rows.at(-1);
        if (last === undefined) break;
        after = last.key;
        const stale = rows.filter((row) => sealedWith(row.value) !== targetId);
        await updateValues(
          client,
          column,
          stale.map((row) => row.key),
          stale.map((row) => sealer.rewrap(row.value, column.purpose(row.key), target)),
        );
        done += stale.length;
        progress(column.table, done);
      }
      total += done;
    }
    return total;
  });
}
