/*
 * Starting immogate on one database: open it (embedded or external), migrate, seal old secrets,
 * create the first-start client, then the HTTP server and/or the worker, and stop them in order.
 */
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { deliverySourcesOf, type ApiModule } from './platform/module.js';
import { buildApp } from './app.js';
import { ConfigError, type Config } from './config.js';
import { createClient } from './platform/auth/clients.js';
import { KeyStore } from './platform/auth/keys.js';
import { keyFilePath, sealerFor } from './platform/secrets/sealer.js';
import { PLATFORM_SEALED_COLUMNS, sealStoredSecrets, type SealedColumn } from './platform/secrets/stored.js';
import { embeddedClusterExists, openEmbedded } from './platform/db/embedded.js';
import { migrate } from './platform/db/migrate.js';
import { EmbeddedSupervisor } from './platform/db/supervisor.js';
import { createPool, inTransaction, type Pool } from './platform/db/pool.js';
import { deliveryStream } from './platform/delivery/index.js';
import type { Logger } from './platform/log.js';
import { createMetrics } from './platform/metrics.js';
import { API_MODULES } from './apis/index.js';
import { PLATFORM_TASKS } from './platform/work/tasks.js';
import { startWorker, type Worker } from './platform/work/worker.js';
import { messageOf, codeOf } from './platform/caught.js';
import { tightenDataDir } from './platform/dataDir.js';
import { recordListening } from './platform/listeners.js';

export interface Database {
  url: string;
  /** Where the data lives, for messages: the embedded cluster's directory or the external host. */
  description: string;
  close(): Promise<void>;
}

/** Fails start-up and CLI commands with a message naming DATABASE_URL rather than a bare socket error. */
async function checkReachable(url: string, host: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new ConfigError('DATABASE_URL', `cannot connect to PostgreSQL at ${host}: ${messageOf(error)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The external database of DATABASE_URL, or the embedded one of DATA_DIR (joined if running).
 * `existing`: a DATA_DIR that holds no database is an error rather than one to create; a command
 * run from the wrong directory would otherwise work on an empty database of its own, silently.
 * `supervisedBy`: a server's logger; an embedded database this process starts is then restarted
 * whenever it dies, for as long as it is open (a CLI command's is not: it ends soon anyway).
 */
export async function openDatabase(config: Config, options: { existing?: boolean; supervisedBy?: Logger } = {}): Promise<Database> {
  if (config.databaseUrl) {
    const host = new URL(config.databaseUrl).host;
    await checkReachable(config.databaseUrl, host);
    return { url: config.databaseUrl, description: `PostgreSQL at ${host}`, close: async () => undefined };
  }
  if (options.existing && !embeddedClusterExists(config.dataDir)) {
    throw new ConfigError(
      'DATA_DIR',
      `${config.dataDir} holds no immogate database: run this command with the DATA_DIR (or DATABASE_URL) of your server, or create one with immogate start`,
    );
  }
  const embedded = await openEmbedded(config.dataDir);
  const supervisor = embedded.owned && options.supervisedBy ? new EmbeddedSupervisor(embedded, options.supervisedBy) : undefined;
  supervisor?.start();
  return {
    url: embedded.url,
    description: `embedded PostgreSQL in ${config.dataDir}${embedded.owned ? '' : ' (joined the running one)'}`,
    async close() {
      // First: a server stopped on purpose is no server to restart.
      await supervisor?.stop();
      await embedded.stop();
    },
  };
}

/**
 * What a start does to DATA_DIR before anything else: takes group and other access away from what
 * an earlier version (or a copy, or a restore) left readable (dataDir.ts), and says so. The key
 * files are left as they are: one others could read may have been copied, so it is refused at
 * start (sealer.ts) for the operator to decide, as ssh refuses such keys, not quietly made private.
 */
export async function secureDataDir(config: Config, logger: Logger): Promise<void> {
  const leave = ['', '.next', '.previous'].map((suffix) => keyFilePath(config.dataDir, suffix));
  // The processes of --processes N get the primary's embedded database as DATABASE_URL; its cluster
  // under DATA_DIR still needs its passage for the user postgres (a restart by the primary's
  // supervisor reads its files by path).
  const embedded = config.databaseUrl === undefined || embeddedClusterExists(config.dataDir);
  const changed = await tightenDataDir(config.dataDir, { embedded, leave });
  if (changed.length > 0) {
    logger.warn({ dataDir: config.dataDir, tightened: changed.length }, 'took group and other access away from files under DATA_DIR');
  }
}

export const DEMO_INTERMEDIARY = 'demo-agency';

/** Every column holding sealed secrets: the platform's and those the API modules declare. */
export function sealedColumnsOf(modules: readonly ApiModule[]): SealedColumn[] {
  return [...PLATFORM_SEALED_COLUMNS, ...modules.flatMap((module) => module.sealedColumns ?? [])];
}

/** Applies pending migrations; returns the names applied. */
export async function prepareDatabase(pool: Pool): Promise<string[]> {
  return migrate(pool);
}

/**
 * On the first server start of a database with no client at all, creates the sandbox client a
 * new user starts with and returns its secret (shown once). CLI commands never do this: a client
 * whose secret nobody saw would be of no use. The lock keeps servers starting together from
 * creating two.
 */
export async function ensureDemoClient(pool: Pool): Promise<{ clientId: string; secret: string } | undefined> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['immogate.demo_client']);
    const { rows } = await client.query('SELECT 1 FROM clients LIMIT 1');
    if (rows.length > 0) return undefined;
    const created = await createClient(client, {
      name: 'sandbox demo client',
      intermediaries: [DEMO_INTERMEDIARY],
      scopes: ['caas:*', 'clim:*', 'leads:*'],
      // Production after review (`immogate clients report`, then `clients update --environments`).
      environments: ['sandbox'],
    });
    return { clientId: created.client.clientId, secret: created.secret };
  });
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
    // Without the secret too: the command mints through this database.
    `or, next to this server: immogate token --api caas --env sandbox --agency ${DEMO_INTERMEDIARY}`,
    '',
  ].join('\n');
}

/** The line dev mode adds once the server listens: where to look, and what the sandbox may reach. */
export function devModeMessage(config: Config): string {
  return `dev mode: the console is at ${config.publicUrl}/console and the API documents at ${config.publicUrl}/docs; sandbox webhooks and media may reach loopback and private addresses, production's may not`;
}

/** A failure to listen is nearly always a bad PORT or HOST: say which, as for any other bad setting. */
export function listenError(error: unknown, config: Config): unknown {
  const code = codeOf(error);
  if (code === 'EADDRINUSE') return new ConfigError('PORT', `port ${config.port} is already in use on ${config.host}`);
  if (code === 'EACCES') return new ConfigError('PORT', `no permission to listen on port ${config.port}`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError('HOST', `cannot listen on "${config.host}": it is not an address of this machine (${code})`);
  }
  return error;
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
