/*
 * What every test file uses: a database of its own (cloned from the run's migrated template),
 * a real immogate listening on loopback, clients and tokens made through the real endpoints.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import type { ApiModule } from '../src/platform/module.js';
import { loadConfig, type Config, type ConfigOptions } from '../src/config.js';
import { createClient } from '../src/platform/auth/clients.js';
import { createPool, type Pool } from '../src/platform/db/pool.js';
import { Sealer, parseKey } from '../src/platform/secrets/sealer.js';
import { WEBHOOK_SECRET } from '../src/platform/secrets/stored.js';
import { Problem } from '../src/platform/http/problems.js';
import { LOOP_WARNING } from '../src/platform/http/loopGuard.js';
import { createLogger } from '../src/platform/log.js';
import { startServices, type Services } from '../src/runtime.js';

/** The repository's root (this file runs from dist/test/), for the files tests read as data. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const USER_AGENT = 'ImmogateTests/1.0.0 node/20 linux/6';

/** The key-encryption key of the secrets at rest in tests (no DATA_DIR to keep a key file in). */
/**
 * Quotas that count every request and refuse none (a test's bursts are no client's pace), and no
 * bound on the work waiting for a worker (most tests run none: their work waits for ever).
 */
export const UNREFUSING_LIMITS = { QUOTA_WRITES_PER_SECOND: '1000000', QUOTA_READS_PER_SECOND: '1000000', MAX_WAITING_PER_AGENCY: '0' };

export const TEST_SECRETS_KEY = 'dGVzdC1vbmx5LWtleS1lbmNyeXB0aW9uLWtleS0zMmI';

/** A webhook secret sealed as immogate stores it, with the tests' key. */
export function sealedWebhookSecret(plain: string): string {
  return Sealer.withKeys(parseKey(TEST_SECRETS_KEY, 'TEST_SECRETS_KEY')).seal(plain, WEBHOOK_SECRET);
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with npm test`);
  return value;
}

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: env('IMMOGATE_TEST_ADMIN_URL') });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** A database for one test file: migrated (from the template) unless `empty`. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `immogate_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(options.empty ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${env('IMMOGATE_TEST_TEMPLATE')}`);
  return {
    name,
    url: databaseUrl(env('IMMOGATE_TEST_ADMIN_URL'), name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Where a test server logs when its test reads nothing and TEST_LOG_LEVEL is unset: the dev
 * guard's warnings only, to stderr, so a request that held the event loop shows in the test
 * output (the next quadratic rule is found by the suite, not in production).
 */
const LOOP_WARNINGS_ONLY: DestinationStream = {
  write(line: string) {
    if (line.includes(LOOP_WARNING)) process.stderr.write(`event-loop guard: ${line}`);
  },
};

export interface TestServer {
  config: Config;
  base: string;
  pool: Pool;
  services: Services;
  close(): Promise<void>;
}

/** immogate (server and worker) on a free loopback port, on `database`. */
export async function startTestServer(
  database: TestDatabase,
  options: {
    env?: Record<string, string>;
    config?: ConfigOptions;
    apis?: readonly ApiModule[];
    worker?: boolean;
    /** Where its log lines go (JSON, for a test that reads them; LOG_LEVEL decides which); none by default. */
    logTo?: DestinationStream;
  } = {},
): Promise<TestServer> {
  const port = await freePort();
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: database.url,
      // TEST_LOG_LEVEL=info npm test shows what the servers log; unset, only the dev guard's warnings (below).
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      DATA_DIR: '/nonexistent',
      SECRETS_KEY: TEST_SECRETS_KEY,
      // The event-loop guard of dev mode runs in the tests too: a request holding the loop over 50 ms is written to stderr.
      REQUEST_LOOP_WARN_MS: '50',
      // Tests send bursts no client would: the quotas count (and announce) them all the same, and
      // refuse none; test/hostile/quotas.test.ts and backlog.test.ts set real limits.
      ...UNREFUSING_LIMITS,
      ...options.env,
    },
    options.config,
  );
  const services = await startServices(
    config,
    createLogger(config, options.logTo ?? (process.env.TEST_LOG_LEVEL === undefined ? LOOP_WARNINGS_ONLY : undefined)),
    { server: true, worker: options.worker ?? false },
    {
      apis: options.apis,
      onFirstRun: () => undefined,
    },
  );
  const pool = createPool(database.url, 4);
  return {
    config,
    base: config.publicUrl,
    pool,
    services,
    async close() {
      await services.stop();
      await pool.end();
    },
  };
}

export interface TestClient {
  clientId: string;
  secret: string;
}

/** A client of both environments unless told otherwise (most tests use the production roots). */
export async function makeClient(
  pool: Pool,
  intermediaries: string[],
  scopes: string[],
  environments: string[] = ['sandbox', 'production'],
): Promise<TestClient> {
  const { client, secret } = await createClient(pool, { name: 'test client', intermediaries, scopes, environments });
  return { clientId: client.clientId, secret };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export async function http(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/**
 * A request through node:http, sending exactly the headers given: fetch adds a User-Agent and a
 * text/plain content type of its own, which some tests must leave out. `body` is a text, or chunks
 * written one by one; with `declaredLength`, only the headers go, declaring that Content-Length,
 * and the answer must come from the declaration alone. A server that answers before it has read a
 * body may close the connection while the body is being written: that is expected here.
 */
export function rawHttp(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string | readonly Buffer[],
  declaredLength?: number,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const sent = declaredLength === undefined ? headers : { ...headers, 'content-length': String(declaredLength) };
    const req = httpRequest(url, { method, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, body: text === '' ? undefined : JSON.parse(text) });
        req.destroy();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (declaredLength !== undefined) {
      req.flushHeaders();
      return;
    }
    if (typeof body === 'string' || body === undefined) {
      req.end(body);
      return;
    }
    for (const chunk of body) req.write(chunk);
    req.end();
  });
}

/** A token for `client` from the real token endpoint. */
export async function getToken(
  server: TestServer,
  client: TestClient,
  options: { root: string; intermediary: string; scope?: string },
): Promise<string> {
  const result = await http('POST', `${server.base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.secret,
      audience: server.base + options.root,
      intermediary_id: options.intermediary,
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    },
  });
  if (result.status !== 200) throw new Error(`token request failed: ${result.status} ${result.text}`);
  return (result.body as { access_token: string }).access_token;
}

