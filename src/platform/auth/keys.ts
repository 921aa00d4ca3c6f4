/*
 * The token signing keys, shared by every process through the database. The first process to
 * find none creates one under a transaction-scoped advisory lock, so processes starting together
 * agree on a single key.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import type { Sealer } from '../secrets/sealer.js';

export const ALGORITHM = 'ES256';
const RELOAD_INTERVAL_MS = 10_000;

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

interface KeyRow {
  kid: string;
  /** Sealed (see secrets/sealer.ts): a dump of the database cannot mint tokens. */
  private_jwk_sealed: string;
  public_jwk: JWK;
}

const COLUMNS = 'kid, private_jwk_sealed, public_jwk';

/** An ES256 key from its JWK: importJWK answers bytes only for symmetric keys, which no row holds. */
async function importKey(jwk: JWK): Promise<CryptoKey> {
  const key = await importJWK(jwk, ALGORITHM);
  if (key instanceof Uint8Array) throw new Error(`signing key ${jwk.kid ?? ''} is not an ${ALGORITHM} key`);
  return key;
}

export class KeyStore {
  private constructor(
    private readonly pool: pg.Pool,
    private signing: SigningKey,
    private publicKeys: Map<string, { jwk: JWK; key: CryptoKey }>,
  ) {}

  static async open(pool: pg.Pool, sealer: Sealer): Promise<KeyStore> {
    let rows = await KeyStore.rows(pool);
    if (rows.length === 0) {
      rows = await inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['immogate.signing_keys']);
        const existing = await client.query<KeyRow>(`SELECT ${COLUMNS} FROM signing_keys ORDER BY created_at DESC`);
        if (existing.rows.length > 0) return existing.rows;
        const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
        const kid = randomUUID();
        const sealed = sealer.seal(JSON.stringify(await exportJWK(privateKey)), `signing-key:${kid}`);
        const row: KeyRow = { kid, private_jwk_sealed: sealed, public_jwk: await exportJWK(publicKey) };
        await client.query('INSERT INTO signing_keys (kid, algorithm, private_jwk_sealed, public_jwk) VALUES ($1, $2, $3, $4)', [
          kid,
          ALGORITHM,
          row.private_jwk_sealed,
          row.public_jwk,
        ]);
        return [row];
      });
    }
    const newest = rows[0];
    if (!newest) throw new Error('no signing key after creating one');
    // A cast of our own JSON: the sealed value is what exportJWK wrote above.
    const privateJwk = JSON.parse(sealer.unseal(newest.private_jwk_sealed, `signing-key:${newest.kid}`)) as JWK;
    const signing = { kid: newest.kid, key: await importKey(privateJwk) };
    return new KeyStore(pool, signing, await KeyStore.publicMap(rows));
  }

  private static async rows(pool: pg.Pool): Promise<KeyRow[]> {
    return (await pool.query<KeyRow>(`SELECT ${COLUMNS} FROM signing_keys ORDER BY created_at DESC`)).rows;
  }

  private static async publicMap(rows: KeyRow[]): Promise<Map<string, { jwk: JWK; key: CryptoKey }>> {
    const map = new Map<string, { jwk: JWK; key: CryptoKey }>();
    for (const row of rows) {
      map.set(row.kid, { jwk: row.public_jwk, key: await importKey(row.public_jwk) });
    }
    return map;
  }

  signingKey(): SigningKey {
    return this.signing;
  }

  private lastReload = 0;

  /**
   * The public key for `kid`. A kid we have not seen may be a key another process created since
   * we loaded ours, so the table is read again, but at most once per RELOAD_INTERVAL_MS: tokens
   * with made-up kids must not turn into a database read each.
   */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const known = this.publicKeys.get(kid);
    if (known) return known.key;
    const now = Date.now();
    if (now - this.lastReload < RELOAD_INTERVAL_MS) return undefined;
    this.lastReload = now;
    const rows = await KeyStore.rows(this.pool);
    if (!rows.some((row) => row.kid === kid)) return undefined;
    this.publicKeys = await KeyStore.publicMap(rows);
    return this.publicKeys.get(kid)?.key;
  }

  jwks(): { keys: JWK[] } {
    return {
      keys: [...this.publicKeys.entries()].map(([kid, { jwk }]) => ({ ...jwk, kid, alg: ALGORITHM, use: 'sig' })),
    };
  }
}
