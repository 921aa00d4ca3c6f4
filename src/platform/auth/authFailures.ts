/*
 * Failed client authentications counted per client id and per address in PostgreSQL, so every
 * process sees them: past the limits, the token endpoint answers 429 before hashing anything.
 * Wrong ADMIN_TOKENs are counted the same way, per address, as kind 'operator'.
 */
import type pg from 'pg';

export interface AuthFailureLimits {
  /** Failures per client id within the window after which the client id is refused. */
  perClient: number;
  /** Failures per source address within the window after which the address is refused. */
  perAddress: number;
  /** Wrong ADMIN_TOKENs per source address within the window after which the address is refused as an operator. */
  adminTokenPerAddress: number;
  windowSeconds: number;
}

// A client id longer than any we issue is still counted, by a prefix, so padding cannot dodge the count.
const KEY_LENGTH = 128;

/**
 * Seconds until `clientId` or `address` may try again, when either has used up its failures in
 * the current window; checked before the secret is hashed, so a locked-out guesser costs no scrypt.
 */
export async function lockedFor(pool: pg.Pool, clientId: string, address: string, limits: AuthFailureLimits): Promise<number | undefined> {
  const { rows } = await pool.query<{ kind: 'client' | 'address'; failures: number; retry_after: number }>(
    `SELECT kind, failures,
            ceil(extract(epoch FROM window_started_at + make_interval(secs => $3) - now()))::int AS retry_after
       FROM auth_failures
      WHERE ((kind = 'client' AND key = $1) OR (kind = 'address' AND key = $2))
        AND window_started_at > now() - make_interval(secs => $3)`,
    [clientId.slice(0, KEY_LENGTH), address, limits.windowSeconds],
  );
  const locked = rows.filter((row) => row.failures >= (row.kind === 'client' ? limits.perClient : limits.perAddress));
  if (locked.length === 0) return undefined;
  return Math.max(1, ...locked.map((row) => row.retry_after));
}

/** Counts one failed authentication against the client id and the address (and the client's day, when it exists). */
export async function recordFailure(pool: pg.Pool, clientId: string, address: string, windowSeconds: number): Promise<void> {
  await pool.query(
    `WITH counted AS (
       INSERT INTO auth_failures AS f (kind, key, window_started_at, failures)
       VALUES ('client', $1, now(), 1), ('address', $2, now(), 1)
       ON CONFLICT (kind, key) DO UPDATE SET
         failures = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.failures + 1 ELSE 1 END,
         window_started_at = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.window_started_at ELSE now() END)
     INSERT INTO auth_failure_days AS d (client_id, day, failures)
     SELECT client_id, (now() AT TIME ZONE 'UTC')::date, 1 FROM clients WHERE client_id = $1
     ON CONFLICT (client_id, day) DO UPDATE SET failures = d.failures + 1`,
    [clientId.slice(0, KEY_LENGTH), address, windowSeconds],
  );
}

/** Seconds until `address` may try an ADMIN_TOKEN again, when it has used up its wrong ones in the current window. */
export async function operatorLockedFor(pool: pg.Pool, address: string, limits: AuthFailureLimits): Promise<number | undefined> {
  const { rows } = await pool.query<{ retry_after: number }>(
    `SELECT ceil(extract(epoch FROM window_started_at + make_interval(secs => $2) - now()))::int AS retry_after
       FROM auth_failures
      WHERE kind = 'operator' AND key = $1 AND failures >= $3 AND window_started_at > now() - make_interval(secs => $2)`,
    [address, limits.windowSeconds, limits.adminTokenPerAddress],
  );
  const row = rows[0];
  return row === undefined ? undefined : Math.max(1, row.retry_after);
}

/** Counts one wrong ADMIN_TOKEN against the address. */
export async function recordOperatorFailure(pool: pg.Pool, address: string, windowSeconds: number): Promise<void> {
  await pool.query(
    `INSERT INTO auth_failures AS f (kind, key, window_started_at, failures) VALUES ('operator', $1, now(), 1)
     ON CONFLICT (kind, key) DO UPDATE SET
       failures = CASE WHEN f.window_started_at > now() - make_interval(secs => $2) THEN f.failures + 1 ELSE 1 END,
       window_started_at = CASE WHEN f.window_started_at > now() - make_interval(secs => $2) THEN f.window_started_at ELSE now() END`,
    [address, windowSeconds],
  );
}

/** Windows long over serve nothing; the days serve the report, which looks 90 days back at most. */
export async function pruneAuthFailures(pool: pg.Pool, windowSeconds: number): Promise<void> {
  await pool.query('DELETE FROM auth_failures WHERE window_started_at < now() - make_interval(secs => $1)', [windowSeconds]);
  await pool.query("DELETE FROM auth_failure_days WHERE day < (now() AT TIME ZONE 'UTC')::date - 90");
}
