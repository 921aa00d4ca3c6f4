/*
 * The configuration: read once from the environment, checked, typed and frozen, then passed in;
 * a bad or missing setting fails start-up with its variable's name.
 */
import net from 'node:net';
import path from 'node:path';
import type { AuthFailureLimits } from './platform/auth/authFailures.js';
import { parseKey } from './platform/secrets/sealer.js';
import { messageOf } from './platform/caught.js';
import { withoutTrailingSlashes } from './platform/text.js';

/** Typed, frozen configuration. Built once from the environment and passed in; never read at import time. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /**
   * Fastify's trustProxy: which peers' X-Forwarded-For gives `request.ip` (the address failures and
   * limits are counted by). false: none, the peer is the client; true: any; a number: that many
   * hops; a list: the proxies at those addresses or CIDRs.
   */
  readonly trustProxy: boolean | number | readonly string[];
  /** Absolute base URL clients use; the token audiences are derived from it. No trailing slash. */
  readonly publicUrl: string;
  /** Whether PUBLIC_URL was set, rather than derived from HOST and PORT: the CLI then looks up no recorded server URL. */
  readonly publicUrlGiven: boolean;
  readonly dataDir: string;
  /** External PostgreSQL; when absent an embedded one is started under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /** What a request's database work may take (README "Deadlines"): each statement, a lock wait, a wait for a free connection. */
  readonly databaseDeadlines: Readonly<DatabaseDeadlines>;
  /**
   * Seconds a start waits in all, over its steps, for a database that is unavailable (refused,
   * unanswered, starting up) before it gives up with the reason; 0: for ever (db/startWait.ts).
   */
  readonly databaseStartTimeoutSeconds: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Classifieds one worker processes at once. */
  readonly workerConcurrency: number;
  /** Nice steps the worker process of `immogate start` runs below the servers (cluster.ts). */
  readonly workerNiceness: number;
  /** Classifieds a second the worker of `immogate start` starts while a server beside it is busy (the streams that yield to requests); 0: not held back (work/requestsFirst.ts). */
  readonly workerPaceWhileServersBusy: number;
  /** Webhook delivery attempts one worker makes at once. */
  readonly webhookConcurrency: number;
  /** Of those, the most one subscription, one agency and one receiver host take (README "Limits and fairness"). */
  readonly webhookShares: Readonly<{ perSubscription: number; perAgency: number; perAgencyHost: number; perHost: number }>;
  /** Of the classifieds one worker processes at once, the most one agency's take. */
  readonly workerConcurrencyPerAgency: number;
  /** Media downloads one worker process makes at once from one host. */
  readonly mediaDownloadsPerHost: number;
  /** Seconds a worker's claim on an item lasts unless renewed: how soon work of a dead worker is taken over. */
  readonly workerLeaseSeconds: number;
  /** Days finished webhook deliveries, and deleted classifieds with their statuses, are kept. */
  readonly deliveryRetentionDays: number;
  /** Lets outbound calls (webhooks, media fetches) reach loopback and private ranges, in both environments. */
  readonly allowPrivateTargets: boolean;
  /**
   * `immogate start --dev`: the sandbox's webhooks and media may reach loopback and private
   * addresses (a receiver on the developer's machine), production's stay under the policy; logs
   * are written for people (pino-pretty).
   */
  readonly dev: boolean;
  /** Seconds to wait between delivery attempts. */
  readonly webhookRetrySchedule: readonly number[];
  readonly bodyLimitBytes: number;
  /** The most bytes of an answer kept with its Idempotency-Key; a larger one is kept as its status and problem type. */
  readonly idempotentAnswerMaxBytes: number;
  /** Bounds on slow clients: seconds to send the headers, seconds to send the body once the headers are in (uploads get more by their size), seconds a connection may sit idle (also between requests). */
  readonly httpHeadersTimeoutSeconds: number;
  readonly httpRequestTimeoutSeconds: number;
  readonly httpIdleTimeoutSeconds: number;
  /** Connections one server process holds at once; more are refused (and logged) until some close. */
  readonly httpMaxConnections: number;
  /** A request that held the event loop longer than this in one stretch is logged at warn with its route; 0: not measured. */
  readonly requestLoopWarnMs: number;
  /** The key-encryption key of the secrets at rest; unset, DATA_DIR/secrets.key (created at first start). */
  readonly secretsKey: string | undefined;
  /** Keys secrets may still be sealed with while a rotation rolls out. */
  readonly secretsKeyPrevious: readonly string[];
  /**
   * Failed client authentications in a window before 429: a known client's wrong secrets per
   * client and address, unknown client ids' per address; wrong ADMIN_TOKENs per address.
   */
  readonly authFailureLimits: Readonly<AuthFailureLimits>;
  /** Requests a second each client may make per agency and environment on the API roots, writes and reads apart (http/quotas.ts); 0: off. */
  readonly quotas: Readonly<QuotaRates>;
  /** Items an agency may have waiting in each work stream (per environment); writes that would add more get 429 (http/backlog.ts); 0: off. */
  readonly maxBacklogPerAgency: number;
  /** Items of an agency's work stream that may wait for a worker (due, not taken); writes that would add more get 429 (http/backlog.ts); 0: off. */
  readonly maxWaitingPerAgency: number;
  /** Requests one server process handles at once; past it, 503 at once (http/inFlight.ts). */
  readonly httpMaxInFlight: number;
  /** Requests per minute the expensive extension routes allow (rateLimit.ts, perMinute). */
  readonly rateLimits: Readonly<ExtensionRateLimits>;
  /**
   * Long polls of the event feed one server process keeps waiting at once, in all and per client
   * id of the token; more are answered 429 rather than queued.
   */
  readonly eventWaiters: Readonly<EventWaiterLimits>;
  /** Seconds in-flight requests get to finish on shutdown. */
  readonly shutdownGraceSeconds: number;
  /** Below this much free space under `dataDir` (MiB), writes are refused with 507 and /ready says 503; 0: not watched. */
  readonly minFreeDiskMb: number;
  /** Bearer token of the operator endpoints under /admin; unset, they do not exist. */
  readonly adminToken: string | undefined;
  /** The S3-compatible blob store for uploaded media; unset, blobs live under `dataDir`/blobs. */
  readonly s3: S3Config | undefined;
}

