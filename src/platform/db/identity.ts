/*
 * The database's identity: a random key made by migration 021, never backed up, restored or sent.
 * A server proves it serves this database by answering a challenge with a MAC under the key of the
 * challenge and its own PUBLIC_URL (on /ready). The CLI, which can read the key, checks that proof
 * before it sends a client secret to a URL it read from the database: a URL a crafted row names
 * is answered by a server without the key, and one that relays the challenge to a real server
 * gets a proof bound to that server's URL, not its own.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';

/** A challenge: 32 random bytes, base64url. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function readIdentityKey(pool: pg.Pool): Promise<Buffer> {
  const { rows } = await pool.query<{ key: Buffer }>('SELECT key FROM database_identity');
  const key = rows[0]?.key;
  if (key === undefined) throw new Error('the database has no identity key (table database_identity is empty)');
  return key;
}

export function identityProof(key: Buffer, challenge: string, publicUrl: string): string {
  return createHmac('sha256', key).update(`immogate database identity\n${challenge}\n${publicUrl}`).digest('base64url');
}

/** Whether `proof` is the proof of `challenge` for `publicUrl` under `key`, compared in constant time. */
export function provesIdentity(key: Buffer, challenge: string, publicUrl: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(identityProof(key, challenge, publicUrl));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
