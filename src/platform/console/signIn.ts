/*
 * Signing in to the console and out of it. An integrator signs in with the client id and secret
 * of its client, the agency and the environment: the credentials are checked as the token
 * endpoint checks them (same failure counting), then the console gets the client's tokens from
 * /oauth/token as any client does, one per API the client holds scopes of, unless an earlier
 * sign-in's tokens still serve. An operator signs in with ADMIN_TOKEN.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Config } from '../../config.js';
import { adminTokenGate } from '../auth/admin.js';
import { OAuthError, checkEnvironment, checkIntermediary, verifyClientCredentials } from '../auth/tokenEndpoint.js';
import type { Client } from '../auth/clients.js';
import { APIS, ENVIRONMENTS, rootPath, type ApiDescriptor, type Environment } from '../catalogue.js';
import type { Pool } from '../db/pool.js';
import { badRequest, forbidden, signInRequired, tooManyRequests, type Problem } from '../http/problems.js';
import { stringEnum } from '../http/schemas.js';
import type { ApiApp } from '../module.js';
import type { Sealer } from '../secrets/sealer.js';
import {
  SESSION_COOKIE,
  SESSION_SECONDS,
  closeSession,
  openSession,
  reusableTokens,
  type ConsoleSession,
  type SessionToken,
} from './sessions.js';

const SignIn = Type.Object(
  {
    kind: stringEnum(['integrator', 'operator']),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    agency: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    environment: Type.Optional(stringEnum(ENVIRONMENTS)),
    adminToken: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false, description: 'An integrator: clientId, clientSecret, agency, environment. An operator: adminToken.' },
);

export const SessionBody = Type.Object({
  kind: stringEnum(['integrator', 'operator']),
  clientId: Type.Optional(Type.String()),
  clientName: Type.Optional(Type.String()),
  agency: Type.Optional(Type.String()),
  environment: Type.Optional(stringEnum(ENVIRONMENTS)),
  apis: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), scopes: Type.Array(Type.String()) })),
  csrfToken: Type.String({ description: 'Send it as x-csrf-token with every POST, PUT and DELETE' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

const MEMBERS = {
  integrator: ['clientId', 'clientSecret', 'agency', 'environment'],
  operator: ['adminToken'],
} as const;

/** The session cookie's value, if the request carries one. */
export function readCookie(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}

function setCookie(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Path=/console; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}

function apisOf(client: Pick<Client, 'scopes'>): ApiDescriptor[] {
  return APIS.filter((api) => client.scopes.some((scope) => scope.startsWith(`${api.scopePrefix}:`)));
}

/** What the console's pages know of their session. */
export async function describeSession(pool: Pool, session: ConsoleSession) {
  const expiresAt = session.expiresAt.toISOString();
  if (session.kind === 'operator') return { kind: session.kind, apis: [], csrfToken: session.csrfToken, expiresAt };
  const { rows } = await pool.query<{ name: string; scopes: string[] }>('SELECT name, scopes FROM clients WHERE client_id = $1', [
    session.clientId,
  ]);
  const client = rows[0] ?? { name: session.clientId, scopes: [] };
  const held = new Set(session.tokens.map((token) => token.audience));
  return {
    kind: session.kind,
    clientId: session.clientId,
    clientName: client.name,
    agency: session.agency,
    environment: session.environment,
    apis: apisOf(client)
      .filter((api) => [...held].some((audience) => audience.endsWith(rootPath(api, session.environment))))
      .map((api) => ({ id: api.id, title: api.title, scopes: client.scopes.filter((scope) => scope.startsWith(`${api.scopePrefix}:`)) })),
    csrfToken: session.csrfToken,
    expiresAt,
  };
}

/** A refusal of the token service, told as the console's sign-in answers it. */
function refusal(error: OAuthError): Problem {
  if (error.code === 'invalid_client') return signInRequired('The Client ID or the Client secret is wrong');
  if (error.code === 'temporarily_unavailable') return tooManyRequests(Number(error.headers['retry-after'] ?? 60), error.description);
  return forbidden(`The token service refused: ${error.description}`);
}

interface IntegratorSignIn {
  clientId: string;
  clientSecret: string;
  agency: string;
  environment: Environment;
}

