#!/usr/bin/env node
/*
 * The `immogate` command: start, migrate, clients, deliveries, secrets, and the commands the API
 * modules add.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import {
  ClientInputError,
  createClient,
  setEnvironments,
  disableClient,
  issuanceReport,
  listClients,
  rotateSecret,
  DEFAULT_CLIENT_ENVIRONMENTS,
  DEFAULT_CLIENT_SCOPES,
  DEMO_INTERMEDIARY,
  type Client,
} from './platform/auth/clients.js';
import { createPool, type Pool } from './platform/db/pool.js';
import { loggerFor } from './platform/log.js';
import { openDatabase, prepareDatabase } from './platform/db/open.js';
import { NewerSchemaError, pendingMigrations } from './platform/db/migrate.js';
import { DatabaseStartTimeout, StartStopped } from './platform/db/startWait.js';
import { SecretsKeyError, keySourceOf } from './platform/secrets/sealer.js';
import { API_COMMANDS, WEBHOOK_SOURCES } from './apis/commands.js';
import { REDELIVER_DELIVERY_OPTION, type CliContext, type RedeliverOptions } from './platform/module.js';
import { parseScopes } from './platform/auth/scopes.js';
import type { Redelivery, RedeliveryTarget } from './platform/delivery/index.js';
import { messageOf } from './platform/caught.js';
import type { ApiDescriptor, Environment } from './platform/catalogue.js';
import { withoutTrailingSlashes } from './platform/text.js';
import { askListeners } from './platform/listeners.js';
import { API_CHOICES, TokenError, apiNamed, mintToken, requestToken, type WantedToken } from './cliTokens.js';

class CliError extends Error {}

interface GlobalOptions {
  json?: boolean;
}

function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(`${json ? JSON.stringify(value, null, 2) : human()}\n`);
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Runs a command against the database: the external one, the running embedded one, or an embedded one started for the command. */
async function withDatabase<T>(config: Config, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const database = await openDatabase(config, { existing: true });
  const pool = createPool(database.url, 2);
  try {
    const applied = await prepareDatabase(pool);
    for (const name of applied) progress(`applied migration ${name}`);
    return await fn(pool);
  } finally {
    await pool.end();
    await database.close();
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function clientHuman(client: Client): string {
  return table([
    ['client_id', client.clientId],
    ['name', client.name],
    ['intermediaries', client.intermediaries.join(' ')],
    ['scopes', client.scopes.join(' ')],
    ['environments', client.environments.join(' ')],
    ['created', client.createdAt],
    ['status', client.disabledAt ? `disabled ${client.disabledAt}` : 'active'],
  ]);
}

async function serve(roles: { server: boolean; worker: boolean }, options: { dev: boolean }): Promise<void> {
  const [{ isClusterChild, onDrainRequest, processLogger, reportReady, shareServersLoad }, { startServices }, { devModeMessage }] =
    await Promise.all([import('./cluster.js'), import('./runtime.js'), import('./startup.js')]);
  const config = loadConfig(process.env, options);
  const logger = processLogger(await loggerFor(config));
  // Signals are handled from the very start: one arriving while the embedded database starts
  // must still stop it once start-up is done, not kill this process and leave it running. One
  // arriving while the start waits for its database ends the wait (StartStopped).
  const aborting = new AbortController();
  const serversLoad = shareServersLoad(roles, logger, config.workerPaceWhileServersBusy);
  const starting = startServices(config, logger, roles, { signal: aborting.signal, ...(serversLoad ? { serversLoad } : {}) });
  // A start under way keeps the process alive. In a child of `immogate start`, listening waits for
  // the primary's answer on the IPC channel, which is unref'd (onDrainRequest); with the database
  // killed just then, no connection was left open either, and the child exited half started (13).
  const underway = setInterval(() => undefined, 60_000);
  starting.finally(() => clearInterval(underway)).catch(() => undefined);
  let signals = 0;
  let draining = false;
  const drain = (reason: { signal: string } | { requestedBy: string }) => {
    if (draining) return;
    draining = true;
    logger.info(reason, 'shutting down: draining requests and jobs');
    aborting.abort();
    starting
      .then(
        (services) => services.stop(),
        // A start stopped while it waited has closed what it opened.
        (error: unknown) => {
          if (!(error instanceof StartStopped)) throw error;
        },
      )
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    drain({ signal });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // A child of `start --processes N`: the primary's request is no signal of its own, so the
  // Ctrl-C that reached this process too still counts as the first one.
  onDrainRequest(() => drain({ requestedBy: 'primary' }));
  try {
    await starting;
  } catch (error) {
    // drain() says so and exits.
    if (error instanceof StartStopped) return;
    throw error;
  }
  // Once, and not from each child of `immogate start --dev`: their primary says it.
  if (config.dev && roles.server && !isClusterChild()) logger.info(devModeMessage(config));
  reportReady();
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--processes`: a positive whole number, or `auto` for as many as the machine runs at once. */
function processCount(value: string): number {
  if (value === 'auto') return os.availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new CliError(`--processes must be a positive whole number or "auto", got "${value}"`);
  return Number(value);
}

function positiveInteger(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new CliError(`${name} must be a positive whole number, got "${value}"`);
    return Number(value);
  };
}

/** The version of the installed package: its package.json sits two levels above dist/src/cli.js. */
function packageVersion(): string {
  const manifest: unknown = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = typeof manifest === 'object' && manifest !== null ? Reflect.get(manifest, 'version') : undefined;
  return typeof version === 'string' ? version : 'unknown';
}

const DEV_OPTION =
  'dev mode: sandbox webhooks and media may reach loopback and private addresses (production keeps the SSRF policy), logs for people';

export function buildCli(): Command {
  const program = new Command('immogate')
    .description('Partner APIs of a real-estate portal: classifieds ingestion v4, listing import v1, lead API v1.')
    .version(packageVersion(), '-V, --version', 'print the version of immogate')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();
  const json = () => program.opts<GlobalOptions>().json ?? false;

  program
    .command('start')
    .description(
      'run the HTTP server and the job worker, each in a process of its own at a lower priority for the worker; N servers with --processes (embedded PostgreSQL unless DATABASE_URL is set)',
    )
    .addOption(
      new Option('--processes <n>', 'run N server processes sharing the port and the database; "auto": one per core')
        .default(1)
        .argParser(processCount),
    )
    .option(
      '--inline-worker',
      "run the worker inside each server process, at the server's priority (one process and no primary with --processes 1)",
      false,
    )
    .option('--dev', DEV_OPTION, false)
    .action((options: { processes: number; inlineWorker: boolean; dev: boolean }) =>
      options.inlineWorker && options.processes === 1
        ? serve({ server: true, worker: true }, { dev: options.dev })
        : import('./cluster.js').then(({ startCluster }) =>
            startCluster(options.processes, { dev: options.dev, inlineWorker: options.inlineWorker }),
          ),
    );
  program
    .command('server')
    .description('run only the HTTP server')
    .option('--dev', DEV_OPTION, false)
    .action((options: { dev: boolean }) => serve({ server: true, worker: false }, options));
  program
    .command('worker')
    .description('run only the job worker')
    .option('--dev', DEV_OPTION, false)
    .action((options: { dev: boolean }) => serve({ server: false, worker: true }, options));

  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--dry-run', 'list the migrations that would be applied, one per line, and apply none', false)
    .action(async (options: { dryRun: boolean }) => {
      const config = loadConfig();
      // Only an existing embedded database: `start` creates and migrates a new one.
      const database = await openDatabase(config, { existing: true });
      const pool = createPool(database.url, 2);
      try {
        if (options.dryRun) {
          progress(`checking ${database.description}`);
          const pending = await pendingMigrations(pool);
          print(json(), { pending }, () => (pending.length === 0 ? 'database is up to date' : pending.join('\n')));
          return;
        }
        progress(`migrating ${database.description}`);
        const applied = await prepareDatabase(pool);
        for (const name of applied) progress(`applied ${name}`);
        print(json(), { applied }, () => (applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`));
      } finally {
        await pool.end();
        await database.close();
      }
    });

  program
    .command('backup')
    .description(
      'copy every table of the database (one consistent snapshot, taken while the server runs) to a compressed file any PostgreSQL version restores from; with the id of the secrets key, never the key',
    )
    .requiredOption('--to <file>', 'the backup file to write (refused if it exists)')
    .option('--with-blobs', 'include the uploaded media of DATA_DIR/blobs (not S3)', false)
    .action(async (options: { to: string; withBlobs: boolean }) => {
      const config = loadConfig();
      if (fs.existsSync(options.to)) throw new CliError(`${options.to} exists: give a new file to --to`);
      const { backup, progressBar, BackupError } = await import('./platform/backup.js');
      // SIGINT or SIGTERM ends the backup without its file, its partial file removed, and with a
      // line saying so; a second one exits at once (the next backup removes what is left).
      const aborting = new AbortController();
      const interrupted = (signal: NodeJS.Signals) => {
        if (aborting.signal.aborted) process.exit(1);
        aborting.abort(new BackupError(`interrupted by ${signal}: ${options.to} was not written`));
      };
      process.on('SIGINT', interrupted);
      process.on('SIGTERM', interrupted);
      const summary = await backup(config, options.to, {
        withBlobs: options.withBlobs,
        version: packageVersion(),
        progress: (total) => progressBar(process.stderr, 'backup', total),
        signal: aborting.signal,
      }).finally(() => {
        process.off('SIGINT', interrupted);
        process.off('SIGTERM', interrupted);
      });
      print(
        json(),
        summary,
        () =>
          `backed up ${summary.rows} row(s) of ${summary.tables} table(s)${options.withBlobs ? ` and ${summary.blobFiles} blob file(s)` : ''} ` +
          `at schema version ${summary.schemaVersion} to ${summary.file} (${summary.bytes} bytes)\n` +
          `the secrets in it need the key ${summary.secretsKeyId ?? '(none)'}: keep SECRETS_KEY or DATA_DIR/secrets.key apart from the backup`,
      );
    });
  program
    .command('restore')
    .description(
      'load a backup into an empty database: the embedded one of an empty DATA_DIR, or the one of DATABASE_URL; then apply newer migrations',
    )
    .requiredOption('--from <file>', 'the backup file')
    .action(async (options: { from: string }) => {
      const config = loadConfig();
      const { restore, progressBar } = await import('./platform/backup.js');
      const summary = await restore(config, options.from, { progress: (total) => progressBar(process.stderr, 'restore', total) });
      for (const name of summary.migratedTo) progress(`applied migration ${name}`);
      print(
        json(),
        summary,
        () =>
          `restored ${summary.rows} row(s) of ${summary.tables} table(s)${summary.blobFiles > 0 ? ` and ${summary.blobFiles} blob file(s)` : ''} ` +
          `at schema version ${summary.schemaVersion} into ${summary.target}`,
      );
    });

  const clients = program.command('clients').description('manage API clients');
  clients
    .command('create')
    .description(
      'create a client; prints its client id and secret, the secret only this once (only its hash is kept); --json: the client with its clientSecret',
    )
    .requiredOption('--name <name>', 'a name for the client')
    .option('--intermediary <id>', 'an intermediary (agency) the client may act for; repeatable', collect, [])
    .option('--scopes <scopes>', 'space-separated scopes', DEFAULT_CLIENT_SCOPES.join(' '))
    .option(
      '--environments <list>',
      'comma-separated environments the client may get tokens for: sandbox, production',
      DEFAULT_CLIENT_ENVIRONMENTS.join(','),
    )
    .action(async (options: { name: string; intermediary: string[]; scopes: string; environments: string }) => {
      const config = loadConfig();
      const { client, secret } = await withDatabase(config, (pool) =>
        createClient(pool, {
          name: options.name,
          intermediaries: options.intermediary,
          scopes: parseScopes(options.scopes),
          environments: splitList(options.environments),
        }),
      );
      print(
        json(),
        { ...client, clientSecret: secret },
        () => `${clientHuman(client)}\nclient_secret  ${secret}\n\nStore the secret now: only its hash is kept.`,
      );
    });
  clients
    .command('list')
    .description('list clients')
    .action(async () => {
      const all = await withDatabase(loadConfig(), listClients);
      print(json(), all, () =>
        all.length === 0
          ? 'no clients'
          : table([
              ['CLIENT_ID', 'NAME', 'INTERMEDIARIES', 'SCOPES', 'ENVIRONMENTS', 'STATUS'],
              ...all.map((c) => [
                c.clientId,
                c.name,
                c.intermediaries.join(','),
                c.scopes.join(' '),
                c.environments.join(','),
                c.disabledAt ? 'disabled' : 'active',
              ]),
            ]),
      );
    });
  clients
    .command('update <clientId>')
    .description('change what a client may do; tokens already issued keep theirs until they expire (24 h at most)')
    .requiredOption('--environments <list>', 'comma-separated environments the client may get tokens for: sandbox, production')
    .action(async (clientId: string, options: { environments: string }) => {
      const client = await withDatabase(loadConfig(), (pool) => setEnvironments(pool, clientId, splitList(options.environments)));
      if (!client) throw new CliError(`no client ${clientId}`);
      print(json(), client, () => clientHuman(client));
    });
  clients
    .command('rotate-secret <clientId>')
    .description(
      "replace the secret of a client and end its console sessions; prints the new secret once. The client's tokens live on until they expire unless --revoke-tokens",
    )
    .option('--revoke-tokens', 'also refuse every token the client was issued before, on every server within 10 seconds', false)
    .action(async (clientId: string, options: { revokeTokens: boolean }) => {
      const result = await withDatabase(loadConfig(), (pool) => rotateSecret(pool, clientId, { revokeTokens: options.revokeTokens }));
      if (!result) throw new CliError(`no client ${clientId}`);
      const sessions = `${result.consoleSessionsEnded} console session(s) ended.`;
      print(
        json(),
        {
          clientId,
          clientSecret: result.secret,
          tokensRevoked: result.tokensRevoked,
          consoleSessionsEnded: result.consoleSessionsEnded,
        },
        () =>
          `client_secret  ${result.secret}\n\nThe old secret no longer works; ${sessions}\n` +
          (result.tokensRevoked
            ? 'Every token issued before is refused within 10 seconds.'
            : 'Tokens already issued work until they expire (24 h at most); --revoke-tokens refuses them.'),
      );
    });
  clients
    .command('disable <clientId>')
    .description('disable a client: no new tokens, and its tokens stop working within seconds')
    .action(async (clientId: string) => {
      const client = await withDatabase(loadConfig(), (pool) => disableClient(pool, clientId));
      if (!client) throw new CliError(`no client ${clientId}`);
      print(json(), client, () => `disabled ${clientId}`);
    });
  clients
    .command('report')
    .description('tokens issued and failed authentications per client per day (UTC); flags clients that do not reuse their tokens')
    .addOption(new Option('--days <n>', 'days to look back').default(7).argParser(positiveInteger('--days')))
    .addOption(
      new Option('--threshold <n>', 'tokens for one audience and intermediary in one day above which a client is flagged')
        .default(5)
        .argParser(positiveInteger('--threshold')),
    )
    .action(async (options: { days: number; threshold: number }) => {
      const rows = await withDatabase(loadConfig(), (pool) => issuanceReport(pool, options.days, options.threshold));
      print(json(), rows, () =>
        rows.length === 0
          ? `no tokens issued nor authentications failed in the last ${options.days} day(s)`
          : table([
              ['DAY', 'CLIENT_ID', 'NAME', 'TOKENS', 'TARGETS', 'MAX/TARGET', 'FAILED AUTH', 'TOKEN REUSE'],
              ...rows.map((r) => [
                r.day,
                r.clientId,
                r.name,
                String(r.tokens),
                String(r.targets),
                String(r.maxPerTarget),
                String(r.failedAuthentications),
                r.reusesTokens ? 'ok' : 'NOT REUSED: fetches a token per call?',
              ]),
            ]),
      );
    });
  program
    .command('url')
    .description(
      'print the base URL (PUBLIC_URL) of the running server: PUBLIC_URL when set; else that of the server started last on this database (DATA_DIR or DATABASE_URL) among those that prove now that they serve it (a server killed, or recorded in a database restored from elsewhere, does not). With none, says so on stderr and exits 1; with several at different URLs, names the others on stderr',
    )
    .action(async () => {
      const config = loadConfig();
      const url = config.publicUrlGiven
        ? config.publicUrl
        : await withDatabase(config, async (pool) => {
            const [found, ...others] = await runningUrls(pool, 'set PUBLIC_URL');
            if (others.length > 0)
              progress(`note: servers at other URLs serve this database too (${others.join(', ')}); each refuses the tokens of the others`);
            return found;
          });
      print(json(), { url }, () => url);
    });

  program
    .command('token')
    .description(
      "print an access token: with --client and --secret asked of the running server's /oauth/token; without --secret minted through the database (DATA_DIR or DATABASE_URL) for --client, or for the only client that may get it, or the same token again while it is valid for more than an hour",
    )
    .addOption(new Option('--api <api>', 'the API').choices(API_CHOICES).makeOptionMandatory())
    .addOption(new Option('--env <environment>', 'the environment').choices(['sandbox', 'production']).default('sandbox'))
    .requiredOption('--agency <id>', 'the intermediary (agency) the token acts for')
    .option('--client <id>', 'the client')
    .option('--secret <secret>', "the client's secret")
    .option('--scope <scopes>', 'space-separated scopes (default: every scope the client holds for the API)')
    .option('--url <url>', URL_OPTION)
    .action(async (options: TokenOptions) => {
      const config = loadConfig();
      const given = givenUrl(options.url, config);
      if (options.secret !== undefined && options.client === undefined) throw new CliError('--secret needs --client');
      const { client, secret } = options;
      const answer =
        client !== undefined && secret !== undefined
          ? await requestToken(wantedToken(options, given ?? (await lookedUpUrl(config))), { clientId: client, secret })
          : await withDatabase(config, async (pool) => {
              const wanted = wantedToken(options, given ?? (await runningUrl(pool)));
              return (await mintToken(pool, config, wanted, client)).answer;
            });
      print(json(), answer, () => answer.access_token);
    });

  program
    .command('demo')
    .description(
      "walk the three APIs of a running server in its sandbox with the files of examples/, printing each step, its request and its answer; tokens as immogate token gets them (--client and --secret, or minted through the server's database)",
    )
    .option('--url <url>', URL_OPTION)
    .option('--agency <id>', 'the intermediary (agency) to act for', DEMO_INTERMEDIARY)
    .option('--client <id>', 'the client')
    .option('--secret <secret>', "the client's secret")
    .action(async (options: { url?: string; agency: string; client?: string; secret?: string }) => {
      const config = loadConfig();
      const given = givenUrl(options.url, config);
      if (options.secret !== undefined && options.client === undefined) throw new CliError('--secret needs --client');
      // A server not answering at a URL given is told before any database is opened for the tokens.
      if (given !== undefined) await checkAnswers(given);
      const answering = async (lookup: () => Promise<string>) => {
        if (given !== undefined) return given;
        const url = await lookup();
        await checkAnswers(url);
        return url;
      };
      const { runDemo } = await import('./demo.js');
      const wanted = (url: string, api: ApiDescriptor): WantedToken => ({ api, environment: 'sandbox', agency: options.agency, url });
      const walk = (url: string, token: (api: ApiDescriptor) => Promise<string>) =>
        runDemo({
          url,
          agency: options.agency,
          token,
          write: (text) => process.stdout.write(text),
          colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
        });
      const { client, secret } = options;
      const failures =
        client !== undefined && secret !== undefined
          ? await answering(() => lookedUpUrl(config)).then((url) =>
              walk(url, async (api) => (await requestToken(wanted(url, api), { clientId: client, secret })).access_token),
            )
          : await withDatabase(config, async (pool) => {
              const url = await answering(() => runningUrl(pool));
              return walk(url, async (api) => (await mintToken(pool, config, wanted(url, api), client)).answer.access_token);
            });
      if (failures > 0) throw new CliError(`${failures} step(s) of the demo were not answered as expected`);
    });

  const cli: CliContext = {
    withDatabase: (fn) => withDatabase(loadConfig(), fn),
    print: (value, human) => print(json(), value, human),
    fail: (message) => {
      throw new CliError(message);
    },
    async redeliver(options, noun, send) {
      const target = redeliveryTarget(options);
      const result = await withDatabase(loadConfig(), (pool) => send(pool, target));
      reportRedelivery(json(), result, noun, 'deliveryId' in target);
    },
  };
  for (const commands of API_COMMANDS) commands(program, cli);
  const secrets = program.command('secrets').description('the key that seals the secrets stored in the database');
  secrets
    .command('rotate-key')
    .description('re-seal every stored secret with a new key-encryption key, in one transaction')
    .option('--new-key <key>', 'the new key (32 bytes, base64 or hex); default: SECRETS_KEY_NEW, or with the key file a new random key')
    .action(async (options: { newKey?: string }) => {
      const config = loadConfig();
      const newKey = options.newKey ?? (process.env.SECRETS_KEY_NEW || undefined);
      const [{ rotateKey }, { sealedColumnsOf }, { API_MODULES }] = await Promise.all([
        import('./platform/secrets/rotate.js'),
        import('./runtime.js'),
        import('./apis/index.js'),
      ]);
      const rotation = await withDatabase(config, (pool) =>
        rotateKey(pool, keySourceOf(config), sealedColumnsOf(API_MODULES), newKey, progress),
      );
      print(
        json(),
        rotation,
        () => `re-sealed ${rotation.resealed} secret(s) from key ${rotation.from} to key ${rotation.to}\nnext: ${rotation.next}`,
      );
    });
  const deliveries = program.command('deliveries').description('webhook deliveries of every API');
  deliveries
    .command('redeliver')
    .description(
      'send webhooks again, whatever their state by id, or every failed one since a time (a worker sends them); prints each delivery id with the webhook-id its receiver saw',
    )
    .option('--delivery <id>', REDELIVER_DELIVERY_OPTION)
    .option('--since <time>', 'ISO 8601 time: every failed delivery created since then')
    .addOption(new Option('--api <api>', "with --since: only this API's webhooks").choices(WEBHOOK_SOURCES))
    .option('--agency <id>', 'with --since: only this agency')
    .addOption(new Option('--environment <environment>', 'with --since: only this environment').choices(['production', 'sandbox']))
    .action(async (options: RedeliverOptions & { api?: string }) => {
      const target = redeliveryTarget(options);
      const filter =
        'deliveryId' in target ? (['api', 'agency', 'environment'] as const).find((name) => options[name] !== undefined) : undefined;
      if (filter !== undefined) throw new CliError(`--${filter} applies only with --since`);
      const [{ redeliverWebhooks }, { API_MODULES }, { deliverySourcesOf }] = await Promise.all([
        import('./platform/delivery/index.js'),
        import('./apis/index.js'),
        import('./platform/module.js'),
      ]);
      const sources = deliverySourcesOf(API_MODULES);
      await cli.redeliver(options, 'webhook(s)', (pool, target) => redeliverWebhooks(pool, { ...target, source: options.api }, sources));
    });
  return program;
}