export interface DatabaseDeadlines {
  /** A request's statement running longer is cancelled by PostgreSQL (statement_timeout), its transaction rolled back. */
  statementTimeoutMs: number;
  /** A request's statement waiting longer for a lock fails (lock_timeout), its transaction rolled back. */
  lockTimeoutMs: number;
  /** A request waits at most this long for a free connection of its pool. */
  checkoutTimeoutMs: number;
}

/** Requests a second of each kind each client may make per agency and environment on the API roots; 0: that quota is off. */
export interface QuotaRates {
  writesPerSecond: number;
  readsPerSecond: number;
}

export interface ExtensionRateLimits {
  /** POST …/classifieds/validate and POST …/listings/validate, each, per client and environment. */
  validationsPerMinute: number;
  /** Test events per webhook subscription. */
  testEventsPerMinute: number;
  /** Redeliveries per client and environment (the console's), or per operator address (/admin). */
  redeliveriesPerMinute: number;
}

export interface EventWaiterLimits {
  perServer: number;
  perClient: number;
}

export interface S3Config {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly forcePathStyle: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function publicUrl(env: Env, host: string, port: number): string {
  const raw = env.PUBLIC_URL;
  const fallbackHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const value = raw === undefined || raw === '' ? `http://${fallbackHost.includes(':') ? `[${fallbackHost}]` : fallbackHost}:${port}` : raw;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PUBLIC_URL', `must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', `must use http or https, got "${url.protocol}"`);
  }
  if (url.search !== '' || url.hash !== '') throw new ConfigError('PUBLIC_URL', 'must not carry a query or fragment');
  return withoutTrailingSlashes(url.toString());
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must use the postgres:// scheme, got "${url.protocol}"`);
  }
  return raw;
}

function retrySchedule(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined || raw === '') return [5, 300, 1800, 7200, 18000, 36000];
  const parts = raw.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => part === '') || values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', `must be comma-separated non-negative seconds, got "${raw}"`);
  }
  return values;
}

// An IP address or a DNS name; anything else would only fail later, at listen, without naming HOST.
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;

function hostName(env: Env): string {
  const raw = env.HOST;
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (net.isIP(raw) === 0 && !HOSTNAME.test(raw)) throw new ConfigError('HOST', `must be an IP address or a host name, got "${raw}"`);
  return raw;
}

