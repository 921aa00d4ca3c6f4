/*
 * POST /oauth/token: the client-credentials grant, as a list of small steps (parse, authenticate
 * the client, check the grant, audience, intermediary and scopes, issue), answering errors in the
 * OAuth2 shape of RFC 6749 section 5.2.
 */
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { audiences, type Audience, type Environment } from '../catalogue.js';
import type { Metrics } from '../metrics.js';
import { findActiveClient, findCliToken, recordCliToken, recordIssuance, type Client, type ClientCredentials } from './clients.js';
import type { KeyStore } from './keys.js';
import { grantsAny, parseScopes } from './scopes.js';
import { sendNoStore } from '../http/noStore.js';
import { Problem } from '../http/problems.js';
import { lockedFor, recordFailure, type AuthFailureLimits } from './authFailures.js';
import { verifySecret } from './secrets.js';
import { withoutTrailingSlashes } from '../text.js';
import { TOKEN_LIFETIME_SECONDS, issueToken } from './tokens.js';

/** RFC 6749 section 5.2 error codes, with the HTTP status each is answered with. */
const OAUTH_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  // Registered for OAuth (RFC 6749 section 4.1.2.1) as "try again later"; answered with 429 and Retry-After.
  temporarily_unavailable: 429,
} as const;
type OAuthErrorCode = keyof typeof OAUTH_STATUS;

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/**
 * RFC 6749 section 5.2: a 401 carries an authentication challenge when the client authenticated
 * with HTTP Basic; a client that sent its credentials in the body gets none (libraries would take
 * a challenge for a request to retry with Basic).
 */
const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="immogate", charset="UTF-8"' };

interface TokenContext {
  params: Record<string, string>;
  basic: { clientId: string; secret: string } | undefined;
}

const PARAMS = ['grant_type', 'client_id', 'client_secret', 'audience', 'intermediary_id', 'scope'] as const;