interface TokenOptions {
  api: string;
  env: Environment;
  agency: string;
  client?: string;
  secret?: string;
  scope?: string;
  url?: string;
}

const URL_OPTION =
  "the server's PUBLIC_URL (default: PUBLIC_URL when set, else the URL of the running server as immogate url finds it; with none, an error)";

/** The URL of --url, checked, or PUBLIC_URL when it is set: what the operator said, before any lookup. */
function givenUrl(url: string | undefined, config: Config): string | undefined {
  if (url === undefined) return config.publicUrlGiven ? config.publicUrl : undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url must be an absolute http(s) URL, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`--url must use http or https, got "${url}"`);
  return withoutTrailingSlashes(parsed.toString());
}

/**
 * The PUBLIC_URLs of the servers on this database that prove now that they serve it
 * (listeners.ts), the one started last first: a row of server_listeners may name a server killed, or anything
 * (written by whoever could), so a client secret goes nowhere else, nor is a token minted for
 * another issuer. None: an error that names each URL recorded and why it was passed over.
 */
async function runningUrls(pool: Pool, otherwise = 'give its --url (or PUBLIC_URL)'): Promise<[string, ...string[]]> {
  const { live, silent } = await askListeners(pool);
  const [found, ...others] = live;
  if (found !== undefined) return [found, ...others];
  const recorded = silent.length === 0 ? 'none is recorded' : silent.map(({ url, why }) => `${url} ${why}`).join('; ');
  throw new CliError(`no running immogate serves this database (${recorded}): start one (immogate start), or ${otherwise}`);
}

