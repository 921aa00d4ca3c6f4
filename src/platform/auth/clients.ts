/*
 * OAuth2 clients: their intermediaries, scopes and environments, hashed secrets, and the record
 * of the tokens they were issued (what `immogate clients report` reviews).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { ALL_SCOPES, ENVIRONMENTS, type Environment } from '../catalogue.js';
import { hashSecret, newSecret } from './secrets.js';
import { onlyRow } from '../db/pool.js';
import type { IssueRequest, TokenTimes } from './tokens.js';

export interface Client {
  clientId: string;
  name: string;
  scopes: string[];
  intermediaries: string[];
  /** The environments the client may get tokens for. */
  environments: Environment[];
  createdAt: string;
  secretRotatedAt: string | null;
  disabledAt: string | null;
}

interface ClientRow {
  client_id: string;
  name: string;
  scopes: string[];
  intermediaries: string[];
  environments: Environment[];
  created_at: Date;
  secret_rotated_at: Date | null;
  disabled_at: Date | null;
  secret_hash: string;
  token_generation: number;
}

export class ClientInputError extends Error {}

/** What a client is given when its creator names no scopes or environments: every API, the sandbox only. */
export const DEFAULT_CLIENT_SCOPES: readonly string[] = ['caas:*', 'clim:*', 'leads:*'];
export const DEFAULT_CLIENT_ENVIRONMENTS: readonly Environment[] = ['sandbox'];

/** The intermediary the sandbox client of a first start acts for, and the CLI's default agency. */
export const DEMO_INTERMEDIARY = 'demo-agency';

const INTERMEDIARY = /^[A-Za-z0-9._:-]{1,128}$/;

function toClient(row: ClientRow): Client {
  return {
    clientId: row.client_id,
    name: row.name,
    scopes: row.scopes,
    intermediaries: row.intermediaries,
    environments: row.environments,
    createdAt: row.created_at.toISOString(),
    secretRotatedAt: row.secret_rotated_at?.toISOString() ?? null,
    disabledAt: row.disabled_at?.toISOString() ?? null,
  };
}

export function validateEnvironments(environments: string[]): Environment[] {
  if (environments.length === 0) throw new ClientInputError('--environments must name at least one environment');
  for (const environment of environments) {
    if (!ENVIRONMENTS.some((known) => known === environment)) {
      throw new ClientInputError(`unknown environment "${environment}"; known environments: ${ENVIRONMENTS.join(', ')}`);
    }
  }
  // Sandbox first, the order in which a client is given them.
  return (['sandbox', 'production'] as const).filter((known) => environments.includes(known));
}

export function validateClientInput(name: string, intermediaries: string[], scopes: string[]): void {
  if (name.trim() === '') throw new ClientInputError('--name must not be empty');
  if (intermediaries.length === 0) throw new ClientInputError('at least one --intermediary is required');
  for (const id of intermediaries) {
    if (!INTERMEDIARY.test(id)) throw new ClientInputError(`intermediary "${id}" must be 1-128 characters of letters, digits, . _ : -`);
  }
  if (scopes.length === 0) throw new ClientInputError('--scopes must name at least one scope');
  for (const scope of scopes) {
    if (!ALL_SCOPES.includes(scope)) throw new ClientInputError(`unknown scope "${scope}"; known scopes: ${ALL_SCOPES.join(' ')}`);
  }
}

