/*
 * Idempotency-Key on every POST of the three APIs, through real HTTP: for each, a replay (the same
 * status, kept headers and body, Idempotent-Replayed, one object written), another body or path
 * under the same key (422), the same key while the first still runs (409 with Retry-After: the
 * first is held by a lock on the table it writes), another client's same key (its own request),
 * and bad keys (400). Then the stored answers are sealed, and the hourly sweep removes expired keys.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pruneIdempotencyKeys } from '../../src/platform/http/idempotency.js';
import { createLogger } from '../../src/platform/log.js';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { listingWithMedia } from '../fixtures/listings.js';
import {
  assertProblem,
  getToken,
  type HttpResult,
  http,
  makeClient,
  type TestClient,
  type TestServer,
  useServer,
  waitFor,
} from '../helpers.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-idempotency-'));
// Each case sends more test events than the default budget of 10 a minute allows.
const fixture = useServer({ env: { DATA_DIR: dataDir, TEST_EVENTS_PER_MINUTE: '100' } });
const SCOPES = ['caas:*', 'clim:*', 'leads:*'];
let server: TestServer;
let first: TestClient;
let second: TestClient;
let leadSubscription = '';
let counter = 0;

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface PostCase {
  name: string;
  root: string;
  path: () => string;
  /** A new request body each call (undefined: the POST takes none). */
  body: () => unknown;
  status: number;
  /** The rows this POST writes, counted. */
  written: string;
  /** The table its handler writes, locked to hold it in flight. */
  table: string;
  /** A pause before each request, to stay within the route's own rate limit. */
  paceMs?: number;
}

function classified(): unknown {
  const body = minimalClassified();
  body.data.metaData.source.offererEstateId = `E-${++counter}`;
  return body;
}

const CASES: PostCase[] = [
  {
    name: 'POST /classifieds',
    root: '/caas/v4',
    path: () => '/classifieds',
    body: classified,
    status: 202,
    written: 'SELECT count(*)::int AS n FROM classifieds',
    table: 'classifieds',
  },
  {
    name: 'POST /webhooks/test-events (classifieds)',
    root: '/caas/v4',
    path: () => '/webhooks/test-events',
    body: () => undefined,
    status: 202,
    written: "SELECT count(*)::int AS n FROM webhook_deliveries WHERE source = 'caas'",
    table: 'webhook_deliveries',
  },
  {
    name: 'POST /listings',
    root: '/import-listings/v1',
    path: () => '/listings',
    body: () => listingWithMedia(`L-${++counter}`, []),
    status: 201,
    written: 'SELECT count(*)::int AS n FROM listings',
    table: 'listings',
  },
  {
    name: 'POST /medias',
    root: '/import-listings/v1',
    path: () => '/medias',
    body: () => ({ externalMediaId: `M-${++counter}`, fileName: 'photo.jpg' }),
    status: 201,
    written: 'SELECT count(*)::int AS n FROM listing_media',
    table: 'listing_media',
  },
  {
    name: 'POST /leads',
    root: '/seeker-leads/v1',
    path: () => '/leads',
    body: () => leadRequest({ message: `Still available? ${++counter}` }),
    status: 200,
    written: 'SELECT count(*)::int AS n FROM leads',
    table: 'leads',
  },
  {
    name: 'POST /webhook/subscriptions',
    root: '/seeker-leads/v1',
    path: () => '/webhook/subscriptions',
    body: () => ({ url: `https://hooks.example.org/leads-${++counter}`, apiKey: 'receiver-api-key-0123456789' }),
    status: 201,
    written: 'SELECT count(*)::int AS n FROM lead_webhook_subscriptions',
    table: 'lead_webhook_subscriptions',
    // The spec's 10 requests per 200 ms per caller.
    paceMs: 25,
  },
  {
    name: 'POST /webhook/subscriptions/{id}/test-events',
    root: '/seeker-leads/v1',
    path: () => `/webhook/subscriptions/${leadSubscription}/test-events`,
    body: () => undefined,
    status: 202,
    written: "SELECT count(*)::int AS n FROM webhook_deliveries WHERE source = 'leads'",
    table: 'webhook_deliveries',
  },
];

const tokens = new Map<string, Promise<string>>();
function tokenOf(client: TestClient, root: string): Promise<string> {
  const cacheKey = `${client.clientId}${root}`;
  let token = tokens.get(cacheKey);
  if (token === undefined) {
    token = getToken(server, client, { root, intermediary: 'agency-1' });
    tokens.set(cacheKey, token);
  }
  return token;
}

