/*
 * The HTTP application: the platform's hooks (tracing, errors, metrics, rate limits, OpenAPI), the
 * token endpoint, /admin behind ADMIN_TOKEN, and each API module's routes under both of its roots.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { APIS, ENVIRONMENTS, rootPath } from './platform/catalogue.js';
import type { ApiModule } from './platform/module.js';
import type { Config } from './config.js';
import { installAdminGuard } from './platform/auth/admin.js';
import { installGuard } from './platform/auth/guard.js';
import type { KeyStore } from './platform/auth/keys.js';
import { tokenEndpoint } from './platform/auth/tokenEndpoint.js';
import type { Pool } from './platform/db/pool.js';
import { answerClientError, installErrorHandling, sendProblem, toProblem } from './platform/http/errors.js';
import { installOpenApi, openApiRoute } from './platform/http/openapi.js';
import { sendNoStore } from './platform/http/noStore.js';
import { serviceUnavailable } from './platform/http/problems.js';
import { installRateLimiting } from './platform/http/rateLimit.js';
import { installLoopGuard } from './platform/http/loopGuard.js';
import { recordRoutes } from './platform/http/routeTable.js';
import { installRequestDeadlines, limitConnections } from './platform/http/slowClients.js';
import { continueTrace } from './platform/http/tracing.js';
import { createValidators } from './platform/http/validation.js';
import type { Logger } from './platform/log.js';
import { instrumentHttp, type Metrics } from './platform/metrics.js';
import { operatorRoutes } from './platform/operator.js';
import { consoleApp } from './platform/console/index.js';
import { sampleRoutes } from './platform/samples/index.js';

export interface AppDependencies {
  config: Config;
  pool: Pool;
  keys: KeyStore;
  metrics: Metrics;
  logger: Logger;
  /** The API modules to serve; all of immogate's by default. */
  apis: readonly ApiModule[];
}

/** Builds the HTTP application; listening and shutdown are the caller's. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config, pool, keys, metrics, logger } = deps;
  // Widened to Fastify's logger interface, so the app is the plain FastifyInstance everything else takes.
  const baseLogger: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance: baseLogger,
    // Access lines are written at debug level by our own onResponse hook.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'traceparent' }),
    // The request id is our span's traceparent: logs, responses and problem instances share it.
    genReqId: (request) => continueTrace(request.headers.traceparent),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Slow clients are bounded: Node checks the headers' deadline every second, the body's is per route (slowClients.ts).
    http: { headersTimeout: config.httpHeadersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    connectionTimeout: config.httpIdleTimeoutSeconds * 1000,
    keepAliveTimeout: config.httpIdleTimeoutSeconds * 1000,
    // Answers the router and Node's HTTP parser give before any route runs are problems too; no
    // onSend hook sees the router's, so its traceparent is set here.
    frameworkErrors: (error, request, reply) =>
      sendProblem(reply.header('traceparent', request.id), toProblem(error, request, config.bodyLimitBytes)),
    clientErrorHandler: answerClientError,
  });
  recordRoutes(app);
  // First of the onRequest hooks, so that it sees all of a request's work.
  installLoopGuard(app, config.requestLoopWarnMs, logger);
  limitConnections(app.server, config.httpMaxConnections, logger);
  installRequestDeadlines(app, config.httpRequestTimeoutSeconds);
  const validators = createValidators();
  app.setValidatorCompiler(validators.compiler);
  app.addHook('onReady', async () => validators.warmUp());
  app.decorateRequest('tenant', null);
  app.addHook('onSend', async (request, reply) => {
    reply.header('traceparent', request.id);
    // JSON and problems only: no browser may sniff an answer into something it would run.
    reply.header('x-content-type-options', 'nosniff');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
  });
  installErrorHandling(app, logger, config.bodyLimitBytes);
  instrumentHttp(app, metrics);
  await installRateLimiting(app, pool);
  await installOpenApi(app, config.publicUrl, deps.apis);

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await pool.query('SELECT 1');
      return { status: 'ready', database: 'ok' };
    } catch {
      return sendProblem(reply, serviceUnavailable('The database is not reachable'));
    }
  });
  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.jwks();
  });
  sampleRoutes(app, config.publicUrl);
  await app.register(tokenEndpoint, { pool, keys, publicUrl: config.publicUrl, metrics, authFailureLimits: config.authFailureLimits });

  for (const module of deps.apis) {
    for (const schema of module.schemas ?? []) {
      validators.addSchema(schema);
      app.addSchema(schema);
    }
  }
  await app.register(
    async (admin) => {
      sendNoStore(admin);
      installAdminGuard(admin, { adminToken: config.adminToken, pool, limits: config.authFailureLimits });
      await operatorRoutes(admin.withTypeProvider<TypeBoxTypeProvider>(), { config, pool, logger, modules: deps.apis });
    },
    { prefix: '/admin' },
  );
  await app.register(consoleApp, { prefix: '/console', config, pool, keys, logger, modules: deps.apis });
  for (const api of APIS) {
    const module = deps.apis.find((candidate) => candidate.api.id === api.id);
    const document = module?.openApiDocument?.(config.publicUrl);
    for (const environment of ENVIRONMENTS) {
      await app.register(
        async (scoped) => {
          if (api.personalData) sendNoStore(scoped);
          installGuard(scoped, api, environment, { pool, keys, publicUrl: config.publicUrl });
          openApiRoute(scoped, api, document);
          if (module) await module.routes(scoped.withTypeProvider<TypeBoxTypeProvider>(), { config, pool, logger });
        },
        { prefix: rootPath(api, environment) },
      );
    }
  }
  return app;
}