/** A token of `client` for `intermediary` on each API's production root, by the API's short name. */
export async function tokensOfEachApi(server: TestServer, client: TestClient, intermediary: string): Promise<Record<string, string>> {
  const roots = { caas: '/caas/v4', clim: '/import-listings/v1', leads: '/seeker-leads/v1' };
  const tokens: Record<string, string> = {};
  for (const [api, root] of Object.entries(roots)) tokens[api] = await getToken(server, client, { root, intermediary });
  return tokens;
}

/**
 * Tokens of one client for one API, per agency and environment, each fetched once (each is also a
 * caller of its own for the rate limits). `parts` gives the server and client once the file's
 * before hooks made them.
 */
export function cachedTokens(
  apiRoot: string,
  parts: () => { server: TestServer; client: TestClient },
): (agency: string, environment?: 'production' | 'sandbox') => Promise<string> {
  const tokens = new Map<string, Promise<string>>();
  return (agency, environment = 'production') => {
    const key = `${agency}|${environment}`;
    let token = tokens.get(key);
    if (token === undefined) {
      const { server, client } = parts();
      token = getToken(server, client, { root: `${environment === 'sandbox' ? '/sandbox' : ''}${apiRoot}`, intermediary: agency });
      tokens.set(key, token);
    }
    return token;
  };
}

export const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Polls `read` until `check` holds, at most `tries` times `intervalMs` (20 s by default): a job or
 * delivery that never happens fails the test with what it waited for, instead of hanging it.
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
  tries = 400,
  intervalMs = 50,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await read();
    if (check(value)) return value;
    await sleep(intervalMs);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Asserts a whole RFC 7807 problem: the status, the content type (Fastify adds the charset to every
 * JSON type; compliant recipients ignore it, RFC 8259 section 11), a traceparent, and the body:
 * `members` plus `status` and `instance`, the response's own traceparent.
 */
