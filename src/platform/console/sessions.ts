/*
 * The console's sign-in sessions. The browser holds a random value in an HttpOnly cookie; the
 * database holds its SHA-256, the session's CSRF token and, for an integrator, the tokens its
 * client got from the token service (sealed), one per API audience. A later sign-in of the same
 * client, agency and environment reuses those tokens while they outlive the new session, so
 * signing in again does not cost the client a token (the sandbox review counts them).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import type { Sealer } from '../secrets/sealer.js';

export const SESSION_COOKIE = 'immogate_console';
/** How long a sign-in lasts; the tokens it uses must live at least as long. */
export const SESSION_SECONDS = 8 * 3600;
/** The purpose the session tokens are sealed for (sealedColumns.ts lists the column). */
export const CONSOLE_TOKENS = 'console-tokens';

export interface SessionToken {
  /** The absolute API root the token is for. */
  audience: string;
  token: string;
  expiresAt: string;
}

export interface IntegratorSession {
  kind: 'integrator';
  clientId: string;
  agency: string;
  environment: Environment;
  tokens: SessionToken[];
  csrfToken: string;
  expiresAt: Date;
}

export interface OperatorSession {
  kind: 'operator';
  csrfToken: string;
  expiresAt: Date;
}

export type ConsoleSession = IntegratorSession | OperatorSession;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's guard on every route under /console/api but the sign-in. */
    consoleSession: ConsoleSession | null;
  }
}

/** The session of a console request, as the console's guard left it. */
export function sessionOf(request: FastifyRequest): ConsoleSession {
  if (request.consoleSession === null) throw new Error(`${request.routeOptions.url ?? request.url} is outside the console's guard`);
  return request.consoleSession;
}

interface SessionRow {
  kind: 'integrator' | 'operator';
  client_id: string | null;
  agency_id: string | null;
  environment: Environment | null;
  csrf_token: string;
  tokens: string | null;
  expires_at: Date;
}

function idOf(cookieValue: string): string {
  return createHash('sha256').update(cookieValue).digest('hex');
}

/** Stores a new session and returns the cookie value that opens it (never stored). */
export async function openSession(
  pool: pg.Pool,
  sealer: Sealer,
  session: { kind: 'operator' } | Omit<IntegratorSession, 'csrfToken' | 'expiresAt'>,
): Promise<{ cookieValue: string; session: ConsoleSession }> {
  const cookieValue = randomBytes(32).toString('base64url');
  const id = idOf(cookieValue);
  const csrfToken = randomBytes(24).toString('base64url');
  if (session.kind === 'operator') {
    const { rows } = await pool.query<{ expires_at: Date }>(
      `INSERT INTO console_sessions (id, kind, csrf_token, expires_at) VALUES ($1, 'operator', $2, now() + make_interval(secs => $3))
       RETURNING expires_at`,
      [id, csrfToken, SESSION_SECONDS],
    );
    return { cookieValue, session: { kind: 'operator', csrfToken, expiresAt: expiryOf(rows) } };
  }
  const earliest = session.tokens.map((token) => token.expiresAt).sort()[0];
  if (earliest === undefined) throw new Error('an integrator session needs a token');
  const { rows } = await pool.query<{ expires_at: Date }>(
    `INSERT INTO console_sessions (id, kind, client_id, agency_id, environment, csrf_token, tokens, tokens_expire_at, expires_at)
     VALUES ($1, 'integrator', $2, $3, $4, $5, $6, $7, least($7::timestamptz, now() + make_interval(secs => $8)))
     RETURNING expires_at`,
    [
      id,
      session.clientId,
      session.agency,
      session.environment,
      csrfToken,
      sealer.seal(JSON.stringify(session.tokens), CONSOLE_TOKENS),
      earliest,
      SESSION_SECONDS,
    ],
  );
  return { cookieValue, session: { ...session, csrfToken, expiresAt: expiryOf(rows) } };
}

function expiryOf(rows: { expires_at: Date }[]): Date {
  const row = rows[0];
  if (!row) throw new Error('the session was not stored');
  return row.expires_at;
}

function tokensOf(sealer: Sealer, sealed: string): SessionToken[] {
  // Our own JSON, written by openSession from SessionToken values.
  return JSON.parse(sealer.unseal(sealed, CONSOLE_TOKENS)) as SessionToken[];
}

/** The live session the cookie value opens, or undefined. */
export async function findSession(pool: pg.Pool, sealer: Sealer, cookieValue: string): Promise<ConsoleSession | undefined> {
  const { rows } = await pool.query<SessionRow>(
    `SELECT kind, client_id, agency_id, environment, csrf_token, tokens, expires_at
       FROM console_sessions WHERE id = $1 AND expires_at > now()`,
    [idOf(cookieValue)],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.kind === 'operator') return { kind: 'operator', csrfToken: row.csrf_token, expiresAt: row.expires_at };
  if (row.client_id === null || row.agency_id === null || row.environment === null || row.tokens === null) return undefined;
  return {
    kind: 'integrator',
    clientId: row.client_id,
    agency: row.agency_id,
    environment: row.environment,
    tokens: tokensOf(sealer, row.tokens),
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

export async function closeSession(pool: pg.Pool, cookieValue: string): Promise<void> {
  await pool.query('DELETE FROM console_sessions WHERE id = $1', [idOf(cookieValue)]);
}

/**
 * The tokens of the latest session of this client, agency and environment, if every one of them
 * outlives a session started now.
 */
export async function reusableTokens(
  pool: pg.Pool,
  sealer: Sealer,
  key: { clientId: string; agency: string; environment: Environment },
): Promise<SessionToken[] | undefined> {
  const { rows } = await pool.query<{ tokens: string }>(
    `SELECT tokens FROM console_sessions
      WHERE kind = 'integrator' AND client_id = $1 AND agency_id = $2 AND environment = $3
        AND tokens_expire_at > now() + make_interval(secs => $4)
      ORDER BY tokens_expire_at DESC LIMIT 1`,
    [key.clientId, key.agency, key.environment, SESSION_SECONDS],
  );
  const row = rows[0];
  return row ? tokensOf(sealer, row.tokens) : undefined;
}

/**
 * Removes the sessions that ended, once their tokens can no longer serve a later sign-in (an
 * ended session's row is where the next sign-in finds them).
 */
export async function pruneSessions(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM console_sessions
      WHERE expires_at <= now() AND (tokens_expire_at IS NULL OR tokens_expire_at <= now() + make_interval(secs => $1))`,
    [SESSION_SECONDS],
  );
  return rowCount ?? 0;
}