/** Step 1: the parameters, each at most once (RFC 6749 section 3.2); unknown ones are ignored. */
function parseRequest(request: FastifyRequest): TokenContext {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'the body must be a JSON object or form-encoded parameters');
  }
  const params: Record<string, string> = {};
  for (const name of PARAMS) {
    const value: unknown = Reflect.get(body, name);
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once, as a string`);
    params[name] = value;
  }
  return { params, basic: basicCredentials(request.headers.authorization) };
}

/** RFC 6749 section 2.3.1: id and secret form-urlencoded, then joined by a colon, then base64. */
function basicCredentials(header: string | undefined): TokenContext['basic'] {
  if (header === undefined) return undefined;
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (encoded === undefined) throw new OAuthError('invalid_client', 'the Authorization header must use the Basic scheme', BASIC_CHALLENGE);
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials must be client_id:client_secret', BASIC_CHALLENGE);
  try {
    const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'the Basic credentials are not correctly encoded', BASIC_CHALLENGE);
  }
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/**
 * Step 2: exactly one authentication method, then the secret checked in constant time, unless the
 * caller failed too often lately (then not even hashed).
 */
async function authenticateClient(pool: pg.Pool, context: TokenContext, address: string, limits: AuthFailureLimits) {
  const inBody = context.params.client_id !== undefined || context.params.client_secret !== undefined;
  if (context.basic && inBody && context.params.client_secret !== undefined) {
    throw new OAuthError('invalid_request', 'send the client credentials either by HTTP Basic or in the body, not both');
  }
  const clientId = context.basic?.clientId ?? context.params.client_id;
  const secret = context.basic?.secret ?? context.params.client_secret;
  // RFC 6749 section 5.2 counts "no client authentication included" as invalid_client. With nothing
  // sent at all, the challenge names the scheme this endpoint supports besides the body; a client
  // that sent part of its credentials in the body chose the body, and gets none (as above).
  if (!context.basic && !inBody) {
    throw new OAuthError('invalid_client', 'client authentication is missing: send client_id and client_secret', BASIC_CHALLENGE);
  }
  if (clientId === undefined) throw new OAuthError('invalid_client', 'client authentication is missing: client_id is required');
  if (context.basic && context.params.client_id !== undefined && context.params.client_id !== clientId) {
    throw new OAuthError('invalid_request', 'client_id in the body differs from the Basic credentials');
  }
  if (secret === undefined) throw new OAuthError('invalid_client', 'client authentication is missing: client_secret is required');
  return verifyClientCredentials(pool, { clientId, secret }, address, limits, context.basic ? BASIC_CHALLENGE : {});
}

/**
 * A client's id and secret, checked as the token endpoint checks them (the console's sign-in uses
 * it too): the secret in constant time, unless this caller failed too often lately (then not even
 * hashed); every failure counted. A known client's failures are its own at `address`, an unknown
 * id's are the address's (authFailures.ts): looking the client up first tells which.
 */
export async function verifyClientCredentials(
  pool: pg.Pool,
  credentials: { clientId: string; secret: string },
  address: string,
  limits: AuthFailureLimits,
  challenge: Record<string, string> = {},
): Promise<ClientCredentials> {
  const { clientId, secret } = credentials;
  const client = await findActiveClient(pool, clientId);
  const caller = { knownClientId: client?.clientId, address };
  const retryAfter = await lockedFor(pool, caller, limits);
  if (retryAfter !== undefined) {
    throw new OAuthError('temporarily_unavailable', `too many failed authentications lately; retry in ${retryAfter} seconds`, {
      'retry-after': String(retryAfter),
    });
  }
  const valid = await verifySecret(secret, client?.secretHash);
  if (!client || !valid) {
    await recordFailure(pool, caller, limits.windowSeconds);
    throw new OAuthError('invalid_client', 'client authentication failed', challenge);
  }
  return client;
}

/** Step 3: only client_credentials. */
function checkGrant(params: Record<string, string>): void {
  const grant = required(params, 'grant_type');
  if (grant !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', `grant_type "${grant}" is not supported; use client_credentials`);
  }
}

/** Step 4: the audience is one API root in one environment. */
function checkAudience(params: Record<string, string>, known: Audience[]): Audience {
  const wanted = required(params, 'audience');
  const audience = known.find((candidate) => candidate.url === withoutTrailingSlashes(wanted));
  if (!audience) {
    throw new OAuthError(
      'invalid_target',
      `audience "${wanted}" is not an API root of this server; use one of ${known.map((a) => a.url).join(', ')}`,
    );
  }
  return audience;
}

/** Step 4b: an environment the client holds (sandbox credentials first, production after review). */
export function checkEnvironment(client: Client, environment: Environment): void {
  if (!client.environments.includes(environment)) {
    throw new OAuthError(
      'invalid_target',
      `this client may get tokens for the ${client.environments.join(' and ')} environment${client.environments.length > 1 ? 's' : ''} only, not ${environment}`,
    );
  }
}

/** Step 5: the intermediary (agency) the client acts for. */
export function checkIntermediary(client: Client, intermediary: string): string {
  if (!client.intermediaries.includes(intermediary)) {
    throw new OAuthError('invalid_request', `intermediary_id "${intermediary}" is not an intermediary this client may act for`);
  }
  return intermediary;
}

/**
 * Step 6: the token holds exactly the scopes requested, each granted by one the client holds and
 * belonging to the audience's API; no scope requested means every scope the client holds there.
 */
function checkScope(params: Record<string, string>, held: string[], audience: Audience): string {
  const prefix = `${audience.api.scopePrefix}:`;
  if (params.scope === undefined) {
    const scopes = held.filter((scope) => scope.startsWith(prefix));
    if (scopes.length === 0) throw new OAuthError('invalid_scope', `the client holds no scope of ${audience.url}`);
    return scopes.join(' ');
  }
  const requested = [...new Set(parseScopes(params.scope))];
  if (requested.length === 0) throw new OAuthError('invalid_scope', 'scope is empty');
  for (const scope of requested) {
    if (!audience.api.scopes.includes(scope)) {
      throw new OAuthError('invalid_scope', `scope "${scope}" is not a scope of ${audience.url}`);
    }
    if (!grantsAny(held, scope)) throw new OAuthError('invalid_scope', `scope "${scope}" is not granted to this client`);
  }
  return requested.join(' ');
}

export interface TokenAnswer {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/**
 * Steps 4b to 6 and the token, for a client already authenticated (by its secret here, or as the
 * operator's CLI trusts it): the environment, the intermediary of `params.intermediary_id` and the
 * scopes of `params.scope` checked, the token issued (of the client's token generation as read
 * with its credentials) and its issuance recorded. `reuseForSeconds` (the CLI's): a token minted
 * this way before for the same claims, valid that much longer, is signed again instead, and counts
 * as one issuance; clients asking this endpoint keep and reuse their tokens themselves.
 */
export async function grantToken(
  pool: pg.Pool,
  keys: KeyStore,
  issuer: string,
  client: ClientCredentials,
  audience: Audience,
  params: Record<string, string>,
  options: { reuseForSeconds?: number } = {},
): Promise<TokenAnswer> {
  checkEnvironment(client, audience.environment);
  const intermediaryId = checkIntermediary(client, required(params, 'intermediary_id'));
  const scope = checkScope(params, client.scopes, audience);
  const request = {
    issuer,
    clientId: client.clientId,
    audience: audience.url,
    intermediaryId,
    scope,
    tokenGeneration: client.tokenGeneration,
  };
  const reused = options.reuseForSeconds === undefined ? undefined : await findCliToken(pool, request, options.reuseForSeconds);
  const issued = await issueToken(keys, request, reused);
  if (reused) {
    return { access_token: issued.token, expires_in: reused.exp - Math.floor(Date.now() / 1000), token_type: 'Bearer', scope };
  }
  await recordIssuance(pool, { jti: issued.jti, clientId: client.clientId, audience: audience.url, intermediaryId, scope });
  if (options.reuseForSeconds !== undefined) await recordCliToken(pool, { ...request, ...issued });
  return { access_token: issued.token, expires_in: TOKEN_LIFETIME_SECONDS, token_type: 'Bearer', scope };
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(OAUTH_STATUS[error.code])
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: error.code, error_description: error.description });
}

/** A problem of the body (NUL, nesting, ...) told in one line, as error_description has room for. */
function describe(error: Error): string {
  const first = error instanceof Problem ? error.extra.errors?.[0] : undefined;
  return first ? `the body ${first.name === '' ? '' : `member ${first.name} `}${first.reason}` : error.message;
}

export interface TokenEndpointOptions {
  pool: pg.Pool;
  keys: KeyStore;
  publicUrl: string;
  metrics: Metrics;
  authFailureLimits: AuthFailureLimits;
}

export async function tokenEndpoint(app: FastifyInstance, options: TokenEndpointOptions): Promise<void> {
  const known = audiences(options.publicUrl);
  await app.register(formbody);
  // RFC 6749 section 5.1 asks it of answers carrying a token; an error too may repeat what was sent.
  sendNoStore(app);

  // Parse failures of this route answer in the OAuth shape too, not as problems.
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    if (error.statusCode !== undefined && error.statusCode < 500) {
      const unsupported = error.statusCode === 415;
      return sendOAuthError(
        reply,
        new OAuthError('invalid_request', unsupported ? 'send application/json or application/x-www-form-urlencoded' : describe(error)),
      );
    }
    throw error;
  });

  app.post('/oauth/token', { schema: { hide: true } }, async (request, reply) => {
    const context = parseRequest(request);
    const client = await authenticateClient(options.pool, context, request.ip, options.authFailureLimits);
    checkGrant(context.params);
    const audience = checkAudience(context.params, known);
    const answer = await grantToken(options.pool, options.keys, options.publicUrl, client, audience, context.params);
    options.metrics.tokensIssued.inc({ api: audience.api.id, environment: audience.environment });
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
  });
}
