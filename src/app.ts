/*
 * The HTTP application: the platform's hooks (tracing, errors, metrics, rate limits, OpenAPI), the
 * token endpoint, /admin behind ADMIN_TOKEN, and each API module's routes under both of its roots.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { APIS, ENVIRONMENTS, rootPath } from './platform/catalogue.js';
import type { ApiModule } from './platform/module.js';
import { fastifyTrustProxy, type Config } from './config.js';
import { CHALLENGE, identityProof, readIdentityKey } from './platform/db/identity.js';
import { installAdminGuard } from './platform/auth/admin.js';
import { installGuard } from './platform/auth/guard.js';
import { installIdempotency, leaseFor } from './platform/http/idempotency.js';
import { sealerFor } from './platform/secrets/sealer.js';
import type { KeyStore } from './platform/auth/keys.js';
import { tokenEndpoint } from './platform/auth/tokenEndpoint.js';
import type { Pool } from './platform/db/pool.js';
import { answerClientError, installErrorHandling, sendProblem, toProblem } from './platform/http/errors.js';
import { installOpenApi, openApiRoute } from './platform/openapi.js';
import { boundRequestTarget } from './platform/http/requestTarget.js';
import { sendNoStore } from './platform/http/noStore.js';
import { RETRY_AFTER_SECONDS, insufficientStorage, serviceUnavailable, shuttingDown } from './platform/http/problems.js';
import { Outage } from './platform/db/outage.js';
import { RequestDatabase } from './platform/db/requestDatabase.js';
import type { DatabaseRefusal } from './platform/db/unavailable.js';
import { DiskWatch } from './platform/diskSpace.js';

import { installRateLimiting } from './platform/http/rateLimit.js';
import { installQuotas, QuotaBuckets } from './platform/http/quotas.js';
import { Backlogs, installBacklogBounds } from './platform/http/backlog.js';
import type { WorkStream } from './platform/work/stream.js';
import { limitInFlight } from './platform/http/inFlight.js';
import { installLoopGuard } from './platform/http/loopGuard.js';
import { recordRoutes } from './platform/http/routeTable.js';
import { installRequestDeadlines, limitConnections, pauseIdleTimeoutWhileHandling } from './platform/http/slowClients.js';
import { continueTrace } from './platform/http/tracing.js';
import { telemetry } from './platform/telemetry/index.js';
import { traceRequests } from './platform/telemetry/requests.js';
import { createValidators, type Validators } from './platform/http/validation.js';
import { cachingSerializerFactory } from './platform/http/serializers.js';
import type { Logger } from './platform/log.js';
import { instrumentHttp, type Metrics, type RefusalReason } from './platform/metrics.js';
import { PROBE_TIMEOUT_MS } from './platform/db/probe.js';
import { operatorRoutes } from './platform/operator.js';
import { consoleApp } from './platform/console/index.js';
import { sampleRoutes } from './platform/samples/index.js';
import { eventRoutes } from './platform/events/routes.js';
import { EventWaiters } from './platform/events/waiters.js';

/** The metric's reason of each kind of refusal by the database. */
const REFUSAL_REASONS: Readonly<Record<DatabaseRefusal, RefusalReason>> = {
  unavailable: 'database_unavailable',
  busy: 'database_busy',
  deadline: 'database_deadline',
};

/** /ready says the request pool is exhausted while checkouts are refused for want of a connection, and this long after the last. */
const POOL_EXHAUSTED_WITHIN_MS = 5_000;

const REQUESTS_OUTAGE = {
  started: 'database unavailable: requests refused until it is back',
  ended: 'database available again: requests accepted',
  counted: 'refused',
};

export interface AppDependencies {
  config: Config;
  /** The request pool (made with db/limits.ts's requestLimits): each API and the platform's routes get a share of it. */
  pool: Pool;
  keys: KeyStore;
  metrics: Metrics;
  logger: Logger;
  /** The API modules to serve; all of immogate's by default. */
  apis: readonly ApiModule[];
  /** The route schemas' validators; the build passes its own to record them. */
  validators?: Validators;
  /** The work streams whose backlogs bound an agency's writes (http/backlog.ts); none by default. */
  streams?: readonly WorkStream<unknown>[];
  /** The answers' serializers; the build passes its own to record them. */
  serializers?: ReturnType<typeof cachingSerializerFactory>;
}