/** An IPv4 or IPv6 address, or one with a prefix length that fits it (CIDR). */
function isAddressOrCidr(value: string): boolean {
  const slash = value.indexOf('/');
  const address = slash < 0 ? value : value.slice(0, slash);
  const version = net.isIP(address);
  if (version === 0) return false;
  if (slash < 0) return true;
  const prefix = value.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: off unless set, since a peer trusted without being a proxy could name any address
 * and so escape every per-address count.
 */
function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 100) throw new ConfigError('TRUST_PROXY', `a hop count must be between 1 and 100, got ${raw}`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isAddressOrCidr(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be true, false, a hop count, or comma-separated proxy addresses or CIDRs (10.0.0.0/8), got "${bad}" in "${raw}"`,
    );
  }
  return Object.freeze(entries);
}

/** TRUST_PROXY as Fastify takes it; a hop count as the function Fastify itself makes of one (its typings leave numbers out). */
export function fastifyTrustProxy(trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

function adminToken(env: Env): string | undefined {
  const raw = env.ADMIN_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 24 || /\s/.test(raw)) throw new ConfigError('ADMIN_TOKEN', 'must be at least 24 characters without spaces');
  return raw;
}

const S3_VARIABLES = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'];
// Lower-case letters, digits, dots and hyphens, 3 to 63 characters (the S3 bucket naming rules, simplified).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * S3 is on when S3_ENDPOINT and S3_BUCKET are set. Any S3 variable without the others it needs
 * stops start-up: a half-configured store would otherwise fall back to the local disk unnoticed.
 */
function s3(env: Env): S3Config | undefined {
  const given = (name: string) => env[name] !== undefined && env[name] !== '';
  if (!S3_VARIABLES.some(given)) return undefined;
  const required = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
  const requiredValue = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw new ConfigError(name, `is required when any S3 variable is set (S3 needs ${required.join(', ')})`);
    }
    return value;
  };
  const endpoint = requiredValue('S3_ENDPOINT');
  const bucket = requiredValue('S3_BUCKET');
  const accessKeyId = requiredValue('S3_ACCESS_KEY_ID');
  const secretAccessKey = requiredValue('S3_SECRET_ACCESS_KEY');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigError('S3_ENDPOINT', `must be an absolute http(s) URL, got "${endpoint}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('S3_ENDPOINT', `must use http or https, got "${url.protocol}"`);
  if (!BUCKET.test(bucket)) throw new ConfigError('S3_BUCKET', `must be a valid bucket name, got "${bucket}"`);
  const region = given('S3_REGION') ? String(env.S3_REGION) : 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new ConfigError('S3_REGION', `must be a region name such as eu-central-1, got "${region}"`);
  return Object.freeze({
    endpoint: withoutTrailingSlashes(endpoint),
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    // An S3_ENDPOINT means a store of one's own (MinIO, Ceph, ...), which mostly wants path-style addressing.
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', true),
  });
}

function secretsKeys(env: Env): Pick<Config, 'secretsKey' | 'secretsKeyPrevious'> {
  const check = (name: string, value: string) => {
    try {
      parseKey(value, name);
    } catch (error) {
      throw new ConfigError(name, messageOf(error).replace(`${name} `, ''));
    }
    return value;
  };
  const current = env.SECRETS_KEY === undefined || env.SECRETS_KEY === '' ? undefined : check('SECRETS_KEY', env.SECRETS_KEY);
  const previous = (env.SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '')
    .map((key) => check('SECRETS_KEY_PREVIOUS', key));
  if (previous.length > 0 && current === undefined) throw new ConfigError('SECRETS_KEY_PREVIOUS', 'is only read together with SECRETS_KEY');
  return { secretsKey: current, secretsKeyPrevious: Object.freeze(previous) };
}

/**
 * A lock wait shorter than a statement, and both well inside the HTTP deadlines: a request meets
 * the database's refusal, rolled back, before anything gives up on it.
 */
function databaseDeadlines(env: Env): DatabaseDeadlines {
  const statementTimeoutMs = integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000);
  const lockTimeoutMs = integer(env, 'DATABASE_LOCK_TIMEOUT_MS', 2_000, 10, 600_000);
  if (lockTimeoutMs > statementTimeoutMs) {
    throw new ConfigError(
      'DATABASE_LOCK_TIMEOUT_MS',
      `must not exceed DATABASE_STATEMENT_TIMEOUT_MS (${statementTimeoutMs}), got ${lockTimeoutMs}`,
    );
  }
  return Object.freeze({
    statementTimeoutMs,
    lockTimeoutMs,
    checkoutTimeoutMs: integer(env, 'DATABASE_CHECKOUT_TIMEOUT_MS', 2_000, 10, 600_000),
  });
}

/** What the command line decides rather than the environment. */
export interface ConfigOptions {
  /** `--dev` of start, server and worker. */
  dev?: boolean;
}

