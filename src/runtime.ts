/*
 * Starting immogate on one database: open it (embedded or external), migrate, seal old secrets,
 * create the first-start client, then the HTTP server and/or the worker, and stop them in order.
 */
import type { FastifyInstance } from 'fastify';
import { deliverySourcesOf, type ApiModule } from './platform/module.js';
import type { Config } from './config.js';
import { KeyStore } from './platform/auth/keys.js';
import { sealerFor } from './platform/secrets/sealer.js';
import { PLATFORM_SEALED_COLUMNS } from './platform/sealedColumns.js';
import { sealStoredSecrets, type SealedColumn } from './platform/secrets/stored.js';
import { openDatabase, prepareDatabase } from './platform/db/open.js';
import { whileAnswering } from './platform/db/liveness.js';
import { StartWait } from './platform/db/startWait.js';
import { createPool, type Pool } from './platform/db/pool.js';
import { PROBE_LIMITS, WORK_LIMITS, requestLimits } from './platform/db/limits.js';
import { deliveryStream } from './platform/delivery/index.js';
import type { Logger } from './platform/log.js';
import { API_MODULES } from './apis/index.js';
import { PLATFORM_TASKS } from './platform/tasks.js';
import { startWorker, type Worker } from './platform/work/worker.js';
import type { ServersLoad } from './platform/work/requestsFirst.js';
import { askListeners, recordListening } from './platform/listeners.js';
import { startTelemetry, stopTelemetry } from './platform/telemetry/index.js';
import { dropUnshownClient, ensureDemoClient, firstRunMessage, listenError, secureDataDir } from './startup.js';

/**
 * Servers at another PUBLIC_URL on the same database are allowed (a PUBLIC_URL changed by starting
 * the new server before the old one stops, a second one on another port to try something), but
 * they do not share tokens: each refuses the others' (another issuer), and the CLI now names this
 * one. Said once at start, as a warning, rather than found out from a 401.
 */
function warnOfOtherIssuers(pool: Pool, config: Config, logger: Logger): void {
  askListeners(pool, { except: config.publicUrl }).then(
    ({ live: others }) => {
      if (others.length === 0) return;
      logger.warn(
        { publicUrl: config.publicUrl, others },
        'another server serves this database at another PUBLIC_URL: each refuses the tokens the other issues (another issuer), and immogate url and token now name this one, started last; give them one PUBLIC_URL, or each a database of its own',
      );
    },
    (error: unknown) => logger.warn({ err: error }, 'could not ask whether other servers serve this database'),
  );
}

/** Every column holding sealed secrets: the platform's and those the API modules declare. */
export function sealedColumnsOf(modules: readonly ApiModule[]): SealedColumn[] {
  return [...PLATFORM_SEALED_COLUMNS, ...modules.flatMap((module) => module.sealedColumns ?? [])];
}

export interface Services {
  app?: FastifyInstance;
  worker?: Worker;
  address?: string;
  stop(): Promise<void>;
}

/**
 * Starts the HTTP server and/or the worker on one database. stop() drains in-flight requests,
 * lets running work finish (its claims go back to the queue), closes the pools and stops an
 * embedded database this process started.
 */