/** Builds the HTTP application; listening and shutdown are the caller's. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config, keys, metrics, logger } = deps;
  const database = new RequestDatabase(deps.pool, config.databaseDeadlines.checkoutTimeoutMs);
  // The platform's own routes (the token endpoint, the console's, /admin) share a part of the pool, as each API does.
  const pool = database.share('platform');
  // What every tenant is held to, on each API root and on the console's copies of their routes.
  const buckets = new QuotaBuckets(pool);
  const backlogs = new Backlogs(pool, deps.streams ?? [], { count: config.maxBacklogPerAgency, waiting: config.maxWaitingPerAgency });
  const limitTenants = (scoped: FastifyInstance) => {
    installQuotas(scoped, buckets, config.quotas);
    installBacklogBounds(scoped, backlogs);
  };
  // Widened to Fastify's logger interface, so the app is the plain FastifyInstance everything else takes.
  const baseLogger: FastifyBaseLogger = logger;
  const tracing = telemetry();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: deps.serializers ?? cachingSerializerFactory() } },
    loggerInstance: baseLogger,
    // Access lines are written at debug level by our own onResponse hook.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'traceparent' }),
    // The request id is our span's traceparent: logs, responses, problem instances (and exported
    // traces, when on) share it.
    genReqId: tracing ? (request) => tracing.startRequest(request) : (request) => continueTrace(request.headers.traceparent),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Refused during shutdown by our own hook (below), as a problem.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Slow clients are bounded: Node checks the headers' deadline every second, the body's is per route (slowClients.ts).
    http: { headersTimeout: config.httpHeadersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    connectionTimeout: config.httpIdleTimeoutSeconds * 1000,
    keepAliveTimeout: config.httpIdleTimeoutSeconds * 1000,
    // A request-target over MAX_REQUEST_TARGET_BYTES reaches neither the router nor a hook: 414 (errors.ts).
    rewriteUrl: boundRequestTarget,
    // Answers the router and Node's HTTP parser give before any route runs are problems too; no
    // onSend hook sees the router's, so its traceparent is set here.
    frameworkErrors: (error, request, reply) =>
      sendProblem(reply.header('traceparent', request.id), toProblem(error, request, config.bodyLimitBytes)),
    clientErrorHandler: answerClientError,
  });
  recordRoutes(app);
  // First of the onRequest hooks, so that it sees all of a request's work.
  installLoopGuard(app, config.requestLoopWarnMs, logger);
  if (tracing) traceRequests(app, tracing);
  limitConnections(app.server, config.httpMaxConnections, logger);
  installRequestDeadlines(app, config.httpRequestTimeoutSeconds);
  pauseIdleTimeoutWhileHandling(app, config.httpIdleTimeoutSeconds);
  database.start();
  const outage = new Outage(logger, REQUESTS_OUTAGE, async () => (await database.probe.check()).state === 'ok');
  const disk = await DiskWatch.start(config, logger, 'writes');
  const waiters = new EventWaiters(pool, config.eventWaiters, logger);
  // Before close waits for the requests in flight: long polls answer at once instead of holding it up.
  app.addHook('preClose', async () => waiters.stop());
  app.addHook('onClose', async () => {
    outage.close();
    disk?.stop();
    await database.stop();
  });
  refuseWhileClosing(app, metrics);
  limitInFlight(app, config.httpMaxInFlight, metrics);
  if (disk) refuseWritesWhileDiskLow(app, disk, metrics);
  const validators = deps.validators ?? createValidators();
  app.setValidatorCompiler(validators.compiler);
  app.addHook('onReady', async () => validators.warmUp());
  app.decorateRequest('tenant', null);
  // The hooks every request passes take a callback where they have nothing to wait for: an async
  // hook costs each request a promise and a turn of the microtask queue (issue 36's profile).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('traceparent', request.id);
    // JSON and problems only: no browser may sniff an answer into something it would run.
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  // The log level is set once, at start: below debug this hook would only call a no-op.
  if (logger.isLevelEnabled('debug')) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
      done();
    });
  }
  installErrorHandling(app, logger, config.bodyLimitBytes, (error, why) => {
    metrics.requestsRefused.inc({ reason: REFUSAL_REASONS[why] });
    // Busy and past a deadline are no outage: the database serves the rest.
    if (why === 'unavailable') outage.refused(error);
  });
  instrumentHttp(app, metrics);
  await installRateLimiting(app, pool);
  const documents = await installOpenApi(app, config.publicUrl, deps.apis);

  // A browser pointed at the server's URL lands on the console instead of a 404 (HEAD too, as Fastify exposes it).
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 302));
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  let identityKey: Promise<Buffer> | undefined;
  const readyQuery = {
    type: 'object',
    properties: { challenge: { type: 'string', minLength: 43, maxLength: 43, pattern: CHALLENGE.source } },
  } as const;
  app.get<{ Querystring: { challenge?: string } }>(
    '/ready',
    { schema: { hide: true, querystring: readyQuery } },
    async (request, reply) => {
      const faults: string[] = [];
      // The probe's own connection: /ready answers within a second whatever the request pool is doing.
      const condition = await database.probe.check();
      if (condition.state === 'unreachable') faults.push('The database is not reachable');
      if (condition.state === 'slow') faults.push(`The database is slow: it did not answer a health check within ${PROBE_TIMEOUT_MS} ms`);
      if (condition.state === 'read-only') faults.push('The database is read-only');
      if (database.pressure.exhausted(POOL_EXHAUSTED_WITHIN_MS)) {
        faults.push('The request pool is exhausted: every connection is in use and requests found none free in time (DATABASE_POOL_SIZE)');
      }
      if (disk?.low) faults.push('Free disk space under DATA_DIR is below MIN_FREE_DISK_MB');
      const { challenge } = request.query;
      if (faults.length === 0 && challenge === undefined) return { status: 'ready', database: 'ok' };
      if (faults.length === 0 && challenge !== undefined) {
        // The CLI's check before it sends a client secret here (db/identity.ts); a failed read is read again next time.
        identityKey ??= readIdentityKey(pool).catch((error: unknown) => {
          identityKey = undefined;
          throw error;
        });
        return { status: 'ready', database: 'ok', proof: identityProof(await identityKey, challenge, config.publicUrl) };
      }
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return sendProblem(reply, serviceUnavailable(faults.join('; ')));
    },
  );
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
  await app.register(consoleApp, {
    prefix: '/console',
    config,
    pool,
    poolFor: (api: string) => database.share(api),
    limitTenants,
    keys,
    logger,
    modules: deps.apis,
  });
  for (const api of APIS) {
    const module = deps.apis.find((candidate) => candidate.api.id === api.id);
    const document = documents.get(api.id);
    const apiPool = database.share(api.id);
    for (const environment of ENVIRONMENTS) {
      await app.register(
        async (scoped) => {
          if (api.personalData) sendNoStore(scoped);
          installGuard(scoped, api, environment, { pool: apiPool, keys, publicUrl: config.publicUrl });
          limitTenants(scoped);
          installIdempotency(scoped, {
            pool: apiPool,
            sealer: sealerFor(config),
            leaseSeconds: leaseFor(config.httpRequestTimeoutSeconds),
            maxAnswerBytes: config.idempotentAnswerMaxBytes,
          });
          openApiRoute(scoped, api, document);
          eventRoutes(scoped, api, { pool: apiPool, waiters, retentionDays: config.deliveryRetentionDays });
          if (module) await module.routes(scoped.withTypeProvider<TypeBoxTypeProvider>(), { config, pool: apiPool, logger });
        },
        { prefix: rootPath(api, environment) },
      );
    }
  }
  return app;
}

/**
 * Requests that arrive once close() has begun (on a kept-alive connection, or one accepted just
 * before the listener closed) are answered as a problem with Connection: close, so the client
 * retries elsewhere on a new connection; those already in flight finish.
 */
function refuseWhileClosing(app: FastifyInstance, metrics: Metrics): void {
  let closing = false;
  // Fastify runs preClose hooks as close() begins, before the listener and idle connections are closed.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    metrics.requestsRefused.inc({ reason: 'shutting_down' });
    sendProblem(reply, shuttingDown());
  });
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// A client must still get a token and an operator sign in to read: each writes a row or two at most.
const WRITES_ALLOWED_WHEN_LOW = new Set(['/oauth/token', '/console/api/session']);

/** Below MIN_FREE_DISK_MB writes get 507 before PostgreSQL or a blob upload runs out of space; reads go on. */
function refuseWritesWhileDiskLow(app: FastifyInstance, disk: DiskWatch, metrics: Metrics): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!disk.low || !WRITES.has(request.method)) return done();
    if (WRITES_ALLOWED_WHEN_LOW.has(request.url.split('?')[0] ?? '')) return done();
    disk.refused();
    metrics.requestsRefused.inc({ reason: 'disk_low' });
    sendProblem(reply, insufficientStorage());
  });
}