async function post(item: PostCase, body: unknown, key?: string, client = first, url = item.path()): Promise<HttpResult> {
  const headers: Record<string, string> = { authorization: `Bearer ${await tokenOf(client, item.root)}` };
  if (key !== undefined) headers['idempotency-key'] = key;
  if (item.paceMs !== undefined) await sleep(item.paceMs);
  return http('POST', `${server.base}${item.root}${url}`, { headers, body });
}

async function written(item: PostCase): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(item.written);
  return rows[0]?.n ?? 0;
}

/** The headers a replay repeats, and the marker. */
function kept(result: HttpResult): Record<string, string | null> {
  return Object.fromEntries(['content-type', 'etag', 'location', 'idempotent-replayed'].map((name) => [name, result.headers.get(name)]));
}

function keyProblem(result: HttpResult, status: number, title: string, detail: string, type: string): void {
  assertProblem(result, status, title, detail, { errors: [{ name: 'Idempotency-Key', reason: detail }], errorSource: 'header' }, type);
}

before(async () => {
  await fixture.ready();
  server = fixture.server;
  first = await makeClient(server.pool, ['agency-1'], SCOPES);
  second = await makeClient(server.pool, ['agency-1'], SCOPES);
  for (const client of [first, second]) {
    const caas = { authorization: `Bearer ${await tokenOf(client, '/caas/v4')}` };
    const put = await http('PUT', `${server.base}/caas/v4/webhooks`, { headers: caas, body: { url: 'https://hooks.example.org/caas' } });
    assert.equal(put.status, 200, put.text);
  }
  const leads = { authorization: `Bearer ${await tokenOf(first, '/seeker-leads/v1')}` };
  const created = await http('POST', `${server.base}/seeker-leads/v1/webhook/subscriptions`, {
    headers: leads,
    body: { url: 'https://hooks.example.org/tests', apiKey: 'receiver-api-key-0123456789' },
  });
  assert.equal(created.status, 201, created.text);
  leadSubscription = (created.body as { subscriptionId: string }).subscriptionId;
});

for (const item of CASES) {
  describe(item.name, () => {
    it('answers a retry with the same key and body from the stored answer, writing nothing again', async () => {
      const before = await written(item);
      const body = item.body();
      const key = `replay-${++counter}`;
      const original = await post(item, body, key);
      assert.equal(original.status, item.status, original.text);
      assert.equal(original.headers.get('idempotent-replayed'), null);
      const again = await post(item, body, key);
      assert.equal(again.status, item.status);
      assert.equal(again.text, original.text);
      assert.deepEqual(kept(again), { ...kept(original), 'idempotent-replayed': 'true' });
      assert.notEqual(again.headers.get('traceparent'), original.headers.get('traceparent'));
      assert.equal(await written(item), before + 1);
      // Without a key, the same request is a new one.
      const unkeyed = await post(item, item.body());
      assert.equal(unkeyed.status, item.status, unkeyed.text);
      assert.equal(await written(item), before + 2);
    });

    it('refuses the same key with another body or on another path (422)', async () => {
      const key = `mismatch-${++counter}`;
      const original = await post(item, item.body(), key);
      assert.equal(original.status, item.status, original.text);
      const before = await written(item);
      const other = item.body();
      if (other !== undefined) {
        keyProblem(
          await post(item, other, key),
          422,
          'Unprocessable entity',
          'This Idempotency-Key was used for a request with another body',
          'idempotency-key-reused',
        );
      }
      const elsewhere = await post(item, item.body(), key, first, `${item.path()}?again=1`);
      keyProblem(
        elsewhere,
        422,
        'Unprocessable entity',
        `This Idempotency-Key was used for a request to ${item.root}${item.path()}`,
        'idempotency-key-reused',
      );
      assert.equal(await written(item), before);
    });

    it('answers 409 with Retry-After while the first request with the key still runs', async () => {
      const key = `inflight-${++counter}`;
      const body = item.body();
      const before = await written(item);
      const lock = await server.pool.connect();
      let inFlight: Promise<HttpResult> | undefined;
      try {
        await lock.query('BEGIN');
        await lock.query(`LOCK TABLE ${item.table} IN ACCESS EXCLUSIVE MODE`);
        inFlight = post(item, body, key);
        await waitFor(
          'the first request to claim its key',
          async () => (await server.pool.query("SELECT 1 FROM idempotency_keys WHERE key = $1 AND state = 'running'", [key])).rowCount,
          (count) => count === 1,
        );
        const meanwhile = await post(item, body, key);
        keyProblem(meanwhile, 409, 'Conflict', 'The request with this Idempotency-Key is still being processed', 'idempotency-key-in-use');
        assert.equal(meanwhile.headers.get('retry-after'), '1');
      } finally {
        await lock.query('COMMIT');
        lock.release();
      }
      const finished = await inFlight;
      assert.equal(finished?.status, item.status, finished?.text);
      const replayed = await post(item, body, key);
      assert.equal(replayed.text, finished?.text);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal(await written(item), before + 1);
    });

    it("keeps another client's same key apart", async () => {
      const key = `shared-${++counter}`;
      const before = await written(item);
      const mine = await post(item, item.body(), key);
      assert.equal(mine.status, item.status, mine.text);
      const theirs = await post(item, item.body(), key, second);
      assert.equal(theirs.status, item.status, theirs.text);
      assert.equal(theirs.headers.get('idempotent-replayed'), null);
      assert.equal(await written(item), before + 2);
    });

    it('refuses an empty, too long or non-printable key (400) before anything runs', async () => {
      const before = await written(item);
      for (const [key, reason] of [
        ['', 'must not be empty'],
        ['k'.repeat(256), 'must be at most 255 characters'],
        ['tab\there', 'must be printable ASCII characters only'],
      ] as const) {
        assertProblem(
          await post(item, item.body(), key),
          400,
          'Bad request',
          'Your request has not been validated',
          { errors: [{ name: 'Idempotency-Key', reason }], errorSource: 'header' },
          'bad-request',
        );
      }
      const longest = await post(item, item.body(), `${++counter}`.padEnd(255, 'k'));
      assert.equal(longest.status, item.status, longest.text);
      assert.equal(await written(item), before + 1);
    });
  });
}

