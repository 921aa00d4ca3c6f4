/*
 * Failed client authentications counted in PostgreSQL, so every process sees them: past the
 * limits, the token endpoint answers 429 before hashing anything. A client id is no secret, so no
 * caller's failures may lock out another: a known client's wrong secrets count against that client
 * from that address only (kind 'client_address'), and only client ids that name no active client
 * count against the address (kind 'address'), which then refuses unknown ids alone. Wrong
 * ADMIN_TOKENs are counted per address, as kind 'operator'. The address is `request.ip`: the
 * client's own behind a proxy trusted by TRUST_PROXY, the peer's otherwise.
 */
import type pg from 'pg';

export interface AuthFailureLimits {
  /** Wrong secrets for a known client from one address within the window, after which that client is refused from there. */
  perClient: number;
  /** Failures for unknown client ids from one address within the window, after which unknown ids from there are refused. */
  perAddress: number;
  /** Wrong ADMIN_TOKENs per source address within the window after which the address is refused as an operator. */
  adminTokenPerAddress: number;
  windowSeconds: number;
}

/** Who failed: a known (active) client at an address, or an unknown client id at an address. */
export type FailingCaller = { knownClientId: string; address: string } | { knownClientId: undefined; address: string };

function counter(caller: FailingCaller, limits: AuthFailureLimits): { kind: string; key: string; limit: number } {
  return caller.knownClientId === undefined
    ? { kind: 'address', key: caller.address, limit: limits.perAddress }
    : { kind: 'client_address', key: `${caller.address} ${caller.knownClientId}`, limit: limits.perClient };
}

/**
 * Seconds until `caller` may try again, when it has used up its failures in the current window;
 * checked before the secret is hashed, so a locked-out guesser costs no scrypt.
 */
export async function lockedFor(pool: pg.Pool, caller: FailingCaller, limits: AuthFailureLimits): Promise<number | undefined> {
  const { kind, key, limit } = counter(caller, limits);
  const { rows } = await pool.query<{ retry_after: number }>(
    `SELECT ceil(extract(epoch FROM window_started_at + make_interval(secs => $3) - now()))::int AS retry_after
       FROM auth_failures
      WHERE kind = $1 AND key = $2 AND failures >= $4 AND window_started_at > now() - make_interval(secs => $3)`,
    [kind, key, limits.windowSeconds, limit],
  );
  const row = rows[0];
  return row === undefined ? undefined : Math.max(1, row.retry_after);
}

/** Counts one failed authentication against `caller` (and a known client's day, for the operator's report). */
export async function recordFailure(pool: pg.Pool, caller: FailingCaller, windowSeconds: number): Promise<void> {
  const { kind, key } = counter(caller, { perClient: 0, perAddress: 0, adminTokenPerAddress: 0, windowSeconds });
  await pool.query(
    `WITH counted AS (
       INSERT INTO auth_failures AS f (kind, key, window_started_at, failures)
       VALUES ($1, $2, now(), 1)
       ON CONFLICT (kind, key) DO UPDATE SET
         failures = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.failures + 1 ELSE 1 END,
         window_started_at = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.window_started_at ELSE now() END)
     INSERT INTO auth_failure_days AS d (client_id, day, failures)
     SELECT client_id, (now() AT TIME ZONE 'UTC')::date, 1 FROM clients WHERE client_id = $4
     ON CONFLICT (client_id, day) DO UPDATE SET failures = d.failures + 1`,
    [kind, key, windowSeconds, caller.knownClientId ?? null],
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
