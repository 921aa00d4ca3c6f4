/*
 * The PUBLIC_URL of each server listening on this database (table server_listeners), so that the
 * CLI finds the running server without being told its port. A row outlives a server killed with
 * kill -9 (only a stop removes it), so a row names a server only once the server there proves,
 * now, that it serves this database (db/identity.ts): a dead one, or one at an address another
 * process took since, is passed over.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { messageOf } from './caught.js';
import { provesIdentity, readIdentityKey } from './db/identity.js';
import type { Pool } from './db/pool.js';

/** Records that this process now serves `publicUrl`; the function returned forgets it (at stop). */
export async function recordListening(pool: Pool, publicUrl: string): Promise<() => Promise<void>> {
  const instanceId = randomUUID();
  await pool.query('INSERT INTO server_listeners (instance_id, public_url) VALUES ($1, $2)', [instanceId, publicUrl]);
  return async () => {
    await pool.query('DELETE FROM server_listeners WHERE instance_id = $1', [instanceId]);
  };
}

/** A recorded URL whose server did not prove that it serves this database, and why. */
export interface SilentListener {
  url: string;
  why: string;
}

export interface Listeners {
  /** The URLs whose servers proved it, the one started last first. */
  live: string[];
  silent: SilentListener[];
}

/** Why the server at `url` does not prove that it serves the database of `key`, or undefined when it does. */
async function unproven(key: Buffer, url: string, timeoutMs: number): Promise<string | undefined> {
  const challenge = randomBytes(32).toString('base64url');
  let proof: unknown;
  try {
    const response = await fetch(`${url}/ready?challenge=${challenge}`, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    const body: unknown = await response.json().catch(() => undefined);
    proof = typeof body === 'object' && body !== null ? Reflect.get(body, 'proof') : undefined;
  } catch (error) {
    return `could not be asked whether it serves this database (${messageOf(error instanceof Error && error.cause ? error.cause : error)})`;
  }
  return provesIdentity(key, challenge, url, proof) ? undefined : 'did not prove that it serves this database';
}

/**
 * Every URL recorded for this database, each asked at once whether its server serves this database
 * now; but `except`, a server's own URL, which it need not ask itself.
 */
export async function askListeners(pool: Pool, options: { except?: string; timeoutMs?: number } = {}): Promise<Listeners> {
  const { except = null, timeoutMs = 5_000 } = options;
  const { rows } = await pool.query<{ public_url: string }>(
    `SELECT public_url FROM server_listeners WHERE public_url IS DISTINCT FROM $1
      GROUP BY public_url ORDER BY max(started_at) DESC, public_url`,
    [except],
  );
  if (rows.length === 0) return { live: [], silent: [] };
  const key = await readIdentityKey(pool);
  const answers = await Promise.all(rows.map(async ({ public_url: url }) => ({ url, why: await unproven(key, url, timeoutMs) })));
  return {
    live: answers.filter((answer) => answer.why === undefined).map((answer) => answer.url),
    silent: answers.flatMap(({ url, why }) => (why === undefined ? [] : [{ url, why }])),
  };
}