// The validating POSTs write nothing: their answers are kept and replayed all the same.
for (const [root, url, body] of [
  ['/caas/v4', '/classifieds/validate', classified],
  ['/import-listings/v1', '/listings/validate', () => listingWithMedia(`V-${++counter}`, [])],
] as const) {
  it(`replays POST ${url} under the same key, and refuses another body (422)`, async () => {
    const item: PostCase = { name: url, root, path: () => url, body, status: 200, written: '', table: '' };
    const key = `validate-${++counter}`;
    const sent = body();
    const original = await post(item, sent, key);
    assert.equal(original.status, 200, original.text);
    const again = await post(item, sent, key);
    assert.equal(again.text, original.text);
    assert.deepEqual(kept(again), { ...kept(original), 'idempotent-replayed': 'true' });
    keyProblem(
      await post(item, body(), key),
      422,
      'Unprocessable entity',
      'This Idempotency-Key was used for a request with another body',
      'idempotency-key-reused',
    );
  });
}

describe('stored answers', () => {
  it('stores a 4xx answer (a refused body) and replays it', async () => {
    const leads = CASES.find((item) => item.name === 'POST /leads')!;
    const key = `refused-${++counter}`;
    const refused = await post(leads, { firstName: 'Anna' }, key);
    assert.equal(refused.status, 400, refused.text);
    const again = await post(leads, { firstName: 'Anna' }, key);
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, refused.body);
  });

  it('lets a retry take over a key left running past its lease (its process died): the request runs again', async () => {
    const leads = CASES.find((item) => item.name === 'POST /leads')!;
    const key = `abandoned-${++counter}`;
    const body = leads.body();
    assert.equal((await post(leads, body, key)).status, 200);
    const before = await written(leads);
    // What a process that died between the write and storing its answer leaves behind.
    await server.pool.query(
      "UPDATE idempotency_keys SET state = 'running', answer = NULL, started_at = now() - interval '1 hour' WHERE key = $1",
      [key],
    );
    keyProblem(
      await post(leads, leads.body(), key),
      422,
      'Unprocessable entity',
      'This Idempotency-Key was used for a request with another body',
      'idempotency-key-reused',
    );
    const retried = await post(leads, body, key);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal(await written(leads), before + 1);
    assert.equal((await post(leads, body, key)).headers.get('idempotent-replayed'), 'true');
  });

  it('keeps the answers sealed at rest', async () => {
    const { rows } = await server.pool.query<{ answer: string }>("SELECT answer FROM idempotency_keys WHERE state = 'done'");
    assert.ok(rows.length > 0);
    for (const row of rows) assert.match(row.answer, /^ig1\./);
  });

  it('sweeps expired keys, after which the key runs a new request', async () => {
    const leads = CASES.find((item) => item.name === 'POST /leads')!;
    const key = `expiring-${++counter}`;
    const body = leads.body();
    assert.equal((await post(leads, body, key)).status, 200);
    const before = await written(leads);
    await server.pool.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    const fresh = await post(leads, body, key);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    assert.equal(await written(leads), before + 1);
    await server.pool.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    const { rows: all } = await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys');
    await pruneIdempotencyKeys.run({
      pool: server.pool,
      logger: createLogger({ logLevel: 'silent' }),
      config: server.config,
      workerId: 'test',
      leaseSeconds: 60,
      signal: new AbortController().signal,
    } as Parameters<typeof pruneIdempotencyKeys.run>[0]);
    const { rows: left } = await server.pool.query<{ n: number; expired: number }>(
      'SELECT count(*)::int AS n, count(*) FILTER (WHERE key = $1)::int AS expired FROM idempotency_keys',
      [key],
    );
    assert.deepEqual(left, [{ n: (all[0]?.n ?? 0) - 1, expired: 0 }]);
  });
});