export function loadConfig(env: Env = process.env, options: ConfigOptions = {}): Config {
  const host = hostName(env);
  // Not 0 (a random port): the token audiences are derived from the port clients use.
  const port = integer(env, 'PORT', 8080, 1, 65535);
  const logLevelText = env.LOG_LEVEL === undefined || env.LOG_LEVEL === '' ? 'info' : env.LOG_LEVEL;
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText);
  if (logLevel === undefined) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevelText}"`);
  }
  return Object.freeze({
    host,
    port,
    trustProxy: trustProxy(env),
    publicUrl: publicUrl(env, host, port),
    publicUrlGiven: env.PUBLIC_URL !== undefined && env.PUBLIC_URL !== '',
    dataDir: path.resolve(env.DATA_DIR === undefined || env.DATA_DIR === '' ? 'data' : env.DATA_DIR),
    databaseUrl: databaseUrl(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseDeadlines: databaseDeadlines(env),
    // Longer than a database server's restart or a managed database's failover, which take minutes at worst.
    databaseStartTimeoutSeconds: integer(env, 'DATABASE_START_TIMEOUT_SECONDS', 300, 0, 86_400),
    logLevel,
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 64, 1, 1000),
    workerNiceness: integer(env, 'WORKER_NICENESS', 10, 0, 19),
    workerPaceWhileServersBusy: integer(env, 'WORKER_PACE_WHILE_SERVERS_BUSY', 20, 0, 100_000),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 10000),
    webhookShares: Object.freeze({
      perSubscription: integer(env, 'WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 8, 1, 10000),
      perAgency: integer(env, 'WEBHOOK_CONCURRENCY_PER_AGENCY', 16, 1, 10000),
      perAgencyHost: integer(env, 'WEBHOOK_CONCURRENCY_PER_AGENCY_HOST', 8, 1, 10000),
      perHost: integer(env, 'WEBHOOK_CONCURRENCY_PER_HOST', 16, 1, 10000),
    }),
    workerConcurrencyPerAgency: integer(env, 'WORKER_CONCURRENCY_PER_AGENCY', 16, 1, 1000),
    mediaDownloadsPerHost: integer(env, 'MEDIA_DOWNLOADS_PER_HOST', 32, 1, 1000),
    workerLeaseSeconds: integer(env, 'WORKER_LEASE_SECONDS', 10, 2, 3600),
    deliveryRetentionDays: integer(env, 'DELIVERY_RETENTION_DAYS', 30, 1, 36500),
    allowPrivateTargets: boolean(env, 'ALLOW_PRIVATE_TARGETS', false),
    dev: options.dev ?? false,
    webhookRetrySchedule: Object.freeze(retrySchedule(env)),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    idempotentAnswerMaxBytes: integer(env, 'IDEMPOTENT_ANSWER_MAX_BYTES', 65_536, 1024, 10_485_760),
    httpHeadersTimeoutSeconds: integer(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600),
    httpRequestTimeoutSeconds: integer(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30, 1, 3600),
    // Above the 60 s idle timeout of common load balancers, so they, not we, close an idle keep-alive connection.
    httpIdleTimeoutSeconds: integer(env, 'HTTP_IDLE_TIMEOUT_SECONDS', 72, 1, 3600),
    httpMaxConnections: integer(env, 'HTTP_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    // Measured in dev mode by default: the hooks it needs cost every request a little (platform/http/loopGuard.ts).
    requestLoopWarnMs: integer(env, 'REQUEST_LOOP_WARN_MS', options.dev === true ? 50 : 0, 0, 60_000),
    ...secretsKeys(env),
    authFailureLimits: Object.freeze({
      perClient: integer(env, 'AUTH_FAILURES_PER_CLIENT', 10, 1, 1_000_000),
      perAddress: integer(env, 'AUTH_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
      adminTokenPerAddress: integer(env, 'ADMIN_TOKEN_FAILURES_PER_ADDRESS', 10, 1, 1_000_000),
      windowSeconds: integer(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    }),
    quotas: Object.freeze({
      writesPerSecond: integer(env, 'QUOTA_WRITES_PER_SECOND', 50, 0, 1_000_000),
      readsPerSecond: integer(env, 'QUOTA_READS_PER_SECOND', 100, 0, 1_000_000),
    }),
    maxBacklogPerAgency: integer(env, 'MAX_BACKLOG_PER_AGENCY', 10_000, 0, 100_000_000),
    maxWaitingPerAgency: integer(env, 'MAX_WAITING_PER_AGENCY', 1_000, 0, 100_000_000),
    httpMaxInFlight: integer(env, 'HTTP_MAX_IN_FLIGHT', 256, 1, 1_000_000),
    rateLimits: Object.freeze({
      validationsPerMinute: integer(env, 'VALIDATIONS_PER_MINUTE', 60, 1, 1_000_000),
      testEventsPerMinute: integer(env, 'TEST_EVENTS_PER_MINUTE', 10, 1, 1_000_000),
      redeliveriesPerMinute: integer(env, 'REDELIVERIES_PER_MINUTE', 30, 1, 1_000_000),
    }),
    eventWaiters: Object.freeze({
      perServer: integer(env, 'EVENT_WAITERS_PER_SERVER', 1000, 1, 1_000_000),
      perClient: integer(env, 'EVENT_WAITERS_PER_CLIENT', 100, 1, 1_000_000),
    }),
    shutdownGraceSeconds: integer(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 3600),
    minFreeDiskMb: integer(env, 'MIN_FREE_DISK_MB', 512, 0, 100_000_000),
    adminToken: adminToken(env),
    s3: s3(env),
  });
}