export async function createClient(
  pool: pg.Pool | pg.ClientBase,
  input: { name: string; intermediaries: string[]; scopes: string[]; environments: string[] },
): Promise<{ client: Client; secret: string }> {
  const intermediaries = [...new Set(input.intermediaries)];
  const scopes = [...new Set(input.scopes)];
  validateClientInput(input.name, intermediaries, scopes);
  const environments = validateEnvironments(input.environments);
  const clientId = `ig_${randomBytes(12).toString('hex')}`;
  const secret = newSecret();
  const { rows } = await pool.query<ClientRow>(
    `INSERT INTO clients (client_id, name, secret_hash, scopes, intermediaries, environments)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [clientId, input.name.trim(), await hashSecret(secret), scopes, intermediaries, environments],
  );
  return { client: toClient(onlyRow(rows)), secret };
}

export async function listClients(pool: pg.Pool): Promise<Client[]> {
  const { rows } = await pool.query<ClientRow>('SELECT * FROM clients ORDER BY created_at, client_id');
  return rows.map(toClient);
}

/** One page of clients, newest first (as the console lists everything), after the client `after` (a client id) when given. */
export async function listClientsPage(pool: pg.Pool, limit: number, after?: string): Promise<{ clients: Client[]; more: boolean }> {
  const { rows } = await pool.query<ClientRow>(
    `SELECT * FROM clients
      WHERE $1::text IS NULL OR (created_at, client_id) < (SELECT created_at, client_id FROM clients WHERE client_id = $1)
      ORDER BY created_at DESC, client_id DESC LIMIT $2`,
    [after ?? null, limit + 1],
  );
  return { clients: rows.slice(0, limit).map(toClient), more: rows.length > limit };
}

/** What authenticating a client reads besides the client: its secret hash, and the generation its tokens get. */
export interface ClientCredentials extends Client {
  secretHash: string;
  /** Carried by every token issued now (claim token_generation); tokens of an earlier generation are refused. */
  tokenGeneration: number;
}

/** The client, its secret hash and token generation, for authentication; disabled clients are not returned. */
export async function findActiveClient(pool: pg.Pool, clientId: string): Promise<ClientCredentials | undefined> {
  const { rows } = await pool.query<ClientRow>('SELECT * FROM clients WHERE client_id = $1 AND disabled_at IS NULL', [clientId]);
  const row = rows[0];
  return row ? { ...toClient(row), secretHash: row.secret_hash, tokenGeneration: row.token_generation } : undefined;
}

export interface Rotation {
  client: Client;
  secret: string;
  /** Whether every token issued before the rotation is now refused (within the guard's 10 seconds). */
  tokensRevoked: boolean;
  /** The client's console sessions the rotation ended (each ends, whether or not tokens are revoked). */
  consoleSessionsEnded: number;
}

/**
 * A new secret for the client, and its console sessions ended: a session was opened with the
 * old secret, and the next sign-in must prove the new one. With `revokeTokens`, the client's token
 * generation moves on in the same statement, so every token issued before is refused (guard.ts)
 * and every token issued after, which can only have been granted on a row read after this one,
 * carries the new generation.
 */
export async function rotateSecret(
  pool: pg.Pool,
  clientId: string,
  options: { revokeTokens?: boolean } = {},
): Promise<Rotation | undefined> {
  const secret = newSecret();
  const revokeTokens = options.revokeTokens === true;
  const { rows } = await pool.query<ClientRow & { sessions_ended: number }>(
    `WITH rotated AS (
       UPDATE clients SET secret_hash = $2, secret_rotated_at = now(), token_generation = token_generation + $3
        WHERE client_id = $1 RETURNING *),
     ended AS (
       DELETE FROM console_sessions WHERE client_id = (SELECT client_id FROM rotated) RETURNING 1)
     SELECT rotated.*, (SELECT count(*) FROM ended)::int AS sessions_ended FROM rotated`,
    [clientId, await hashSecret(secret), revokeTokens ? 1 : 0],
  );
  const row = rows[0];
  return row ? { client: toClient(row), secret, tokensRevoked: revokeTokens, consoleSessionsEnded: row.sessions_ended } : undefined;
}

/** Sets the environments a client may get tokens for; its tokens already issued live on until they expire. */
export async function setEnvironments(pool: pg.Pool, clientId: string, environments: string[]): Promise<Client | undefined> {
  const { rows } = await pool.query<ClientRow>('UPDATE clients SET environments = $2 WHERE client_id = $1 RETURNING *', [
    clientId,
    validateEnvironments(environments),
  ]);
  const row = rows[0];
  return row ? toClient(row) : undefined;
}

export async function disableClient(pool: pg.Pool, clientId: string): Promise<Client | undefined> {
  const { rows } = await pool.query<ClientRow>(
    'UPDATE clients SET disabled_at = coalesce(disabled_at, now()) WHERE client_id = $1 RETURNING *',
    [clientId],
  );
  const row = rows[0];
  return row ? toClient(row) : undefined;
}

export async function recordIssuance(
  pool: pg.Pool,
  issuance: { jti: string; clientId: string; audience: string; intermediaryId: string; scope: string },
): Promise<void> {
  await pool.query('INSERT INTO token_issuance (jti, client_id, audience, intermediary_id, scope) VALUES ($1, $2, $3, $4, $5)', [
    issuance.jti,
    issuance.clientId,
    issuance.audience,
    issuance.intermediaryId,
    issuance.scope,
  ]);
}

export interface IssuanceReportRow {
  clientId: string;
  name: string;
  day: string;
  tokens: number;
  /** Distinct audience and intermediary pairs: a caching client needs about one token per pair per day. */
  targets: number;
  /** Most tokens issued for one pair that day. */
  maxPerTarget: number;
  reusesTokens: boolean;
  /** Token requests with this client id and a wrong secret that day: a leaked id being guessed at, or a stale secret. */
  failedAuthentications: number;
}

/**
 * Tokens issued and failed authentications per client per day over the last `days` days (UTC).
 * A client that caches its token needs about one per audience and intermediary a day; one that
 * asks for more than `threshold` for a single pair in a day is flagged as not reusing its tokens.
 */
export async function issuanceReport(pool: pg.Pool, days: number, threshold: number, clientId?: string): Promise<IssuanceReportRow[]> {
  const { rows } = await pool.query<{
    client_id: string;
    name: string;
    day: string;
    tokens: number;
    targets: number;
    max_per_target: number;
    failures: number;
  }>(
    `WITH per_target AS (
       SELECT client_id, (issued_at AT TIME ZONE 'UTC')::date AS day, audience, intermediary_id, count(*) AS n
       FROM token_issuance
       WHERE issued_at >= (now() AT TIME ZONE 'UTC')::date - ($1::int - 1)
       GROUP BY 1, 2, 3, 4),
     issued AS (
       SELECT client_id, day, sum(n)::int AS tokens, count(*)::int AS targets, max(n)::int AS max_per_target
       FROM per_target GROUP BY client_id, day),
     failed AS (
       SELECT client_id, day, failures FROM auth_failure_days
       WHERE day >= (now() AT TIME ZONE 'UTC')::date - ($1::int - 1))
     SELECT client_id, c.name, to_char(day, 'YYYY-MM-DD') AS day, coalesce(i.tokens, 0) AS tokens,
            coalesce(i.targets, 0) AS targets, coalesce(i.max_per_target, 0) AS max_per_target, coalesce(f.failures, 0) AS failures
     FROM issued i FULL JOIN failed f USING (client_id, day) JOIN clients c USING (client_id)
     WHERE $2::text IS NULL OR client_id = $2
     ORDER BY day DESC, client_id`,
    [days, clientId ?? null],
  );
  return rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    day: row.day,
    tokens: row.tokens,
    targets: row.targets,
    maxPerTarget: row.max_per_target,
    reusesTokens: row.max_per_target <= threshold,
    failedAuthentications: row.failures,
  }));
}

/**
 * A token the CLI minted for exactly these claims, of the client's current token generation (so
 * never one revoked since), that stays valid for at least `minSeconds` more; the latest expiring.
 */
export async function findCliToken(pool: pg.Pool, wanted: IssueRequest, minSeconds: number): Promise<TokenTimes | undefined> {
  const { rows } = await pool.query<{ jti: string; iat: string; exp: string }>(
    `SELECT c.jti, c.iat, c.exp FROM cli_tokens c JOIN token_issuance t USING (jti)
      WHERE t.client_id = $1 AND t.audience = $2 AND t.intermediary_id = $3 AND t.scope = $4
        AND c.issuer = $5 AND c.token_generation = $6 AND c.exp > extract(epoch FROM now()) + $7
      ORDER BY c.exp DESC LIMIT 1`,
    [wanted.clientId, wanted.audience, wanted.intermediaryId, wanted.scope, wanted.issuer, wanted.tokenGeneration, minSeconds],
  );
  const row = rows[0];
  // bigint columns come back as text from node-postgres; epoch seconds are safe integers.
  return row ? { jti: row.jti, iat: Number(row.iat), exp: Number(row.exp) } : undefined;
}

/** What signing a CLI-minted token again needs beyond its issuance record (recorded first). */
export async function recordCliToken(pool: pg.Pool, issued: IssueRequest & TokenTimes): Promise<void> {
  await pool.query('INSERT INTO cli_tokens (jti, issuer, token_generation, iat, exp) VALUES ($1, $2, $3, $4, $5)', [
    issued.jti,
    issued.issuer,
    issued.tokenGeneration,
    issued.iat,
    issued.exp,
  ]);
}
