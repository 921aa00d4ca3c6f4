/*
 * What a start does besides serving: takes group and other access away from DATA_DIR, creates the
 * client of a first start, and the messages a start prints. Apart from runtime.ts so that the
 * primary of `immogate start`, which serves nothing, does not load the HTTP server and the worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, type Config } from './config.js';
import { DEMO_INTERMEDIARY, createClient } from './platform/auth/clients.js';
import { codeOf } from './platform/caught.js';
import { tightenDataDir } from './platform/dataDir.js';
import { embeddedClusterExists } from './platform/db/embedded.js';
import { createPool, inTransaction, type Pool } from './platform/db/pool.js';
import type { Logger } from './platform/log.js';
import { keyFilePath } from './platform/secrets/sealer.js';

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

/**
 * On the first server start of a database with no client at all, creates the sandbox client a
 * new user starts with and returns its secret (shown once, once a server listens; a start that
 * fails before removes it: dropUnshownClient). CLI commands never do this: a client whose secret
 * nobody saw would be of no use. The lock keeps servers starting together from creating two.
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

/**
 * Removes the client of a first start that never served, its secret never shown: the next start
 * then creates one and shows its secret, as a first start does. Without this, a start that failed
 * to listen (a PORT taken) left a client whose secret nobody could learn, and no later start said
 * anything of it. A database that is gone meanwhile keeps it: the warning names the way out.
 */
export async function dropUnshownClient(databaseUrl: string, demo: { clientId: string }, logger: Logger): Promise<void> {
  const pool = createPool(databaseUrl, 1);
  try {
    await pool.query('DELETE FROM clients WHERE client_id = $1', [demo.clientId]);
  } catch (error) {
    logger.warn(
      { err: error, clientId: demo.clientId },
      `the sandbox client of this first start was not shown and could not be removed: immogate clients rotate-secret ${demo.clientId} gives it a secret`,
    );
  } finally {
    await pool.end();
  }
}

/** This package's command, whichever way this process was started (bin/ is two levels above dist/src/). */
const OWN_BIN = fileURLToPath(new URL('../../bin/immogate.js', import.meta.url));

function realpath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * How to run this immogate from the current directory, as a message prints it: `immogate` when
 * that is what the shell finds first on PATH (npm links it into node_modules/.bin, on PATH only
 * when the user put it there), else node and the path of this package's command from here. A
 * checkout's `immogate` is usually not on PATH, and another immogate found there first would
 * answer for another version.
 */
export function commandHere(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const own = realpath(OWN_BIN);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const found = realpath(path.join(dir, 'immogate'));
    if (found === undefined) continue;
    if (found === own) return 'immogate';
    break;
  }
  const relative = path.relative(cwd, OWN_BIN);
  return `node ${/^[\w./-]+$/.test(relative) ? relative : `'${relative.replaceAll("'", `'\\''`)}'`}`;
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
    // Without the secret too: the command mints through this database (DATA_DIR is relative to here).
    `or, from this directory: ${commandHere()} token --api caas --env sandbox --agency ${DEMO_INTERMEDIARY}`,
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
