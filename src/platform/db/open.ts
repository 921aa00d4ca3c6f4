/*
 * Opening immogate's database: the external one of DATABASE_URL, or the embedded one of DATA_DIR,
 * and migrating it. Apart from runtime.ts so that a CLI command reaches its database without
 * loading the HTTP server.
 */
import pg from 'pg';
import { ConfigError, type Config } from '../../config.js';
import { messageOf } from '../caught.js';
import type { Logger } from '../log.js';
import { embeddedClusterExists, openEmbedded } from './embedded.js';
import { whileAnswering } from './liveness.js';
import { migrate } from './migrate.js';
import type { Pool } from './pool.js';
import { DatabaseStartTimeout, StartStopped, type StartWait } from './startWait.js';
import { EmbeddedSupervisor } from './supervisor.js';

export interface Database {
  url: string;
  /** Where the data lives, for messages: the embedded cluster's directory or the external host. */
  description: string;
  close(): Promise<void>;
}

/** One try at connecting; what fails is thrown as it is. */
async function connectOnce(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Fails start-up and CLI commands with a message naming DATABASE_URL rather than a bare socket
 * error. A start (`wait`) waits for a database that is unavailable; a CLI command does not: its
 * operator is there to read why.
 */
async function checkReachable(url: string, host: string, wait: StartWait | undefined): Promise<void> {
  try {
    await (wait ? wait.run(`connecting to PostgreSQL at ${host}`, () => connectOnce(url)) : connectOnce(url));
  } catch (error) {
    if (error instanceof DatabaseStartTimeout || error instanceof StartStopped) throw error;
    throw new ConfigError('DATABASE_URL', `cannot connect to PostgreSQL at ${host}: ${messageOf(error)}`);
  }
}

/**
 * The external database of DATABASE_URL, or the embedded one of DATA_DIR (joined if running).
 * `existing`: a DATA_DIR that holds no database is an error rather than one to create; a command
 * run from the wrong directory would otherwise work on an empty database of its own, silently.
 * `supervisedBy`: a server's logger; an embedded database this process starts is then restarted
 * whenever it dies, for as long as it is open (a CLI command's is not: it ends soon anyway).
 * `wait`: a start's, which waits for an external database that is unavailable (startWait.ts).
 */
export async function openDatabase(
  config: Config,
  options: { existing?: boolean; supervisedBy?: Logger; wait?: StartWait } = {},
): Promise<Database> {
  if (config.databaseUrl) {
    const host = new URL(config.databaseUrl).host;
    await checkReachable(config.databaseUrl, host, options.wait);
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
 * Applies pending migrations; returns the names applied. Watched (liveness.ts): a database that
 * stops answering under a migration fails it as unavailable, rather than leaving it waiting.
 */
export async function prepareDatabase(pool: Pool): Promise<string[]> {
  return whileAnswering(pool, () => migrate(pool));
}
