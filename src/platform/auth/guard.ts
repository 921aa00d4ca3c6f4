/*
 * The guard of every API root: a route declares the scope it needs (config.scope) or that it is
 * public; the guard checks the bearer token (issuer, audience, environment, scope) and sets the
 * request's tenant. A route declaring neither is refused at start-up.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { rootPath, type ApiDescriptor, type Environment } from '../catalogue.js';
import type { Tenant } from '../db/tenant.js';
import { badRequest, forbidden, insufficientScope, unauthorized } from '../http/problems.js';
import type { KeyStore } from './keys.js';
import { grantsAny, parseScopes } from './scopes.js';
import { TokenRejected, verifyTokenCached } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard on every API route that is not public. */
    tenant: Tenant | null;
  }
  interface FastifyContextConfig {
    /** The scope a route requires; a held wildcard (`caas:*`) grants it. */
    scope?: string;
    /** Marks a route under an API root that needs no token (its OpenAPI document, health). */
    public?: boolean;
  }
}

/**
 * The tenant of a request to a guarded route, typed. The guard sets it before any handler of a
 * route with a scope runs, so its absence means a public route asked for one: a programming error.
 */
export function tenantOf(request: FastifyRequest): Tenant {
  if (request.tenant === null) throw new Error(`${request.routeOptions.url ?? request.url} is public and has no tenant`);
  return request.tenant;
}

// Contract-notes: three space-separated name/version parts.
const THREE_PART_USER_AGENT = /^[^/\s]+\/[^/\s]+\s{1}[^/\s]+\/[^/\s]+\s{1}[^/\s]+\/[^/\s]+$/;

/**
 * Remembers for a short while whether a client is still enabled and which token generation it is
 * at, so disabling a client, or revoking its tokens when rotating its secret, cuts off its tokens
 * on every process within CLIENT_STATUS_TTL_MS without a database read on every request.
 */
const CLIENT_STATUS_TTL_MS = 10_000;

interface CachedStatus {
  active: boolean;
  tokenGeneration: number;
  until: number;
}

class ClientStatus {
  private readonly cache = new Map<string, CachedStatus>();
  constructor(private readonly pool: pg.Pool) {}

  /** Why a token of `clientId` and `generation` no longer serves, or undefined when it does. */
  async refusal(clientId: string, generation: number): Promise<string | undefined> {
    const now = Date.now();
    let status = this.cache.get(clientId);
    // A token newer than what is remembered proves the memory predates a revocation: read again,
    // so the older tokens are refused from now on rather than when the memory expires.
    if (!status || status.until <= now || generation > status.tokenGeneration) status = await this.read(clientId, now);
    if (!status.active) return 'its client is disabled';
    if (generation < status.tokenGeneration) return "it was revoked when its client's secret was rotated";
    return undefined;
  }

  private async read(clientId: string, now: number): Promise<CachedStatus> {
    const { rows } = await this.pool.query<{ active: boolean; token_generation: number }>(
      'SELECT disabled_at IS NULL AS active, token_generation FROM clients WHERE client_id = $1',
      [clientId],
    );
    const row = rows[0];
    const status = { active: row?.active === true, tokenGeneration: row?.token_generation ?? 0, until: now + CLIENT_STATUS_TTL_MS };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(clientId, status);
    return status;
  }
}

export interface GuardOptions {
  pool: pg.Pool;
  keys: KeyStore;
  publicUrl: string;
}

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || header === '') throw unauthorized('The Authorization header with a Bearer token is required');
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token === undefined) throw unauthorized('The Authorization header must be "Bearer <access token>"');
  return token;
}

/** Checks a route's declared authorization at start-up: a scope, or public. */
function refuseUndeclared(app: FastifyInstance, api: ApiDescriptor): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.public !== true && route.config?.scope === undefined) {
      throw new Error(`route ${String(route.method)} ${route.url} of ${api.id} declares neither a scope nor public: true`);
    }
  });
}

/**
 * What a token grants on one route of one API in one environment: its signature, issuer, expiry
 * and audience (exactly that API root), its client still enabled and its tokens of that
 * generation not revoked, and the route's scope. Shared
 * by the API roots (a bearer token) and the console (the token its session holds).
 */
export type TokenAuthorizer = (
  request: FastifyRequest,
  token: string,
  api: ApiDescriptor,
  environment: Environment,
  /** The scope to require instead of the route's: a route that reads across APIs checks each API's own. */
  scope?: string,
) => Promise<Tenant>;

export function tokenAuthorizer(options: GuardOptions): TokenAuthorizer {
  const clients = new ClientStatus(options.pool);
  return async (request, token, api, environment, scope) => {
    const audience = options.publicUrl + rootPath(api, environment);
    const claims = await verifyTokenCached(options.keys, token, options.publicUrl, audience).catch((error: unknown) => {
      throw error instanceof TokenRejected ? unauthorized(`The access token is not valid: ${error.message}`, 'invalid_token') : error;
    });
    const refused = await clients.refusal(claims.sub, claims.token_generation);
    if (refused !== undefined) throw unauthorized(`The access token is not valid: ${refused}`, 'invalid_token');
    const scopes = parseScopes(claims.scope);
    const required = scope ?? request.routeOptions.config.scope;
    // refuseUndeclared refused every route with neither a scope nor public: true.
    if (required === undefined) throw new Error(`${request.routeOptions.url ?? request.url} has no scope`);
    if (!grantsAny(scopes, required)) throw insufficientScope(required);
    return { environment, agencyId: claims.intermediary_id, clientId: claims.sub, scopes };
  };
}

/**
 * The hook every route of one API root runs first: the firewall's User-Agent rule, then the
 * bearer token (signature, issuer, expiry, audience of exactly this API and environment), then
 * the route's scope. It leaves the request's tenant behind for the handlers.
 */
export function installGuard(app: FastifyInstance, api: ApiDescriptor, environment: Environment, options: GuardOptions): void {
  const authorize = tokenAuthorizer(options);
  refuseUndeclared(app, api);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    const userAgent = request.headers['user-agent']?.trim() ?? '';
    if (api.userAgent === 'firewall' && userAgent === '') throw forbidden('Requests without a User-Agent header are refused');
    if (config.public === true) return;
    if (api.userAgent === 'three-part' && !THREE_PART_USER_AGENT.test(request.headers['user-agent'] ?? '')) {
      const reason = userAgent === '' ? 'is required' : 'must be';
      throw badRequest(
        [{ name: 'User-Agent', reason: `${reason} three space-separated name/version parts, e.g. "MyCrm/1.0.0 curl/7.52.1 debian/9".` }],
        'header',
      );
    }
    request.tenant = await authorize(request, bearer(request), api, environment);
  });
}

/**
 * The same routes behind another source of tokens (the console's session): no User-Agent rule
 * (a browser cannot send the classifieds API's), the token and environment given by `credentials`.
 */
export function installTokenGuard(
  app: FastifyInstance,
  api: ApiDescriptor,
  options: GuardOptions,
  credentials: (request: FastifyRequest, api: ApiDescriptor) => Promise<{ token: string; environment: Environment }>,
): void {
  const authorize = tokenAuthorizer(options);
  refuseUndeclared(app, api);
  app.addHook('onRequest', async (request) => {
    const { token, environment } = await credentials(request, api);
    if (request.routeOptions.config.public === true) return;
    request.tenant = await authorize(request, token, api, environment);
  });
}
