/*
 * The console at /console: its built pages, its sign-in, and its backend under /console/api. A
 * browser cannot send the classifieds API's three-part User-Agent, so the console does not call
 * the API roots: each API's own routes are mounted again under /console/api/<api>, behind a guard
 * that takes the token from the session instead of the Authorization header and checks it exactly
 * as the API root does (audience, client, scope). The operator's pages are the /admin routes,
 * mounted under /console/api/admin behind an operator session. The session is an HttpOnly,
 * SameSite=Strict cookie; every unsafe request also carries the session's CSRF token in a header.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { installTokenGuard, tokenAuthorizer } from '../auth/guard.js';
import type { KeyStore } from '../auth/keys.js';
import { APIS, rootPath, type ApiDescriptor } from '../catalogue.js';
import type { Pool } from '../db/pool.js';
import { tenantDeliveryRoutes } from '../delivery/routes.js';
import { forbidden, notFound, serviceUnavailable, signInRequired } from '../http/problems.js';
import { sendProblem } from '../http/errors.js';
import { sendNoStore } from '../http/noStore.js';
import type { Logger } from '../log.js';
import { deliverySourcesOf, type ApiApp, type ApiModule } from '../module.js';
import { operatorRoutes } from '../operator.js';
import { sealerFor } from '../secrets/sealer.js';
import { allDeliveriesRoute } from './deliveries.js';
import { findSession, sessionOf } from './sessions.js';
import { SessionBody, describeSession, readCookie, sessionRoutes, signOutRoute } from './signIn.js';
import { tokenUsageRoute } from './tokenUsage.js';

export interface ConsoleDependencies {
  config: Config;
  /** The platform's share of the request pool (sessions, sign-in, the operator's pages). */
  pool: Pool;
  /** The share of each API's routes, mounted here as on the API's roots; absent: `pool`. */
  poolFor?: (api: string) => Pool;
  /** Installs what holds each tenant on the API roots (quotas, backlog bounds) on the console's copies of their routes too. */
  limitTenants?: (app: FastifyInstance) => void;
  keys: KeyStore;
  logger: Logger;
  modules: readonly ApiModule[];
  /** Where the built pages are; by default dist/console beside the server's build. */
  assetsDir?: string;
}

const DEFAULT_ASSETS = fileURLToPath(new URL('../../../console/', import.meta.url));
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// The pages load only their own scripts and styles; nothing may frame them.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export async function consoleApp(app: FastifyInstance, deps: ConsoleDependencies): Promise<void> {
  const assets = deps.assetsDir ?? DEFAULT_ASSETS;
  app.decorateRequest('consoleSession', null);
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) reply.header(name, value);
  });
  await app.register(consoleApi, { ...deps, prefix: '/api' });
  await consolePages(app, assets);
}

/** The built single-page application: its files, and its index.html for any other page path (client-side routes). */
async function consolePages(app: FastifyInstance, assets: string): Promise<void> {
  const built = fs.existsSync(`${assets}/index.html`);
  if (built) {
    await app.register(fastifyStatic, { root: assets, prefix: '/', index: false, wildcard: false, serve: true });
  }
  const index = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (!built) return sendProblem(reply, serviceUnavailable('The console was not built: run npm run build (npm install does it)'));
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  };
  app.get('/', { schema: { hide: true } }, index);
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    // A page path the application routes itself: not a file (files have a dot) and not the API.
    if (request.url.startsWith('/console/api/') || /\.[a-z0-9]+(\?|$)/i.test(request.url)) {
      return sendProblem(reply, notFound(`No resource at ${request.method} ${request.url.split('?')[0]}`));
    }
    return index(request, reply);
  });
}

async function consoleApi(api: FastifyInstance, deps: ConsoleDependencies): Promise<void> {
  const { config, pool, logger, modules } = deps;
  const sealer = sealerFor(config);
  // Sessions, tokens, secrets shown once, leads' contacts: nothing the backend answers may be cached.
  sendNoStore(api);
  await sessionRoutes(api.withTypeProvider<TypeBoxTypeProvider>(), { config, pool, sealer });

  await api.register(async (signedIn) => {
    signedIn.addHook('onRequest', async (request) => {
      const cookie = readCookie(request);
      const session = cookie === undefined ? undefined : await findSession(pool, sealer, cookie);
      if (!session) throw signInRequired('Sign in to the console first');
      // The cookie is SameSite=Strict, and a page of another site cannot read the token to send it.
      if (UNSAFE.has(request.method) && request.headers['x-csrf-token'] !== session.csrfToken) {
        throw forbidden('The x-csrf-token header must carry the csrfToken of the session');
      }
      request.consoleSession = session;
    });
    const typed = signedIn.withTypeProvider<TypeBoxTypeProvider>();
    typed.get('/session', { schema: { response: { 200: SessionBody } } }, async (request) => describeSession(pool, sessionOf(request)));
    await signOutRoute(typed, { config, pool });
    await tokenUsageRoute(typed, { pool });
    await allDeliveriesRoute(typed, {
      config,
      pool,
      modules,
      authorize: tokenAuthorizer({ pool, keys: deps.keys, publicUrl: config.publicUrl }),
    });
    await signedIn.register(
      async (operator) => {
        operator.addHook('onRequest', async (request) => {
          if (sessionOf(request).kind !== 'operator')
            throw forbidden('The operator pages need an operator session (sign in with the admin token)');
        });
        await operatorRoutes(operator.withTypeProvider<TypeBoxTypeProvider>(), { config, pool, logger, modules });
      },
      { prefix: '/admin' },
    );
    for (const descriptor of APIS) {
      const module = modules.find((candidate) => candidate.api.id === descriptor.id);
      if (module) await signedIn.register(async (scoped) => mountApi(scoped, descriptor, module, deps), { prefix: `/${descriptor.id}` });
    }
  });
}

/** One API's routes, its console reads and its deliveries, acting with the session's token for that API. */
async function mountApi(app: FastifyInstance, descriptor: ApiDescriptor, module: ApiModule, deps: ConsoleDependencies): Promise<void> {
  const { config, keys, logger, modules } = deps;
  const pool = deps.poolFor?.(descriptor.id) ?? deps.pool;
  installTokenGuard(app, descriptor, { pool, keys, publicUrl: config.publicUrl }, async (request) => {
    const session = sessionOf(request);
    if (session.kind !== 'integrator') throw forbidden('Operators do not act for an agency: sign in with a client to use the APIs');
    const audience = config.publicUrl + rootPath(descriptor, session.environment);
    const held = session.tokens.find((token) => token.audience === audience);
    if (!held) throw forbidden(`The client holds no scope of the ${descriptor.title}`);
    return { token: held.token, environment: session.environment };
  });
  deps.limitTenants?.(app);
  const typed: ApiApp = app.withTypeProvider<TypeBoxTypeProvider>();
  const apiDeps = { config, pool, logger };
  await module.routes(typed, apiDeps);
  await module.consoleRoutes?.(typed, apiDeps);
  const sources = deliverySourcesOf(modules);
  for (const [source, hooks] of Object.entries(module.deliverySources ?? {})) {
    await tenantDeliveryRoutes(typed, {
      pool,
      source,
      scope: hooks.scope,
      sources,
      redeliveriesPerMinute: config.rateLimits.redeliveriesPerMinute,
    });
  }
}
