import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import type { ApiModule } from './apis/module.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createClient } from './platform/auth/clients.js';
import { KeyStore } from './platform/auth/keys.js';
import { openEmbedded } from './platform/db/embedded.js';
import { migrate } from './platform/db/migrate.js';
import { createPool, type Pool } from './platform/db/pool.js';
import { JOBS } from './platform/jobs/registry.js';
import { startWorker } from './platform/jobs/worker.js';
import { graphileLogger, type Logger } from './platform/log.js';
import { createMetrics } from './platform/metrics.js';
import { API_MODULES } from './apis/index.js';

export interface Database {
  url: string;
  /** Where the data lives, for messages: the embedded cluster's directory or the external host. */
  description: string;
  close(): Promise<void>;
}

/** The external database of DATABASE_URL, or the embedded one of DATA_DIR (joined if running). */
export async function openDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) {
    const host = new URL(config.databaseUrl).host;
    return { url: config.databaseUrl, description: `PostgreSQL at ${host}`, close: async () => undefined };
  }
  const embedded = await openEmbedded(config.dataDir);
  return {
    url: embedded.url,
    description: `embedded PostgreSQL in ${config.dataDir}${embedded.owned ? '' : ' (joined the running one)'}`,
    close: () => embedded.stop(),
  };
}

export const DEMO_INTERMEDIARY = 'demo-agency';

/** Applies migrations; on a database that was empty, creates the sandbox client to start with. */
export async function prepareDatabase(pool: Pool, logger: Logger): Promise<{ applied: string[]; demo?: { clientId: string; secret: string } }> {
  const applied = await migrate(pool, graphileLogger(logger));
  if (!applied.includes('001_platform')) return { applied };
  const { client, secret } = await createClient(pool, {
    name: 'sandbox demo client',
    intermediaries: [DEMO_INTERMEDIARY],
    scopes: ['caas:*', 'clim:*', 'leads:*'],
  });
  return { applied, demo: { clientId: client.clientId, secret } };
}

export function firstRunMessage(config: Config, demo: { clientId: string; secret: string }): string {
  const body = JSON.stringify({
    grant_type: 'client_credentials',
    client_id: demo.clientId,
    client_secret: demo.secret,
    audience: `${config.publicUrl}/sandbox/caas/v4`,
    intermediary_id: DEMO_INTERMEDIARY,
  });
  return [
    '',
    'First start: created a sandbox client with every scope, acting for intermediary "demo-agency".',
    `  client_id:     ${demo.clientId}`,
    `  client_secret: ${demo.secret}`,
    'The secret is shown only now. Get a token with:',
    `  curl -s -X POST ${config.publicUrl}/oauth/token -H 'Content-Type: application/json' -d '${body}'`,
    '',
  ].join('\n');
}

export interface Services {
  app?: FastifyInstance;
  worker?: Runner;
  address?: string;
  stop(): Promise<void>;
}

/**
 * Starts the HTTP server and/or the job worker on one database. The worker gets a pool of its
 * own so long jobs never take connections from requests. stop() drains in-flight requests,
 * lets running jobs finish, closes the pools and stops an embedded database this process started.
 */
export async function startServices(
  config: Config,
  logger: Logger,
  roles: { server: boolean; worker: boolean },
  options: { apis?: readonly ApiModule[]; onFirstRun?: (message: string) => void } = {},
): Promise<Services> {
  const database = await openDatabase(config);
  const pools: Pool[] = [];
  let app: FastifyInstance | undefined;
  let worker: Runner | undefined;
  // Order matters: drain requests, let running jobs finish, then close connections and the database.
  const cleanup = async () => {
    await app?.close();
    await worker?.stop();
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await database.close();
  };
  try {
    const pool = createPool(database.url, config.databasePoolSize);
    pools.push(pool);
    const { applied, demo } = await prepareDatabase(pool, logger);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    if (demo) (options.onFirstRun ?? ((message) => process.stdout.write(message + '\n')))(firstRunMessage(config, demo));

    let address: string | undefined;
    if (roles.server) {
      const keys = await KeyStore.open(pool);
      app = await buildApp({ config, pool, keys, metrics: createMetrics(pool), logger, apis: options.apis ?? API_MODULES });
      address = await app.listen({ host: config.host, port: config.port });
      logger.info({ address, publicUrl: config.publicUrl, database: database.description }, 'immogate listening');
    }
    if (roles.worker) {
      const workerPool = createPool(database.url, config.workerConcurrency + 2);
      pools.push(workerPool);
      worker = await startWorker({ pool: workerPool, logger, config, jobs: JOBS });
      logger.info({ concurrency: config.workerConcurrency }, 'worker started');
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