export async function startServices(
  config: Config,
  logger: Logger,
  roles: { server: boolean; worker: boolean },
  options: {
    apis?: readonly ApiModule[];
    onFirstRun?: (message: string) => void;
    signal?: AbortSignal;
    /** The load of the server processes beside the worker (a worker process of `immogate start`). */
    serversLoad?: ServersLoad;
  } = {},
): Promise<Services> {
  await secureDataDir(config, logger);
  const role = [roles.server && 'server', roles.worker && 'worker'].filter(Boolean).join('+');
  await startTelemetry(process.env, role, logger);
  // Every step that needs the database waits for it while it is unavailable (db/startWait.ts);
  // `signal` (a SIGTERM meanwhile) ends the wait with StartStopped.
  const wait = new StartWait(logger, config.databaseStartTimeoutSeconds, options.signal);
  const database = await openDatabase(config, { supervisedBy: logger, wait });
  const pools: Pool[] = [];
  let app: FastifyInstance | undefined;
  let worker: Worker | undefined;
  let forgetListening: (() => Promise<void>) | undefined;
  // Order matters: drain requests, let running work finish, then close connections and the database.
  const cleanup = async () => {
    // The close begins first, in this tick, so that no new request is served while the record goes;
    // the record goes meanwhile, so that the CLI stops naming a server that is going away (a
    // database already gone keeps the row).
    const closing = app?.close();
    await forgetListening?.().catch((error: unknown) => logger.warn({ err: error }, 'could not remove the record of this server'));
    await closing;
    await worker?.stop();
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await database.close();
    // Last, so that the spans of the drained requests and work go out too.
    await stopTelemetry();
  };
  // The client of a first start, until its secret is shown.
  let demo: { clientId: string; secret: string } | undefined;
  try {
    // Start-up's own, ended once it is done: a migration may take as long as its data takes (db/limits.ts).
    const pool = createPool(database.url, 2);
    try {
      const applied = await wait.run('migrating', () => prepareDatabase(pool));
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      const columns = sealedColumnsOf(options.apis ?? API_MODULES);
      const { sealed } = await wait.run('sealing stored secrets', () =>
        whileAnswering(pool, () => sealStoredSecrets(pool, sealerFor(config), columns)),
      );
      if (sealed > 0) logger.info({ sealed }, 'sealed the secrets an earlier version stored in clear');
      if (roles.server) demo = await wait.run('creating the first client', () => whileAnswering(pool, () => ensureDemoClient(pool)));
    } finally {
      await pool.end();
    }
    const modules = options.apis ?? API_MODULES;
    const sealer = sealerFor(config);

    const streams = [deliveryStream({ sources: deliverySourcesOf(modules) }), ...modules.flatMap((module) => module.streams ?? [])];
    let address: string | undefined;
    if (roles.server) {
      // Requests keep to their deadlines (db/limits.ts); a scrape of /metrics has a small pool of its own.
      const requests = createPool(database.url, config.databasePoolSize, requestLimits(config.databaseDeadlines), { fixed: true });
      const scrapes = createPool(database.url, 1, PROBE_LIMITS);
      pools.push(requests, scrapes);
      // The HTTP server's modules (Fastify, its plugins, the validators) are loaded by a process
      // that serves: a worker process keeps none of them in its memory.
      const [{ buildApp }, { createMetrics }] = await Promise.all([import('./app.js'), import('./platform/metrics.js')]);
      // The request pools' statements have deadlines (db/limits.ts): none of these waits on a silent database.
      const keys = await wait.run('loading the signing keys', () => KeyStore.open(requests, sealer));
      app = await buildApp({ config, pool: requests, keys, metrics: createMetrics(scrapes, streams), logger, apis: modules, streams });
      // Before listening, so that once /ready answers the CLI finds this server and the first
      // start's client exists; a start that fails to listen removes the record (cleanup) and the
      // client, whose secret it never showed (below).
      forgetListening = await wait.run('recording this server', () => recordListening(requests, config.publicUrl));
      address = await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
        throw listenError(error, config);
      });
      logger.info({ address, publicUrl: config.publicUrl, database: database.description }, 'immogate listening');
      // Without awaiting anything first: written (a pipe's writes are synchronous) before any
      // request is served, so the curl line works the moment it is read, and is there once /ready answers.
      if (demo) (options.onFirstRun ?? ((message) => process.stdout.write(`${message}\n`)))(firstRunMessage(config, demo));
      demo = undefined;
      // Not awaited: asking the others takes up to their timeout, and serving need not wait for it.
      warnOfOtherIssuers(requests, config, logger);
    }
    if (roles.worker) {
      // A pool of its own: work never takes connections from requests.
      const workerPool = createPool(database.url, config.databasePoolSize, WORK_LIMITS);
      pools.push(workerPool);
      worker = await wait.run('starting the worker', () =>
        startWorker({
          pool: workerPool,
          databaseUrl: database.url,
          logger,
          config,
          streams,
          tasks: [...PLATFORM_TASKS, ...modules.flatMap((module) => module.tasks ?? [])],
          ...(options.serversLoad ? { serversLoad: options.serversLoad } : {}),
        }),
      );
      logger.info(
        { workerId: worker.workerId, concurrency: config.workerConcurrency, webhookConcurrency: config.webhookConcurrency },
        'worker started',
      );
    }
    let stopping: Promise<void> | undefined;
    return {
      app,
      worker,
      address,
      stop() {
        stopping ??= (async () => {
          const grace = setTimeout(() => app?.server.closeAllConnections(), config.shutdownGraceSeconds * 1000);
          await cleanup();
          clearTimeout(grace);
        })();
        return stopping;
      },
    };
  } catch (error) {
    if (demo) await dropUnshownClient(database.url, demo, logger);
    await cleanup();
    throw error;
  }
}