export function assertProblemBody(result: HttpResult, status: number, members: Record<string, unknown>): void {
  assert.equal(result.status, status, result.text);
  assert.equal(result.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  const instance = result.headers.get('traceparent') ?? '';
  assert.match(instance, TRACEPARENT);
  assert.deepEqual(result.body, { status, instance, ...members });
}

/** assertProblemBody of the usual members: the type is the title's slug unless given. */
export function assertProblem(
  result: HttpResult,
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
  type?: string,
): void {
  assertProblemBody(result, status, {
    type: `/problems/${type ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
    title,
    detail,
    ...extra,
  });
}

/** Asserts that `work` throws the 400 problem of a refused body naming exactly `errors` (a service called directly). */
export async function assertRefusedBody(work: Promise<unknown>, errors: { name: string; reason: string }[]): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof Problem);
    assert.equal(error.status, 400);
    assert.deepEqual(error.body('t'), {
      type: '/problems/bad-request',
      title: 'Bad request',
      status: 400,
      detail: 'Your request has not been validated',
      instance: 't',
      errors,
      errorSource: 'body',
    });
    return true;
  });
}

/**
 * Sends `send` until the rate limit refuses one (500 at most): asserts each answer before it is
 * `okStatus`, at least 10 came through (windows are fixed, so a burst may straddle two of them,
 * but the first refusal comes after the 10 its window allows), and the refusal is the 429 problem
 * with Retry-After. Answers how many came through.
 */
export async function assertRateLimited(send: () => Promise<HttpResult>, okStatus: number): Promise<number> {
  let passed = 0;
  let refused: HttpResult | undefined;
  for (let i = 0; i < 500 && refused === undefined; i++) {
    const result = await send();
    if (result.status === 429) refused = result;
    else {
      assert.equal(result.status, okStatus, result.text);
      passed++;
    }
  }
  assert.ok(refused, 'no request was refused');
  assert.ok(passed >= 10, `only ${passed} requests passed before the first refusal`);
  assertProblemBody(refused, 429, {
    type: '/problems/too-many-requests',
    title: 'Too many requests',
    detail: 'At most 10 requests per 200 ms are allowed for this caller; retry later',
  });
  assert.equal(refused.headers.get('retry-after'), '1');
  return passed;
}

/** The log lines a test server writes, parsed: give `stream` as useServer's logTo. */
export class CapturedLogs {
  readonly lines: Record<string, unknown>[] = [];
  readonly stream: DestinationStream = {
    write: (line: string) => {
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  };

  /** The lines with message `msg`, in order. */
  withMessage(msg: string): Record<string, unknown>[] {
    return this.lines.filter((line) => line.msg === msg);
  }
}

/** What useServer gives a test file. */
export interface ServerFixture {
  readonly database: TestDatabase;
  readonly server: TestServer;
  /** The client asked for in the options: of its intermediaries and scopes, in both environments. */
  readonly client: TestClient;
  /** A token of the fixture's client. */
  token(options: { root: string; intermediary: string; scope?: string }): Promise<string>;
  /** Resolves once the members are there: the file's own before hooks await it (node:test starts root hooks together). */
  ready(): Promise<void>;
}

export interface ServerFixtureOptions {
  /** Environment of the server, over the tests' defaults. */
  env?: Record<string, string>;
  /** What the command line would set (dev mode). */
  config?: ConfigOptions;
  worker?: boolean;
  apis?: readonly ApiModule[];
  /** The client made for the file: its intermediaries and scopes. */
  client?: { intermediaries: string[]; scopes: string[] };
  /** Where the server's log lines go (a CapturedLogs' stream); set LOG_LEVEL in `env` to have any. */
  logTo?: DestinationStream;
}

class Fixture implements ServerFixture {
  private started?: { database: TestDatabase; server: TestServer; client?: TestClient };
  private starting?: Promise<void>;

  constructor(private readonly options: ServerFixtureOptions) {}

  ready(): Promise<void> {
    this.starting ??= this.start(this.options);
    return this.starting;
  }

  private get parts(): { database: TestDatabase; server: TestServer; client?: TestClient } {
    if (!this.started) throw new Error('useServer: its members exist once the before hooks ran');
    return this.started;
  }
  get database(): TestDatabase {
    return this.parts.database;
  }
  get server(): TestServer {
    return this.parts.server;
  }
  get client(): TestClient {
    const { client } = this.parts;
    if (!client) throw new Error('useServer: no client was asked for (options.client)');
    return client;
  }

  private async start(options: ServerFixtureOptions): Promise<void> {
    const database = await createTestDatabase();
    const server = await startTestServer(database, {
      env: options.env,
      config: options.config,
      worker: options.worker,
      apis: options.apis,
      logTo: options.logTo,
    });
    const client = options.client && (await makeClient(server.pool, options.client.intermediaries, options.client.scopes));
    this.started = { database, server, client };
  }

  async stop(): Promise<void> {
    await this.starting;
    if (!this.started) return;
    await this.started.server.close();
    await this.started.database.drop();
  }

  token(options: { root: string; intermediary: string; scope?: string }): Promise<string> {
    return getToken(this.server, this.client, options);
  }
}

/**
 * The test file's database, immogate on it and a client: made by a before hook registered here
 * (the file's own before hooks await `ready()` first), closed and dropped by an after hook.
 */
export function useServer(options: ServerFixtureOptions = {}): ServerFixture {
  const fixture = new Fixture(options);
  before(() => fixture.ready());
  after(() => fixture.stop());
  return fixture;
}

/** The first line where a checked-in text differs from the one made now, to name in a failure (the whole files would bury it). */
export function firstDifference(checkedIn: string, made: string, madeName: string): string {
  const a = checkedIn.split('\n');
  const b = made.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: checked in ${JSON.stringify(a[at] ?? '(end)')}, ${madeName} ${JSON.stringify(b[at] ?? '(end)')}`;
}