/** A token of `audience` from /oauth/token, asked as the signed-in client from the browser's address. */
async function requestToken(app: FastifyInstance, address: string, signIn: IntegratorSignIn, audience: string): Promise<SessionToken> {
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: address,
    payload: {
      grant_type: 'client_credentials',
      client_id: signIn.clientId,
      client_secret: signIn.clientSecret,
      audience,
      intermediary_id: signIn.agency,
    },
  });
  const body: unknown = response.json();
  const member = (name: string): unknown => (typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined);
  const token = member('access_token');
  const lifetime = member('expires_in');
  if (response.statusCode !== 200 || typeof token !== 'string' || typeof lifetime !== 'number') {
    const code = member('error');
    const description = member('error_description');
    throw forbidden(
      `The token service refused ${audience}: ${typeof code === 'string' ? code : response.statusCode} ${String(description ?? '')}`,
    );
  }
  return { audience, token, expiresAt: new Date(Date.now() + lifetime * 1000).toISOString() };
}

type Opened = Awaited<ReturnType<typeof openSession>>;

async function signInIntegrator(
  app: FastifyInstance,
  deps: { config: Config; pool: Pool; sealer: Sealer },
  request: FastifyRequest,
  signIn: IntegratorSignIn,
): Promise<Opened> {
  const { config, pool, sealer } = deps;
  let client: Client;
  try {
    client = await verifyClientCredentials(
      pool,
      { clientId: signIn.clientId, secret: signIn.clientSecret },
      request.ip,
      config.authFailureLimits,
    );
    checkEnvironment(client, signIn.environment);
    checkIntermediary(client, signIn.agency);
  } catch (error) {
    throw error instanceof OAuthError ? refusal(error) : error;
  }
  const audiences = apisOf(client).map((api) => config.publicUrl + rootPath(api, signIn.environment));
  if (audiences.length === 0) throw forbidden('The client holds no scope of any API');
  const key = { clientId: client.clientId, agency: signIn.agency, environment: signIn.environment };
  const cached = (await reusableTokens(pool, sealer, key)) ?? [];
  const tokens = await Promise.all(
    audiences.map((audience) => cached.find((token) => token.audience === audience) ?? requestToken(app, request.ip, signIn, audience)),
  );
  return openSession(pool, sealer, { kind: 'integrator', ...key, tokens });
}

/** The members of `kind` the body lacks, named as a 400 names them. */
function missing(body: Record<string, unknown>, kind: keyof typeof MEMBERS): void {
  const absent = MEMBERS[kind].filter((name) => body[name] === undefined);
  const foreign = Object.keys(body).filter((name) => name !== 'kind' && !MEMBERS[kind].some((member) => member === name));
  const errors = [
    ...absent.map((name) => ({
      name: `/${name}`,
      reason: `is required to sign in as ${kind === 'operator' ? 'an operator' : 'an integrator'}.`,
    })),
    ...foreign.map((name) => ({ name: `/${name}`, reason: `is not a member of an ${kind}'s sign-in.` })),
  ];
  if (errors.length > 0) throw badRequest(errors, 'body');
}

/** Sign-in (POST /session): open to anyone, as a token endpoint is. */
export async function sessionRoutes(app: ApiApp, deps: { config: Config; pool: Pool; sealer: Sealer }): Promise<void> {
  const { config, pool, sealer } = deps;
  const secure = config.publicUrl.startsWith('https:');
  const admits = adminTokenGate({ adminToken: config.adminToken, pool, limits: config.authFailureLimits });
  app.post('/session', { schema: { body: SignIn, response: { 200: SessionBody } } }, async (request, reply) => {
    const body = request.body;
    missing(body, body.kind);
    let opened: Opened;
    if (body.kind === 'operator') {
      if (admits === undefined) throw forbidden('Operator sign-in is off: this server was started without ADMIN_TOKEN');
      if (!(await admits(request, body.adminToken))) throw signInRequired('The admin token is wrong');
      opened = await openSession(pool, sealer, { kind: 'operator' });
    } else {
      // missing() made sure each is there.
      const { clientId = '', clientSecret = '', agency = '', environment = 'sandbox' } = body;
      opened = await signInIntegrator(app, deps, request, { clientId, clientSecret, agency, environment });
    }
    const seconds = Math.min(SESSION_SECONDS, Math.floor((opened.session.expiresAt.getTime() - Date.now()) / 1000));
    setCookie(reply, opened.cookieValue, seconds, secure);
    return describeSession(pool, opened.session);
  });
}

/** Sign-out (DELETE /session), behind the session's guard like every other unsafe request. */
export async function signOutRoute(app: ApiApp, deps: { config: Config; pool: Pool }): Promise<void> {
  const secure = deps.config.publicUrl.startsWith('https:');
  app.delete('/session', async (request, reply) => {
    const cookie = readCookie(request);
    if (cookie !== undefined) await closeSession(deps.pool, cookie);
    setCookie(reply, '', 0, secure);
    return reply.code(204).send();
  });
}
