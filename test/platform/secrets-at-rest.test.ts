/*
 * Secrets at rest: the token signing key, webhook secrets, lead apiKeys, the deliveries' copies
 * and the upload-URL key are nowhere in clear in the database, yet tokens verify and webhooks are
 * signed and carry their apiKey; a rotation of the key-encryption key keeps all of it working; a
 * process with the wrong key refuses to start; clear values of an older version are sealed at
 * the first start; the key file is created with mode 0600 and refused when others can read it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { JWK } from 'jose';
import { Webhook } from 'standardwebhooks';
import { kekId, parseKey, sealerFor, sealedWith } from '../../src/platform/secrets/sealer.js';
import { leadRequest } from '../fixtures/leads.js';
import {
  TEST_SECRETS_KEY,
  USER_AGENT,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type TestClient,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';
import { Receiver } from '../fixtures/receiver.js';
import { runCli } from '../processes.js';

const NEW_KEY = 'bmV3LWtleS1lbmNyeXB0aW9uLWtleS1mb3ItdGVzdHM';
const WEBHOOK_SECRET_SENT = 'classified-webhook-secret-0123456789';
const API_KEY = 'lead-subscription-api-key-0123456789';

let database: TestDatabase;
let receiver: Receiver;

before(async () => {
  database = await createTestDatabase();
  receiver = await Receiver.start({ otherwise: 204 });
});

after(async () => {
  await receiver.close();
  await database.drop();
});

function serve(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(database, { worker: true, env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2', ...env } });
}

/** Every value of every column of every table, as text: what a dump of the database would show. */
async function dump(server: TestServer): Promise<string> {
  const { rows: tables } = await server.pool.query<{ name: string }>(
    "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  let text = '';
  for (const { name } of tables) {
    const { rows } = await server.pool.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${name} t`);
    text += rows.map((row) => row.row).join('\n');
  }
  return text;
}

/** The private signing key, opened from its sealed column with the server's key. */
async function signingJwk(server: TestServer): Promise<JWK> {
  const { rows } = await server.pool.query<{ kid: string; private_jwk_sealed: string }>('SELECT kid, private_jwk_sealed FROM signing_keys');
  const row = rows[0]!;
  return JSON.parse(sealerFor(server.config).unseal(row.private_jwk_sealed, `signing-key:${row.kid}`)) as JWK;
}

async function leadDelivered(server: TestServer, client: TestClient, apiKey: string): Promise<void> {
  const token = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-s' });
  const before = receiver.received.length;
  const result = await http('POST', `${server.base}/seeker-leads/v1/leads`, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT },
    body: leadRequest(),
  });
  assert.equal(result.status, 200, result.text);
  const [request] = await waitFor(
    'the lead notification',
    async () => receiver.received.slice(before),
    (list) => list.length >= 1,
  );
  assert.ok(request);
  assert.equal(request.headers['x-api-key'], apiKey);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  new Webhook(apiKey, { format: 'raw' }).verify(request.body, headers);
}

describe('secrets at rest', () => {
  let client: TestClient;
  let privateD: string;
  let blobKey: Buffer;

  it('a dump of the database holds none of the secrets in clear; tokens verify, webhooks are signed and carry the apiKey', async () => {
    const server = await serve();
    try {
      client = await makeClient(server.pool, ['agency-s'], ['caas:*', 'leads:*']);
      const caas = await getToken(server, client, { root: '/caas/v4', intermediary: 'agency-s' });
      const put = await http('PUT', `${server.base}/caas/v4/webhooks`, {
        headers: { authorization: `Bearer ${caas}` },
        body: { url: `${receiver.base}/caas`, secret: WEBHOOK_SECRET_SENT },
      });
      assert.equal(put.status, 200, put.text);
      const leads = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-s' });
      const created = await http('POST', `${server.base}/seeker-leads/v1/webhook/subscriptions`, {
        headers: { authorization: `Bearer ${leads}` },
        body: { url: `${receiver.base}/leads`, apiKey: API_KEY },
      });
      assert.equal(created.status, 201, created.text);
      await leadDelivered(server, client, API_KEY);

      privateD = (await signingJwk(server)).d as string;
      const blob = await server.pool.query<{ secret_sealed: string }>('SELECT secret_sealed FROM blob_signing_keys');
      blobKey = sealerFor(server.config).unsealBytes(blob.rows[0]!.secret_sealed, 'blob-signing-key');
      const text = await dump(server);
      for (const [what, secret] of [
        ['the webhook secret', WEBHOOK_SECRET_SENT],
        ['the apiKey', API_KEY],
        ["the signing key's private part", privateD],
        ['the upload-URL key (hex)', blobKey.toString('hex')],
        ['the upload-URL key (base64)', blobKey.toString('base64')],
      ] as const) {
        assert.equal(text.includes(secret), false, `${what} is in the dump`);
      }
      // And they are there, sealed.
      const sealed = await server.pool.query<{ secret: string }>('SELECT secret FROM caas_webhook_subscriptions');
      assert.equal(sealedWith(sealed.rows[0]!.secret), kekId(parseKey(TEST_SECRETS_KEY, 'test')));
    } finally {
      await server.close();
    }
  });

  it('a process with another key refuses to start, naming the key it lacks', async () => {
    await assert.rejects(serve({ SECRETS_KEY: NEW_KEY }), {
      name: 'SecretsKeyError',
      message:
        `the secrets in this database are sealed with key ${kekId(parseKey(TEST_SECRETS_KEY, 'test'))}, which this process does not have ` +
        `(its key is ${kekId(parseKey(NEW_KEY, 'test'))}): start it with the SECRETS_KEY (or DATA_DIR/secrets.key) of the processes that stored them`,
    });
  });

  it('immogate secrets rotate-key re-seals everything with the new key; a process with only the new key serves as before', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: '/nonexistent', SECRETS_KEY: TEST_SECRETS_KEY };
    const missing = await runCli(['secrets', 'rotate-key'], env);
    assert.deepEqual(missing, {
      code: 1,
      stdout: '',
      stderr:
        'immogate: SECRETS_KEY is set: give the new key as SECRETS_KEY_NEW (or --new-key); create one with: openssl rand -base64 32\n',
    });
    const rotated = await runCli(['secrets', 'rotate-key', '--json'], { ...env, SECRETS_KEY_NEW: NEW_KEY });
    assert.equal(rotated.code, 0, rotated.stderr);
    const report = JSON.parse(rotated.stdout) as Record<string, unknown>;
    assert.deepEqual(report, {
      from: kekId(parseKey(TEST_SECRETS_KEY, 'test')),
      to: kekId(parseKey(NEW_KEY, 'test')),
      resealed: report.resealed,
      next: 'set SECRETS_KEY to the new key on every process (with SECRETS_KEY_PREVIOUS set to the old one until all have restarted)',
    });
    assert.ok((report.resealed as number) >= 5);
    assert.match(rotated.stderr, /caas_webhook_subscriptions: 1 re-sealed/);

    const server = await serve({ SECRETS_KEY: NEW_KEY });
    try {
      assert.equal((await signingJwk(server)).d, privateD);
      const token = await getToken(server, client, { root: '/caas/v4', intermediary: 'agency-s' });
      assert.equal(
        (await http('GET', `${server.base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${token}` } })).status,
        200,
      );
      await leadDelivered(server, client, API_KEY);
      const ids = await server.pool.query<{ id: string }>(
        "SELECT DISTINCT split_part(secret, '.', 2) AS id FROM webhook_deliveries UNION SELECT DISTINCT split_part(api_key, '.', 2) FROM lead_webhook_subscriptions",
      );
      assert.deepEqual(ids.rows, [{ id: kekId(parseKey(NEW_KEY, 'test')) }]);
    } finally {
      await server.close();
    }
    await assert.rejects(serve(), { name: 'SecretsKeyError' });
  });

  it('clear values an older version stored are sealed at the first start, the X-Api-Key header of a delivery included', async () => {
    const server = await serve({ SECRETS_KEY: NEW_KEY });
    const [{ kid }] = (await server.pool.query<{ kid: string }>('SELECT kid FROM signing_keys')).rows as [{ kid: string }];
    const jwk = await signingJwk(server);
    const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM webhook_deliveries ORDER BY created_at LIMIT 1');
    await server.close();
    // As 0.1 stored them.
    const raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    try {
      await raw.query('DELETE FROM secrets_state');
      await raw.query('UPDATE signing_keys SET private_jwk = $2, private_jwk_sealed = NULL WHERE kid = $1', [kid, jwk]);
      await raw.query('UPDATE lead_webhook_subscriptions SET api_key = $1', ['clear-api-key-of-an-older-version']);
      await raw.query(
        "UPDATE webhook_deliveries SET secret = $2, secret_header = NULL, headers = jsonb_build_object('x-api-key', $2::text) WHERE id = $1",
        [rows[0]!.id, 'clear-api-key-of-an-older-version'],
      );
    } finally {
      await raw.end();
    }
    const upgraded = await serve({ SECRETS_KEY: NEW_KEY });
    try {
      assert.equal((await dump(upgraded)).includes('clear-api-key-of-an-older-version'), false);
      assert.equal((await dump(upgraded)).includes(jwk.d as string), false);
      const delivery = await upgraded.pool.query('SELECT secret_header, headers FROM webhook_deliveries WHERE id = $1', [rows[0]!.id]);
      assert.deepEqual(delivery.rows, [{ secret_header: 'x-api-key', headers: {} }]);
      await leadDelivered(upgraded, client, 'clear-api-key-of-an-older-version');
    } finally {
      await upgraded.close();
    }
  });
});

describe('the key file', () => {
  it('is created in DATA_DIR with mode 0600 at first start, refused when others can read it, and rotated by the CLI', async () => {
    const fresh = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-keyfile-'));
    try {
      const env = { DATA_DIR: dataDir, SECRETS_KEY: '' };
      const first = await startTestServer(fresh, { env });
      await first.close();
      const file = path.join(dataDir, 'secrets.key');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const original = fs.readFileSync(file, 'utf8');

      fs.chmodSync(file, 0o644);
      await assert.rejects(startTestServer(fresh, { env }), {
        name: 'SecretsKeyError',
        message: `${file} is readable by other users (mode 644): chmod 600 it`,
      });
      fs.chmodSync(file, 0o600);

      const rotated = await runCli(['secrets', 'rotate-key'], { DATABASE_URL: fresh.url, DATA_DIR: dataDir, SECRETS_KEY: undefined });
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.match(
        rotated.stdout,
        new RegExp(`^re-sealed \\d+ secret\\(s\\) from key ${kekId(parseKey(original, 'old'))} to key [0-9a-f]{16}\\n`),
      );
      assert.equal(fs.readFileSync(path.join(dataDir, 'secrets.key.previous'), 'utf8'), original);
      assert.notEqual(fs.readFileSync(file, 'utf8'), original);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const again = await startTestServer(fresh, { env });
      await again.close();
      // The old key is no longer needed once every process restarted.
      fs.rmSync(path.join(dataDir, 'secrets.key.previous'));
      const last = await startTestServer(fresh, { env });
      await last.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});
