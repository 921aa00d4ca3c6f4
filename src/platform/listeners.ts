/*
 * The PUBLIC_URL of each server listening on this database (table server_listeners), so that the
 * CLI finds the running server without being told its port: the newest row is the answer, which
 * with several servers means the one started last.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from './db/pool.js';

/** Records that this process now serves `publicUrl`; the function returned forgets it (at stop). */
export async function recordListening(pool: Pool, publicUrl: string): Promise<() => Promise<void>> {
  const instanceId = randomUUID();
  await pool.query('INSERT INTO server_listeners (instance_id, public_url) VALUES ($1, $2)', [instanceId, publicUrl]);
  return async () => {
    await pool.query('DELETE FROM server_listeners WHERE instance_id = $1', [instanceId]);
  };
}

/** The PUBLIC_URL of the server that started listening last, if one is recorded. */
export async function latestPublicUrl(pool: Pool): Promise<string | undefined> {
  const { rows } = await pool.query<{ public_url: string }>(
    'SELECT public_url FROM server_listeners ORDER BY started_at DESC, instance_id LIMIT 1',
  );
  return rows[0]?.public_url;
}
