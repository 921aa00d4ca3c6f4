/*
 * The configuration: every setting checked and refused with its variable named, the S3 settings,
 * and the CLI stopping on a bad one.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../src/config.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

/** loadConfig refuses `env`, naming `variable` and saying `message`. */
function assertRefused(env: Record<string, string>, variable: string, message: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.variable, variable);
      assert.equal(error.message, `${variable}: ${message}`);
      return true;
    },
  );
}

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    delete childEnv.DATABASE_URL;
    execFile(process.execPath, [CLI, ...args], { env: childEnv, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

const TRUST_PROXY_FORMS = 'must be true, false, a hop count, or comma-separated proxy addresses or CIDRs (10.0.0.0/8)';

describe('loadConfig', () => {
  it('defaults to loopback port 8080, ./data, info logging and an embedded database', () => {
    assert.deepEqual(loadConfig({}), {
      host: '127.0.0.1',
      port: 8080,
      trustProxy: false,
      publicUrl: 'http://127.0.0.1:8080',
      publicUrlGiven: false,
      dataDir: path.resolve('data'),
      databaseUrl: undefined,
      databasePoolSize: 10,
      databaseDeadlines: { statementTimeoutMs: 5000, lockTimeoutMs: 2000, checkoutTimeoutMs: 2000 },
      databaseStartTimeoutSeconds: 300,
      logLevel: 'info',
      workerConcurrency: 64,
      workerNiceness: 10,
      workerPaceWhileServersBusy: 20,
      webhookConcurrency: 64,
      webhookShares: { perSubscription: 8, perAgency: 16, perAgencyHost: 8, perHost: 16 },
      workerConcurrencyPerAgency: 16,
      mediaDownloadsPerHost: 32,
      workerLeaseSeconds: 10,
      deliveryRetentionDays: 30,
      dev: false,
      allowPrivateTargets: false,
      webhookRetrySchedule: [5, 300, 1800, 7200, 18000, 36000],
      bodyLimitBytes: 1_048_576,
      idempotentAnswerMaxBytes: 65_536,
      httpHeadersTimeoutSeconds: 10,
      httpRequestTimeoutSeconds: 30,
      httpIdleTimeoutSeconds: 72,
      httpMaxConnections: 10_000,
      requestLoopWarnMs: 0,
      secretsKey: undefined,
      secretsKeyPrevious: [],
      authFailureLimits: { perClient: 10, perAddress: 100, adminTokenPerAddress: 10, windowSeconds: 60 },
      rateLimits: { validationsPerMinute: 60, testEventsPerMinute: 10, redeliveriesPerMinute: 30 },
      eventWaiters: { perServer: 1000, perClient: 100 },
      quotas: { writesPerSecond: 50, readsPerSecond: 100 },
      maxBacklogPerAgency: 10_000,
      maxWaitingPerAgency: 1_000,
      httpMaxInFlight: 256,
      shutdownGraceSeconds: 10,
      minFreeDiskMb: 512,
      adminToken: undefined,
      s3: undefined,
    });
  });

  it('measures how long a request holds the event loop in dev mode (50 ms), not otherwise unless REQUEST_LOOP_WARN_MS says', () => {
    assert.equal(loadConfig({}, { dev: true }).requestLoopWarnMs, 50);
    assert.equal(loadConfig({ REQUEST_LOOP_WARN_MS: '0' }, { dev: true }).requestLoopWarnMs, 0);
    assert.equal(loadConfig({ REQUEST_LOOP_WARN_MS: '200' }).requestLoopWarnMs, 200);
    assert.throws(() => loadConfig({ REQUEST_LOOP_WARN_MS: '-1' }), /REQUEST_LOOP_WARN_MS: must be a whole number, got "-1"/);
    assert.throws(() => loadConfig({ REQUEST_LOOP_WARN_MS: '60001' }), /REQUEST_LOOP_WARN_MS: must be between 0 and 60000, got 60001/);
  });

  it('reads TRUST_PROXY as off, any proxy, a hop count or a list of proxies', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy, ['127.0.0.1']);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '::1, 172.16.0.0/12' }).trustProxy, ['::1', '172.16.0.0/12']);
  });

  it('treats empty variables as unset', () => {
    assert.deepEqual(loadConfig({ PORT: '', HOST: '', PUBLIC_URL: '', DATA_DIR: '', DATABASE_URL: '', LOG_LEVEL: '' }), loadConfig({}));
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.2,fd00::/8',
      PUBLIC_URL: 'https://api.example.com/',
      DATA_DIR: '/var/lib/immogate',
      DATABASE_URL: 'postgresql://u:p@db:5432/immogate',
      DATABASE_POOL_SIZE: '20',
      DATABASE_STATEMENT_TIMEOUT_MS: '8000',
      DATABASE_LOCK_TIMEOUT_MS: '1500',
      DATABASE_CHECKOUT_TIMEOUT_MS: '3000',
      DATABASE_START_TIMEOUT_SECONDS: '0',
      LOG_LEVEL: 'debug',
      WORKER_CONCURRENCY: '3',
      WORKER_NICENESS: '5',
      WORKER_PACE_WHILE_SERVERS_BUSY: '0',
      WEBHOOK_CONCURRENCY: '7',
      WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '2',
      WEBHOOK_CONCURRENCY_PER_AGENCY: '4',
      WEBHOOK_CONCURRENCY_PER_HOST: '5',
      WEBHOOK_CONCURRENCY_PER_AGENCY_HOST: '3',
      WORKER_CONCURRENCY_PER_AGENCY: '1',
      MEDIA_DOWNLOADS_PER_HOST: '6',
      WORKER_LEASE_SECONDS: '30',
      DELIVERY_RETENTION_DAYS: '90',
      ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      BODY_LIMIT_BYTES: '2048',
      IDEMPOTENT_ANSWER_MAX_BYTES: '4096',
      HTTP_HEADERS_TIMEOUT_SECONDS: '5',
      HTTP_REQUEST_TIMEOUT_SECONDS: '120',
      HTTP_IDLE_TIMEOUT_SECONDS: '30',
      HTTP_MAX_CONNECTIONS: '500',
      REQUEST_LOOP_WARN_MS: '20',
      SECRETS_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      SECRETS_KEY_PREVIOUS: '3031323334353637383961626364656630313233343536373839616263646566',
      AUTH_FAILURES_PER_CLIENT: '5',
      AUTH_FAILURES_PER_ADDRESS: '50',
      AUTH_FAILURE_WINDOW_SECONDS: '300',
      ADMIN_TOKEN_FAILURES_PER_ADDRESS: '3',
      VALIDATIONS_PER_MINUTE: '120',
      TEST_EVENTS_PER_MINUTE: '5',
      REDELIVERIES_PER_MINUTE: '1000000',
      EVENT_WAITERS_PER_SERVER: '5000',
      EVENT_WAITERS_PER_CLIENT: '250',
      QUOTA_WRITES_PER_SECOND: '0',
      QUOTA_READS_PER_SECOND: '500',
      MAX_BACKLOG_PER_AGENCY: '20000',
      MAX_WAITING_PER_AGENCY: '500',
      HTTP_MAX_IN_FLIGHT: '64',
      SHUTDOWN_GRACE_SECONDS: '0',
      MIN_FREE_DISK_MB: '0',
      ADMIN_TOKEN: 'an-operator-token-of-some-length',
    });
    assert.deepEqual(config, {
      host: '0.0.0.0',
      port: 9000,
      trustProxy: ['10.0.0.0/8', '192.168.1.2', 'fd00::/8'],
      publicUrl: 'https://api.example.com',
      publicUrlGiven: true,
      dataDir: '/var/lib/immogate',
      databaseUrl: 'postgresql://u:p@db:5432/immogate',
      databasePoolSize: 20,
      databaseDeadlines: { statementTimeoutMs: 8000, lockTimeoutMs: 1500, checkoutTimeoutMs: 3000 },
      databaseStartTimeoutSeconds: 0,
      logLevel: 'debug',
      workerConcurrency: 3,
      workerNiceness: 5,
      workerPaceWhileServersBusy: 0,
      webhookConcurrency: 7,
      webhookShares: { perSubscription: 2, perAgency: 4, perAgencyHost: 3, perHost: 5 },
      workerConcurrencyPerAgency: 1,
      mediaDownloadsPerHost: 6,
      workerLeaseSeconds: 30,
      deliveryRetentionDays: 90,
      dev: false,
      allowPrivateTargets: true,
      webhookRetrySchedule: [1, 2, 3],
      bodyLimitBytes: 2048,
      idempotentAnswerMaxBytes: 4096,
      httpHeadersTimeoutSeconds: 5,
      httpRequestTimeoutSeconds: 120,
      httpIdleTimeoutSeconds: 30,
      httpMaxConnections: 500,
      requestLoopWarnMs: 20,
      secretsKey: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      secretsKeyPrevious: ['3031323334353637383961626364656630313233343536373839616263646566'],
      authFailureLimits: { perClient: 5, perAddress: 50, adminTokenPerAddress: 3, windowSeconds: 300 },
      rateLimits: { validationsPerMinute: 120, testEventsPerMinute: 5, redeliveriesPerMinute: 1_000_000 },
      eventWaiters: { perServer: 5000, perClient: 250 },
      quotas: { writesPerSecond: 0, readsPerSecond: 500 },
      maxBacklogPerAgency: 20_000,
      maxWaitingPerAgency: 500,
      httpMaxInFlight: 64,
      shutdownGraceSeconds: 0,
      minFreeDiskMb: 0,
      adminToken: 'an-operator-token-of-some-length',
      s3: undefined,
    });
    assert.equal(Object.isFrozen(config), true);
  });

  it('derives PUBLIC_URL from HOST and PORT, on loopback for a wildcard host', () => {
    assert.equal(loadConfig({ HOST: 'localhost', PORT: '81' }).publicUrl, 'http://localhost:81');
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).publicUrl, 'http://127.0.0.1:8080');
    assert.equal(loadConfig({ HOST: '::' }).publicUrl, 'http://127.0.0.1:8080');
    assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:8080');
    assert.equal(loadConfig({ HOST: 'immogate_app' }).publicUrl, 'http://immogate_app:8080');
  });

  it('keeps a path prefix of PUBLIC_URL, without the trailing slash', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://example.com/immogate/' }).publicUrl, 'https://example.com/immogate');
  });

  it('resolves a relative DATA_DIR against the working directory', () => {
    assert.equal(loadConfig({ DATA_DIR: 'state' }).dataDir, path.resolve('state'));
  });

  describe('refuses a bad value with a ConfigError naming the variable', () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ PORT: 'abc' }, 'PORT', 'must be a whole number, got "abc"'],
      [{ HTTP_HEADERS_TIMEOUT_SECONDS: '0' }, 'HTTP_HEADERS_TIMEOUT_SECONDS', 'must be between 1 and 3600, got 0'],
      [{ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS', 'must be between 1 and 1000000, got 0'],
      [{ WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '0' }, 'WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 'must be between 1 and 10000, got 0'],
      [{ WEBHOOK_CONCURRENCY_PER_AGENCY: 'many' }, 'WEBHOOK_CONCURRENCY_PER_AGENCY', 'must be a whole number, got "many"'],
      [{ WEBHOOK_CONCURRENCY_PER_HOST: '0' }, 'WEBHOOK_CONCURRENCY_PER_HOST', 'must be between 1 and 10000, got 0'],
      [{ WORKER_CONCURRENCY_PER_AGENCY: '1001' }, 'WORKER_CONCURRENCY_PER_AGENCY', 'must be between 1 and 1000, got 1001'],
      [{ MEDIA_DOWNLOADS_PER_HOST: '0' }, 'MEDIA_DOWNLOADS_PER_HOST', 'must be between 1 and 1000, got 0'],
      [{ MIN_FREE_DISK_MB: '1.5' }, 'MIN_FREE_DISK_MB', 'must be a whole number, got "1.5"'],
      [
        { SECRETS_KEY: 'too-short' },
        'SECRETS_KEY',
        'must be 32 random bytes, as base64 or 64 hex digits (create one with: openssl rand -base64 32)',
      ],
      [
        { SECRETS_KEY_PREVIOUS: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=' },
        'SECRETS_KEY_PREVIOUS',
        'is only read together with SECRETS_KEY',
      ],
      [{ PORT: '70000' }, 'PORT', 'must be between 1 and 65535, got 70000'],
      [{ PORT: '0' }, 'PORT', 'must be between 1 and 65535, got 0'],
      [{ PORT: '-1' }, 'PORT', 'must be a whole number, got "-1"'],
      [{ PORT: '80.5' }, 'PORT', 'must be a whole number, got "80.5"'],
      [{ HOST: 'not a host' }, 'HOST', 'must be an IP address or a host name, got "not a host"'],
      [{ HOST: 'http://localhost' }, 'HOST', 'must be an IP address or a host name, got "http://localhost"'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
      [{ LOG_LEVEL: 'INFO' }, 'LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent, got "INFO"'],
      [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL', 'must use http or https, got "ftp:"'],
      [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL', 'must be an absolute http(s) URL, got "not a url"'],
      [{ PUBLIC_URL: 'https://example.com/?a=1' }, 'PUBLIC_URL', 'must not carry a query or fragment'],
      [{ PUBLIC_URL: 'https://example.com/#top' }, 'PUBLIC_URL', 'must not carry a query or fragment'],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', 'must use the postgres:// scheme, got "mysql:"'],
      [{ DATABASE_URL: 'localhost:5432' }, 'DATABASE_URL', 'must use the postgres:// scheme, got "localhost:"'],
      [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', 'must be a postgres:// URL'],
      [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE', 'must be between 1 and 1000, got 0'],
      [{ DATABASE_STATEMENT_TIMEOUT_MS: '50' }, 'DATABASE_STATEMENT_TIMEOUT_MS', 'must be between 100 and 600000, got 50'],
      [{ DATABASE_LOCK_TIMEOUT_MS: '6000' }, 'DATABASE_LOCK_TIMEOUT_MS', 'must not exceed DATABASE_STATEMENT_TIMEOUT_MS (5000), got 6000'],
      [{ DATABASE_CHECKOUT_TIMEOUT_MS: 'soon' }, 'DATABASE_CHECKOUT_TIMEOUT_MS', 'must be a whole number, got "soon"'],
      [{ DATABASE_START_TIMEOUT_SECONDS: '-1' }, 'DATABASE_START_TIMEOUT_SECONDS', 'must be a whole number, got "-1"'],
      [{ DATABASE_START_TIMEOUT_SECONDS: '86401' }, 'DATABASE_START_TIMEOUT_SECONDS', 'must be between 0 and 86400, got 86401'],
      [{ WORKER_CONCURRENCY: 'many' }, 'WORKER_CONCURRENCY', 'must be a whole number, got "many"'],
      [{ WEBHOOK_CONCURRENCY: '0' }, 'WEBHOOK_CONCURRENCY', 'must be between 1 and 10000, got 0'],
      [{ WORKER_NICENESS: '20' }, 'WORKER_NICENESS', 'must be between 0 and 19, got 20'],
      [{ WORKER_PACE_WHILE_SERVERS_BUSY: '-1' }, 'WORKER_PACE_WHILE_SERVERS_BUSY', 'must be a whole number, got "-1"'],
      [{ WORKER_LEASE_SECONDS: '1' }, 'WORKER_LEASE_SECONDS', 'must be between 2 and 3600, got 1'],
      [{ DELIVERY_RETENTION_DAYS: '0' }, 'DELIVERY_RETENTION_DAYS', 'must be between 1 and 36500, got 0'],
      [{ ALLOW_PRIVATE_TARGETS: 'maybe' }, 'ALLOW_PRIVATE_TARGETS', 'must be true or false, got "maybe"'],
      [{ WEBHOOK_RETRY_SCHEDULE: '1,,x' }, 'WEBHOOK_RETRY_SCHEDULE', 'must be comma-separated non-negative seconds, got "1,,x"'],
      [{ WEBHOOK_RETRY_SCHEDULE: '5,-1' }, 'WEBHOOK_RETRY_SCHEDULE', 'must be comma-separated non-negative seconds, got "5,-1"'],
      [{ BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES', 'must be between 1024 and 104857600, got 10'],
      [{ SHUTDOWN_GRACE_SECONDS: '1e3' }, 'SHUTDOWN_GRACE_SECONDS', 'must be a whole number, got "1e3"'],
      [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN', 'must be at least 24 characters without spaces'],
      [{ ADMIN_TOKEN_FAILURES_PER_ADDRESS: '0' }, 'ADMIN_TOKEN_FAILURES_PER_ADDRESS', 'must be between 1 and 1000000, got 0'],
      [{ VALIDATIONS_PER_MINUTE: 'lots' }, 'VALIDATIONS_PER_MINUTE', 'must be a whole number, got "lots"'],
      [{ TEST_EVENTS_PER_MINUTE: '0' }, 'TEST_EVENTS_PER_MINUTE', 'must be between 1 and 1000000, got 0'],
      [{ REDELIVERIES_PER_MINUTE: '1000001' }, 'REDELIVERIES_PER_MINUTE', 'must be between 1 and 1000000, got 1000001'],
      [{ EVENT_WAITERS_PER_CLIENT: '0' }, 'EVENT_WAITERS_PER_CLIENT', 'must be between 1 and 1000000, got 0'],
      [{ EVENT_WAITERS_PER_SERVER: 'all' }, 'EVENT_WAITERS_PER_SERVER', 'must be a whole number, got "all"'],
      [{ QUOTA_WRITES_PER_SECOND: '-1' }, 'QUOTA_WRITES_PER_SECOND', 'must be a whole number, got "-1"'],
      [{ QUOTA_READS_PER_SECOND: '1000001' }, 'QUOTA_READS_PER_SECOND', 'must be between 0 and 1000000, got 1000001'],
      [{ MAX_BACKLOG_PER_AGENCY: 'lots' }, 'MAX_BACKLOG_PER_AGENCY', 'must be a whole number, got "lots"'],
      [{ MAX_WAITING_PER_AGENCY: '-5' }, 'MAX_WAITING_PER_AGENCY', 'must be a whole number, got "-5"'],
      [{ HTTP_MAX_IN_FLIGHT: '0' }, 'HTTP_MAX_IN_FLIGHT', 'must be between 1 and 1000000, got 0'],
      [{ TRUST_PROXY: '0' }, 'TRUST_PROXY', 'a hop count must be between 1 and 100, got 0'],
      [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY', `${TRUST_PROXY_FORMS}, got "yes" in "yes"`],
      [{ TRUST_PROXY: '10.0.0.1,nginx' }, 'TRUST_PROXY', `${TRUST_PROXY_FORMS}, got "nginx" in "10.0.0.1,nginx"`],
      [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY', `${TRUST_PROXY_FORMS}, got "10.0.0.0/33" in "10.0.0.0/33"`],
      [{ TRUST_PROXY: '10.0.0.1,' }, 'TRUST_PROXY', `${TRUST_PROXY_FORMS}, got "" in "10.0.0.1,"`],
    ];
    for (const [env, variable, message] of cases) {
      it(`${Object.keys(env)[0]}=${Object.values(env)[0]}`, () => {
        assertRefused(env, variable, message);
      });
    }
  });
});

describe('the S3 blob store settings', () => {
  const S3 = {
    S3_ENDPOINT: 'https://minio.example.com:9000/',
    S3_BUCKET: 'immogate-media',
    S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    S3_SECRET_ACCESS_KEY: 'secret/key+example',
  };

  it('turn S3 on when S3_ENDPOINT and S3_BUCKET are set, with us-east-1 and path-style addressing by default', () => {
    const config = loadConfig(S3);
    assert.deepEqual(config.s3, {
      endpoint: 'https://minio.example.com:9000',
      bucket: 'immogate-media',
      region: 'us-east-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret/key+example',
      forcePathStyle: true,
    });
    assert.equal(Object.isFrozen(config.s3), true);
  });

  it('read S3_REGION and S3_FORCE_PATH_STYLE', () => {
    const config = loadConfig({
      ...S3,
      S3_ENDPOINT: 'https://s3.eu-central-1.amazonaws.com',
      S3_REGION: 'eu-central-1',
      S3_FORCE_PATH_STYLE: 'false',
    });
    assert.equal(config.s3?.endpoint, 'https://s3.eu-central-1.amazonaws.com');
    assert.equal(config.s3?.region, 'eu-central-1');
    assert.equal(config.s3?.forcePathStyle, false);
  });

  it('leave S3 off (blobs under DATA_DIR) when no S3 variable is set, or all are empty', () => {
    assert.equal(loadConfig({}).s3, undefined);
    assert.equal(
      loadConfig({ S3_ENDPOINT: '', S3_BUCKET: '', S3_REGION: '', S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '', S3_FORCE_PATH_STYLE: '' })
        .s3,
      undefined,
    );
  });

  describe('stop start-up when partial or bad, naming the variable', () => {
    const needs = 'is required when any S3 variable is set (S3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)';
    const without = (name: keyof typeof S3): Record<string, string> => {
      const env: Record<string, string> = { ...S3 };
      delete env[name];
      return env;
    };
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ['S3_BUCKET alone', { S3_BUCKET: 'media' }, 'S3_ENDPOINT', needs],
      ['S3_REGION alone', { S3_REGION: 'eu-central-1' }, 'S3_ENDPOINT', needs],
      ['S3_FORCE_PATH_STYLE alone', { S3_FORCE_PATH_STYLE: 'true' }, 'S3_ENDPOINT', needs],
      ['no S3_ENDPOINT', without('S3_ENDPOINT'), 'S3_ENDPOINT', needs],
      ['no S3_BUCKET', without('S3_BUCKET'), 'S3_BUCKET', needs],
      ['no S3_ACCESS_KEY_ID', without('S3_ACCESS_KEY_ID'), 'S3_ACCESS_KEY_ID', needs],
      ['no S3_SECRET_ACCESS_KEY', without('S3_SECRET_ACCESS_KEY'), 'S3_SECRET_ACCESS_KEY', needs],
      ['S3_ENDPOINT not a URL', { ...S3, S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT', 'must use http or https, got "minio:"'],
      ['S3_ENDPOINT not absolute', { ...S3, S3_ENDPOINT: '/minio' }, 'S3_ENDPOINT', 'must be an absolute http(s) URL, got "/minio"'],
      ['S3_BUCKET with capitals', { ...S3, S3_BUCKET: 'Media' }, 'S3_BUCKET', 'must be a valid bucket name, got "Media"'],
      [
        'S3_REGION with spaces',
        { ...S3, S3_REGION: 'eu central' },
        'S3_REGION',
        'must be a region name such as eu-central-1, got "eu central"',
      ],
      ['S3_FORCE_PATH_STYLE=yes', { ...S3, S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE', 'must be true or false, got "yes"'],
    ];
    for (const [title, env, variable, message] of cases) {
      it(title, () => {
        assertRefused(env, variable, message);
      });
    }
  });

  it('stop `immogate start` with the missing variable named', async () => {
    const result = await cli(['start'], { S3_ENDPOINT: 'http://127.0.0.1:9000' });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        'immogate: S3_BUCKET: is required when any S3 variable is set (S3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)\n',
    });
  });
});

describe('the CLI with a bad setting', () => {
  for (const command of [['start'], ['server'], ['worker'], ['migrate'], ['clients', 'list']]) {
    it(`stops \`immogate ${command.join(' ')}\` with a message naming the variable and no stack trace`, async () => {
      const result = await cli(command, { PORT: 'abc' });
      assert.deepEqual(result, { code: 1, stdout: '', stderr: 'immogate: PORT: must be a whole number, got "abc"\n' });
    });
  }

  it('stops `immogate start` on a TRUST_PROXY that is no proxy address', async () => {
    const result = await cli(['start'], { TRUST_PROXY: '10.0.0.0/8,proxy.local' });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: `immogate: TRUST_PROXY: ${TRUST_PROXY_FORMS}, got "proxy.local" in "10.0.0.0/8,proxy.local"\n`,
    });
  });

  it('names LOG_LEVEL too', async () => {
    const result = await cli(['start'], { LOG_LEVEL: 'loud' });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: 'immogate: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n',
    });
  });
});