/** The URL of the server started last among those that serve this database now. */
async function runningUrl(pool: Pool): Promise<string> {
  return (await runningUrls(pool))[0];
}

/** Where a client secret goes when neither --url nor PUBLIC_URL is given. */
async function lookedUpUrl(config: Config): Promise<string> {
  return withDatabase(config, (pool) => runningUrl(pool));
}

async function checkAnswers(url: string): Promise<void> {
  await fetch(`${url}/ready`).then(
    (response) => response.arrayBuffer(),
    (error: unknown) => {
      throw new CliError(`no immogate answers at ${url} (${messageOf(error)}): start one (immogate start --dev) or give its --url`);
    },
  );
}

function wantedToken(options: TokenOptions, url: string): WantedToken {
  return {
    api: apiNamed(options.api),
    environment: options.env,
    agency: options.agency,
    scope: options.scope,
    url,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The redeliver commands' --delivery or --since (with its filters), each well formed. */
function redeliveryTarget(options: RedeliverOptions): RedeliveryTarget {
  if (options.delivery !== undefined && options.since === undefined) {
    if (!UUID.test(options.delivery))
      throw new CliError(`--delivery must be a delivery id or a webhook-id (a UUID), got "${options.delivery}"`);
    return { deliveryId: options.delivery, orWebhookId: true };
  }
  if (options.since === undefined || options.delivery !== undefined) throw new CliError('give exactly one of --delivery or --since');
  const since = new Date(options.since);
  if (Number.isNaN(since.getTime())) throw new CliError(`--since must be an ISO 8601 time, got "${options.since}"`);
  return { since, environment: options.environment, agencyId: options.agency };
}

/**
 * The outcome per delivery, each named by its delivery id and by the webhook-id its receiver saw
 * (an id found in neither has no webhook-id); by id, nothing queued fails the command.
 */
function reportRedelivery(json: boolean, result: Redelivery, noun: string, byId: boolean): void {
  const named = (deliveryId: string) => {
    const webhookId = result.webhookIds[deliveryId];
    return webhookId === undefined ? { deliveryId } : { deliveryId, webhookId };
  };
  const shown = ({ deliveryId, webhookId }: { deliveryId: string; webhookId?: string }) =>
    webhookId === undefined ? deliveryId : `${deliveryId}  webhook-id ${webhookId}`;
  const redelivered = result.redelivered.map(named);
  const skipped = result.skipped.map((skip) => ({ ...named(skip.deliveryId), reason: skip.reason }));
  print(json, { redelivered, skipped }, () =>
    [
      `redelivered ${redelivered.length} ${noun}${redelivered.length > 0 ? ':' : ''}`,
      ...redelivered.map((delivery) => `  ${shown(delivery)}`),
      ...(skipped.length > 0 ? [`skipped ${skipped.length}:`, ...skipped.map((skip) => `  ${shown(skip)}  ${skip.reason}`)] : []),
    ].join('\n'),
  );
  if (byId && redelivered.length === 0) process.exitCode = 1;
}

/**
 * No command means help, not a server started by accident: `immogate start` starts one. Commander
 * itself would print the help to stderr and exit 1 on a bare command.
 */
function withHelpByDefault(argv: string[]): string[] {
  const args = argv.slice(2);
  return args.every((arg) => arg === '--json') ? [...argv, 'help'] : argv;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(withHelpByDefault(argv));
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    const known =
      error instanceof CliError ||
      error instanceof ConfigError ||
      error instanceof ClientInputError ||
      error instanceof SecretsKeyError ||
      error instanceof NewerSchemaError ||
      error instanceof TokenError ||
      error instanceof DatabaseStartTimeout ||
      (error instanceof Error && error.name === 'BackupError');
    process.stderr.write(`immogate: ${known ? messageOf(error) : `error: ${messageOf(error)}`}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);
