/*
 * Upgrades: a database an earlier immogate wrote, at the schema of its last migration and with its
 * rows as its code wrote them (test/fixtures/upgrade/*.sql), is migrated and served by this one,
 * and the work it left behind finishes. A database a newer immogate migrated is refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { listMigrations, migrate, migrationName } from '../src/platform/db/migrate.js';
import { createPool, type Pool } from '../src/platform/db/pool.js';
import { Receiver, type Received } from './fixtures/receiver.js';
import {
  createTestDatabase,
  freePort,
  getToken,
  http,
  REPO_ROOT,
  sealedWebhookSecret,
  startTestServer,
  waitFor,
  type HttpResult,
  type TestDatabase,
  type TestServer,
} from './helpers.js';
import { runCli } from './processes.js';

type Body = Record<string, any>;

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/upgrade');
const ALL = listMigrations().map(migrationName);
const CLIENT = { clientId: 'ig_old_crm', secret: 'old-client-secret-written-by-0.0' };
const CLASSIFIED_ID = '0c1a0000-0000-4000-8000-000000000001';
const LISTING_ID = '011a0000-0000-4000-8000-000000000001';
const LEAD_DELIVERY_ID = 'e55b8fc4-d35f-a972-235b-29ac4b38848f';
const OLD_KID = '0b1d0000-0000-4000-8000-00000000a11d';
const STATUS_SECRET = 'old-status-webhook-secret-0123456789';
const API_KEY = 'old-lead-api-key-0123456789';
const STATUS_ORDER = ['RECEIVED', 'CREATING', 'CREATED'];

let scratch: string;
let receiver: Receiver;

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-upgrade-'));
  receiver = await Receiver.start();
});

after(async () => {
  await receiver.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/**
 * A database at the schema of migration `last`, holding what `fixture` wrote into it as that
 * version did. The fixture reads the receiver's address, and the secrets sealed with the tests'
 * key where that version sealed them, from settings of its session.
 */
