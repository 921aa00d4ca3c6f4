/*
 * Starting immogate on one database: open it (embedded or external), migrate, seal old secrets,
 * create the first-start client, then the HTTP server and/or the worker, and stop them in order.
 */
import type { FastifyInstance } from 'fastify';
import { deliverySourcesOf, type ApiModule } from './platform/module.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { KeyStore } from './platform/auth/keys.js';
import { sealerFor } from './platform/secrets/sealer.js';
import { PLATFORM_SEALED_COLUMNS, sealStoredSecrets, type SealedColumn } from './platform/secrets/stored.js';
import { openDatabase, prepareDatabase } from './platform/db/open.js';
import { createPool, type Pool } from './platform/db/pool.js';
import { deliveryStream } from './platform/delivery/index.js';
import type { Logger } from './platform/log.js';
import { createMetrics } from './platform/metrics.js';
import { API_MODULES } from './apis/index.js';
import { PLATFORM_TASKS } from './platform/work/tasks.js';
import { startWorker, type Worker } from './platform/work/worker.js';
import { recordListening } from './platform/listeners.js';
import { startTelemetry, stopTelemetry } from './platform/telemetry/index.js';
import { ensureDemoClient, firstRunMessage, listenError, secureDataDir } from './startup.js';

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
  options: { apis?: readonly ApiModule[]; onFirstRun?: (message: string) => void } = {},
): Promise<Services> {
  await secureDataDir(config, logger);
  const role = [roles.server && 'server', roles.worker && 'worker'].filter(Boolean).join('+');
  await startTelemetry(process.env, role, logger);
  const database = await openDatabase(config, { supervisedBy: logger });
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
  try {
    const pool = createPool(database.url, config.databasePoolSize);
    pools.push(pool);
    const applied = await prepareDatabase(pool);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    const modules = options.apis ?? API_MODULES;
    const sealer = sealerFor(config);
    const { sealed } = await sealStoredSecrets(pool, sealer, sealedColumnsOf(modules));
    if (sealed > 0) logger.info({ sealed }, 'sealed the secrets an earlier version stored in clear');

    const streams = [deliveryStream({ sources: deliverySourcesOf(modules) }), ...modules.flatMap((module) => module.streams ?? [])];
    let address: string | undefined;
    if (roles.server) {
      const keys = await KeyStore.open(pool, sealer);
      app = await buildApp({ config, pool, keys, metrics: createMetrics(pool, streams), logger, apis: modules });
      // Before listening, so that once /ready answers the CLI finds this server and the first
      // start's client exists; a start that fails to listen removes the record (cleanup).
      forgetListening = await recordListening(pool, config.publicUrl);
      const demo = await ensureDemoClient(pool);
      const announce = () => {
        if (demo) (options.onFirstRun ?? ((message) => process.stdout.write(`${message}\n`)))(firstRunMessage(config, demo));
      };
      address = await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
        // The secret is shown once or never: told even so, for the next start to be used with.
        announce();
        throw listenError(error, config);
      });
      logger.info({ address, publicUrl: config.publicUrl, database: database.description }, 'immogate listening');
      // Without awaiting anything first: written (a pipe's writes are synchronous) before any
      // request is served, so the curl line works the moment it is read, and is there once /ready answers.
      announce();
    }
    if (roles.worker) {
      // A pool of its own beside a server: work never takes connections from requests. Alone (the
      // worker process of `immogate start`), the pool of start-up, not a second one holding idle connections.
      const workerPool = roles.server ? createPool(database.url, config.databasePoolSize) : pool;
      if (workerPool !== pool) pools.push(workerPool);
      worker = await startWorker({
        pool: workerPool,
        databaseUrl: database.url,
        logger,
        config,
        streams,
        tasks: [...PLATFORM_TASKS, ...modules.flatMap((module) => module.tasks ?? [])],
      });
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
    await cleanup();
    throw error;
  }
}