describe('the size of what is kept', () => {
  // A small bound, to see a refusal larger than it kept as its status and type.
  const small = useServer({ env: { IDEMPOTENT_ANSWER_MAX_BYTES: '1024' } });
  const leads = () => CASES.find((item) => item.name === 'POST /leads')!;
  /** A lead with `n` unknown members whose names have `length` characters. */
  const padded = (n: number, length: number) =>
    leadRequest(Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i}`.padStart(4, '0') + 'x'.repeat(length - 4), 1])));

  it('cuts the client text a refusal repeats to 256 characters, so a refused megabyte keeps under 64 KB', async () => {
    const key = `large-refusal-${++counter}`;
    const body = padded(100, 9_000);
    const refused = await post(leads(), body, key);
    const errors = (refused.body as { errors: { name: string; reason: string }[] }).errors;
    const expected = errors.map((_, i) => {
      const name = `/${`${i}`.padStart(4, '0')}${'x'.repeat(8_996)}`;
      return { name: `${name.slice(0, 256 - ' (9001 characters)'.length - 1)}… (9001 characters)`, reason: errors[i]?.reason ?? '' };
    });
    assertProblem(refused, 400, 'Bad request', 'Your request has not been validated', { errors: expected, errorSource: 'body' });
    assert.equal(errors.length, 100);
    for (const error of errors) assert.ok(error.reason.length <= 256, error.reason);
    const { rows } = await server.pool.query<{ bytes: number }>(
      'SELECT octet_length(answer) AS bytes FROM idempotency_keys WHERE key = $1',
      [key],
    );
    assert.ok((rows[0]?.bytes ?? 0) < 100_000, `stored ${rows[0]?.bytes} bytes`);
    const again = await post(leads(), body, key);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, refused.body);
  });

  it('keeps an answer over IDEMPOTENT_ANSWER_MAX_BYTES as its status and problem type, and its replay says so', async () => {
    await small.ready();
    const client = await makeClient(small.server.pool, ['agency-1'], SCOPES);
    const bearer = await getToken(small.server, client, { root: '/seeker-leads/v1', intermediary: 'agency-1' });
    const send = () =>
      http('POST', `${small.server.base}/seeker-leads/v1/leads`, {
        headers: { authorization: `Bearer ${bearer}`, 'idempotency-key': 'over-the-bound' },
        body: padded(20, 100),
      });
    const refused = await send();
    assert.equal(refused.status, 400, refused.text);
    const bytes = Buffer.byteLength(refused.text);
    assert.ok(bytes > 1024, `${bytes}`);
    const again = await send();
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assertProblem(
      again,
      400,
      'Bad request',
      `The first answer to this Idempotency-Key had ${bytes} bytes, more than are kept: its status and problem type are replayed, not its body. Send the request with a new key to see it whole`,
    );
  });
});