async function olderDatabase(last: number, fixture: string): Promise<TestDatabase> {
  const database = await createTestDatabase({ empty: true });
  const dir = fs.mkdtempSync(path.join(scratch, `upto-${last}-`));
  for (const migration of listMigrations().filter((m) => m.id <= last)) {
    fs.writeFileSync(path.join(dir, `${migrationName(migration)}.sql`), migration.sql);
  }
  const pool = createPool(database.url, 1);
  try {
    await migrate(pool, { directory: dir });
    const client = await pool.connect();
    try {
      const settings = {
        'upgrade.receiver': receiver.base,
        'upgrade.sealed_status_secret': sealedWebhookSecret(STATUS_SECRET),
        'upgrade.sealed_api_key': sealedWebhookSecret(API_KEY),
      };
      for (const [name, value] of Object.entries(settings)) await client.query('SELECT set_config($1, $2, false)', [name, value]);
      await client.query(fs.readFileSync(path.join(FIXTURES, fixture), 'utf8'));
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
  return database;
}

/** What the old version stored, read before the current one starts: what it must serve. */
interface Stored {
  classifiedPayload: Body;
  listing: { request: Body; created_at: Date; last_write_at: Date };
  /** The lead as the old version's notification carried it: the item GET /leads shows. */
  lead: Body;
}

async function stored(database: TestDatabase, classifiedId: string): Promise<Stored> {
  const pool = createPool(database.url, 1);
  try {
    const classified = await pool.query('SELECT payload FROM classifieds WHERE id = $1', [classifiedId]);
    const listing = await pool.query('SELECT request, created_at, last_write_at FROM listings WHERE id = $1', [LISTING_ID]);
    const lead = await pool.query("SELECT payload FROM webhook_deliveries WHERE source = 'leads' ORDER BY created_at LIMIT 1");
    return { classifiedPayload: classified.rows[0].payload, listing: listing.rows[0], lead: lead.rows[0].payload };
  } finally {
    await pool.end();
  }
}

/** A token of the old client, issued by the current immogate. */
function token(server: TestServer, root: string): Promise<string> {
  return getToken(server, CLIENT, { root, intermediary: 'agency-old' });
}

function get(server: TestServer, bearer: string, pathAndQuery: string): Promise<HttpResult> {
  return http('GET', server.base + pathAndQuery, { headers: { authorization: `Bearer ${bearer}` } });
}

function kidOf(jwt: string): unknown {
  return JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()).kid;
}

/** A receiver's Standard Webhooks check: the payload, or a throw. Status webhooks are keyed by the secret's bytes, lead notifications by the apiKey raw. */
function verified(request: Received, secret: string, format: 'bytes' | 'raw'): unknown {
  const key = format === 'raw' ? secret : Buffer.from(secret).toString('base64');
  return new Webhook(key, format === 'raw' ? { format: 'raw' } : undefined).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

/** The classified, listing and lead the old version stored, read through the APIs with the old client's tokens. */
async function assertServed(server: TestServer, classifiedId: string, old: Stored): Promise<void> {
  const caas = await token(server, '/caas/v4');
  const classified = await get(server, caas, `/caas/v4/classifieds/${classifiedId}`);
  assert.equal(classified.status, 200, classified.text);
  assert.equal(classified.headers.get('etag'), '"1"');
  assert.deepEqual(classified.body, { ...old.classifiedPayload, classifiedId });

  const listing = await get(server, await token(server, '/import-listings/v1'), '/import-listings/v1/listings/L-OLD-1');
  assert.equal(listing.status, 200, listing.text);
  assert.deepEqual(listing.body, {
    listing: {
      ...old.listing.request,
      listingId: LISTING_ID,
      externalListingId: 'L-OLD-1',
      isPublished: true,
      creationDate: old.listing.created_at.toISOString(),
      lastUpdateDate: old.listing.last_write_at.toISOString(),
    },
  });

  const minDate = Math.floor(Date.parse(old.lead.metadata.ingestionDate) / 1000);
  const query = `minDate=${minDate}&maxDate=${minDate + 60}&limit=100`;
  const leads = await get(server, await token(server, '/seeker-leads/v1'), `/seeker-leads/v1/leads?${query}`);
  assert.equal(leads.status, 200, leads.text);
  assert.deepEqual(leads.body, {
    metadata: { count: 1, limit: 100, minDate, maxDate: minDate + 60 },
    links: { self: `${server.base}/seeker-leads/v1/leads?${query}` },
    items: [old.lead],
  });
}

/** The status items of the classified, oldest first (GET .../statuses shows the newest first). */
async function statusItems(server: TestServer, classifiedId: string): Promise<Body[]> {
  const result = await get(server, await token(server, '/caas/v4'), `/caas/v4/classifieds/${classifiedId}/statuses`);
  assert.equal(result.status, 200, result.text);
  return [...(result.body as { items: Body[] }).items].reverse();
}

describe('a database of the version before 010_work_queues (migrations 001 to 009)', () => {
  let database: TestDatabase;
  let server: TestServer;
  let pool: Pool;
  let old: Stored;

  before(async () => {
    database = await olderDatabase(9, '009_before_work_queues.sql');
    pool = createPool(database.url, 2);
    old = await stored(database, CLASSIFIED_ID);
  });

  after(async () => {
    await server?.close();
    await pool.end();
    await database.drop();
  });

  it('immogate migrate --dry-run lists 010 to the last migration and changes nothing', async () => {
    const pending = ALL.filter((name) => name >= '010');
    const host = new URL(database.url).host;
    assert.deepEqual(await runCli(['migrate', '--dry-run', '--json'], { DATABASE_URL: database.url }), {
      code: 0,
      stdout: `${JSON.stringify({ pending }, null, 2)}\n`,
      stderr: `checking PostgreSQL at ${host}\n`,
    });
    assert.deepEqual(await runCli(['migrate', '--dry-run'], { DATABASE_URL: database.url }), {
      code: 0,
      stdout: `${pending.join('\n')}\n`,
      stderr: `checking PostgreSQL at ${host}\n`,
    });
    const { rows } = await pool.query('SELECT max(id) AS last, to_regclass($1)::text AS queue FROM immogate_migrations', [
      'caas_processing_queue',
    ]);
    assert.deepEqual(rows, [{ last: 9, queue: null }]);
  });

  it('the current immogate migrates it as it starts and seals the secrets stored in clear', async () => {
    server = await startTestServer(database, { worker: true, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    const { rows: migrations } = await pool.query('SELECT id, name FROM immogate_migrations ORDER BY id');
    assert.deepEqual(migrations.map(migrationName), ALL);
    const { rows } = await pool.query(
      `SELECT (SELECT private_jwk IS NULL AND private_jwk_sealed LIKE 'ig1.%' FROM signing_keys) AS signing_key,
              (SELECT secret IS NULL AND secret_sealed LIKE 'ig1.%' FROM blob_signing_keys) AS blob_key,
              (SELECT secret LIKE 'ig1.%' FROM caas_webhook_subscriptions) AS status_webhook,
              (SELECT api_key LIKE 'ig1.%' FROM lead_webhook_subscriptions) AS lead_subscription,
              (SELECT json_build_object('sealed', secret LIKE 'ig1.%', 'headers', headers, 'secretHeader', secret_header)
                 FROM webhook_deliveries WHERE id = $1) AS delivery`,
      [LEAD_DELIVERY_ID],
    );
    assert.deepEqual(rows, [
      {
        signing_key: true,
        blob_key: true,
        status_webhook: true,
        lead_subscription: true,
        delivery: { sealed: true, headers: {}, secretHeader: 'x-api-key' },
      },
    ]);
    assert.deepEqual(await runCli(['migrate', '--dry-run'], { DATABASE_URL: database.url }), {
      code: 0,
      stdout: 'database is up to date\n',
      stderr: `checking PostgreSQL at ${new URL(database.url).host}\n`,
    });
  });

  it("serves the old client, with tokens signed by the old version's key, and its classified, listing and lead", async () => {
    assert.equal(kidOf(await token(server, '/caas/v4')), OLD_KID);
    await assertServed(server, CLASSIFIED_ID, old);
  });

  it('finishes the work the old version left: the lead notification delivered, the classified processed and its webhooks sent', async () => {
    const [lead] = await waitFor(
      'the old lead notification',
      async () => receiver.requestsTo('/leads'),
      (requests) => requests.length > 0,
    );
    assert.equal(lead?.headers['webhook-id'], LEAD_DELIVERY_ID);
    assert.equal(lead?.headers['x-api-key'], API_KEY);
    assert.deepEqual(verified(lead!, API_KEY, 'raw'), old.lead);

    const hooks = await waitFor(
      'the status webhooks of its processing',
      async () => receiver.requestsTo(`/caas/classifieds/${CLASSIFIED_ID}/statuses`),
      (requests) => requests.length >= 2,
    );
    const items = await statusItems(server, CLASSIFIED_ID);
    assert.deepEqual(
      items.map((item) => [item.revision, item.status, item.stage]),
      [
        [1, 'RECEIVED', 'processed'],
        [1, 'CREATING', 'analyzed'],
        [1, 'CREATED', 'accepted'],
      ],
    );
    // The RECEIVED status was the old version's to notify when it processed the revision: only what processing recorded goes out now.
    assert.deepEqual(
      hooks.map((hook) => verified(hook, STATUS_SECRET, 'bytes')),
      items.slice(1),
    );
  });

  it('takes new writes on the old classified: a PUT with If-Match "1" is processed to UPDATED', async () => {
    const caas = await token(server, '/caas/v4');
    const body: Body = structuredClone(old.classifiedPayload);
    body.data.location.houseNumber = '14';
    const put = await http('PUT', `${server.base}/caas/v4/classifieds/${CLASSIFIED_ID}`, {
      headers: { authorization: `Bearer ${caas}`, 'if-match': '"1"' },
      body,
    });
    assert.equal(put.status, 202, put.text);
    assert.equal(put.headers.get('etag'), '"2"');
    assert.deepEqual(put.body, {
      classifiedId: CLASSIFIED_ID,
      links: [{ statuses: `/classifieds/${CLASSIFIED_ID}/statuses` }],
    });
    const items = await waitFor(
      'revision 2 processed',
      () => statusItems(server, CLASSIFIED_ID),
      (rows) => rows.some((item) => item.revision === 2 && /^UPDAT(ED|ING_FAILED)/.test(item.status)),
    );
    assert.deepEqual(
      items.filter((item) => item.revision === 2).map((item) => [item.status, item.stage]),
      [
        ['RECEIVED', 'processed'],
        ['UPDATING', 'analyzed'],
        ['UPDATED', 'accepted'],
      ],
    );
  });
});

describe('a database of the version before 015_fair_shares (migrations 001 to 014)', () => {
  const classifiedId = '0c1a0000-0000-4000-8000-000000000002';
  const receivedDelivery = 'de110000-0000-4000-8000-000000000001';
  const leadDelivery = 'de110000-0000-4000-8000-000000000002';
  let database: TestDatabase;
  let server: TestServer;
  let pool: Pool;
  let old: Stored;
  let receivedItem: Body;

  before(async () => {
    database = await olderDatabase(14, '014_before_fair_shares.sql');
    pool = createPool(database.url, 2);
    old = await stored(database, classifiedId);
    const { rows } = await pool.query('SELECT payload FROM webhook_deliveries WHERE id = $1', [receivedDelivery]);
    receivedItem = rows[0].payload;
  });

  after(async () => {
    await server?.close();
    await pool.end();
    await database.drop();
  });

  it('immogate migrate --dry-run lists 015 and after; the current immogate applies them as it starts', async () => {
    const pending = ALL.filter((name) => name >= '015');
    assert.deepEqual(await runCli(['migrate', '--dry-run'], { DATABASE_URL: database.url }), {
      code: 0,
      stdout: `${pending.join('\n')}\n`,
      stderr: `checking PostgreSQL at ${new URL(database.url).host}\n`,
    });
    server = await startTestServer(database, { worker: true, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    const { rows } = await pool.query('SELECT id, name FROM immogate_migrations ORDER BY id');
    assert.deepEqual(rows.map(migrationName), ALL);
  });

  it('serves the old client, its classified, listing and lead', async () => {
    await assertServed(server, classifiedId, old);
  });

  it('finishes the queued work: the classified processed, the RECEIVED webhook sent, the lead notification retried and delivered', async () => {
    const hooks = await waitFor(
      'the status webhooks of the classified',
      async () => receiver.requestsTo(`/caas/classifieds/${classifiedId}/statuses`),
      (requests) => requests.length >= 3,
    );
    const items = await statusItems(server, classifiedId);
    assert.deepEqual(
      items.map((item) => [item.revision, item.status, item.stage]),
      [
        [1, 'RECEIVED', 'processed'],
        [1, 'CREATING', 'analyzed'],
        [1, 'CREATED', 'accepted'],
      ],
    );
    assert.deepEqual(items[0], receivedItem);
    // Each is signed with the secret the old version sealed; the RECEIVED one keeps its webhook-id.
    const byId = new Map(hooks.map((hook) => [String(hook.headers['webhook-id']), verified(hook, STATUS_SECRET, 'bytes')]));
    assert.deepEqual(byId.get(receivedDelivery), receivedItem);
    assert.deepEqual(
      [...byId.values()].sort((a, b) => STATUS_ORDER.indexOf((a as Body).status) - STATUS_ORDER.indexOf((b as Body).status)),
      items,
    );

    const [lead] = await waitFor(
      'the retry of the lead notification',
      async () => receiver.requestsTo('/leads').filter((request) => request.headers['webhook-id'] === leadDelivery),
      (requests) => requests.length > 0,
    );
    assert.equal(lead?.headers['x-api-key'], API_KEY);
    assert.deepEqual(verified(lead!, API_KEY, 'raw'), old.lead);
    const delivery = await waitFor(
      'the lead notification recorded as delivered',
      async () =>
        (
          await pool.query(
            `SELECT d.state, d.attempts, array_agg(a.status_code ORDER BY a.attempt) AS answers
               FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.id = $1 GROUP BY d.id`,
            [leadDelivery],
          )
        ).rows,
      (rows) => rows[0]?.state !== 'PENDING',
    );
    assert.deepEqual(delivery, [{ state: 'DELIVERED', attempts: 2, answers: [503, 200] }]);
  });
});

describe('a database a newer immogate migrated', () => {
  let database: TestDatabase;
  let pool: Pool;
  const newer = { id: (listMigrations().at(-1)?.id ?? 0) + 1, name: 'from_a_newer_version' };

  before(async () => {
    database = await createTestDatabase();
    pool = createPool(database.url, 1);
    await pool.query('INSERT INTO immogate_migrations (id, name) VALUES ($1, $2)', [newer.id, newer.name]);
  });

  after(async () => {
    await pool.end();
    await database.drop();
  });

  it('migrate, migrate --dry-run, start, server and worker refuse it, saying so, with exit 1 and nothing changed', async () => {
    const refusal =
      `immogate: this database was migrated by a newer immogate: it has ${migrationName(newer)}, which this one does not know ` +
      `(its last is ${ALL.at(-1)}); run the newer immogate, or restore the backup taken before the upgrade\n`;
    const host = new URL(database.url).host;
    const env = { DATABASE_URL: database.url, PORT: String(await freePort()) };
    assert.deepEqual(await runCli(['migrate'], env), { code: 1, stdout: '', stderr: `migrating PostgreSQL at ${host}\n${refusal}` });
    assert.deepEqual(await runCli(['migrate', '--dry-run'], env), {
      code: 1,
      stdout: '',
      stderr: `checking PostgreSQL at ${host}\n${refusal}`,
    });
    for (const command of ['start', 'server', 'worker']) {
      assert.deepEqual(await runCli([command], env), { code: 1, stdout: '', stderr: refusal }, command);
    }
    const { rows } = await pool.query('SELECT count(*)::int AS migrations, max(id) AS last FROM immogate_migrations');
    assert.deepEqual(rows, [{ migrations: ALL.length + 1, last: newer.id }]);
  });
});
