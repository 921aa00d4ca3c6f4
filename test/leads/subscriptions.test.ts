/*
 * Lead API webhook subscriptions through real HTTP: the state table of the spec (create, PUT
 * status both ways and a new apiKey, DELETE), the apiKey never returned, listing in pages,
 * validation, the URL policy, the rate limit of POST, scopes and tenant isolation.
 * ALLOW_PRIVATE_TARGETS is unset here, so private and loopback URLs are refused.
 */
import { sealerFor } from '../../src/platform/secrets/sealer.js';
import { WEBHOOK_SECRET } from '../../src/platform/secrets/stored.js';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  assertProblemBody as assertProblem,
  getToken,
  http,
  makeClient,
  type HttpResult,
  type TestClient,
  type TestServer,
  useServer,
  cachedTokens,
  assertRateLimited,
} from '../helpers.js';

interface Subscription {
  subscriptionId: string;
  url: string;
  status: 'ACTIVE' | 'INACTIVE';
  createdAt: string;
  updatedAt: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY = 'receiver-api-key-0123456789';

const fixture = useServer();
let server: TestServer;
let client: TestClient;
let readOnly: TestClient;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  client = await makeClient(
    server.pool,
    ['agency-1', 'agency-2', 'agency-pages', 'agency-burst', 'agency-body', 'agency-urls', 'agency-put'],
    ['leads:*'],
  );
  readOnly = await makeClient(server.pool, ['agency-1'], ['leads:read', 'leads:create']);
});

/** A token per agency and environment: each is also a caller of its own for the rate limit. */
const tokenFor = cachedTokens('/seeker-leads/v1', () => ({ server, client }));

async function call(
  method: string,
  path: string,
  options: { agency?: string; environment?: 'production' | 'sandbox'; body?: unknown; token?: string } = {},
) {
  const token = options.token ?? (await tokenFor(options.agency ?? 'agency-1', options.environment));
  const root = options.environment === 'sandbox' ? '/sandbox/seeker-leads/v1' : '/seeker-leads/v1';
  return http(method, `${server.base}${root}${path}`, { headers: { authorization: `Bearer ${token}` }, body: options.body });
}

function assertBodyErrors(result: HttpResult, errors: { name: string; reason: string }[], errorSource = 'body'): void {
  assertProblem(result, 400, {
    type: '/problems/bad-request',
    title: 'Bad request',
    detail: 'Your request has not been validated',
    errors,
    errorSource,
  });
}

function assertNotFound(result: HttpResult, id: string): void {
  assertProblem(result, 404, { type: '/problems/not-found', title: 'Not found', detail: `No webhook subscription ${id}` });
}

/** POST that must succeed: checks the 201 and the whole body, returns the subscription. */
async function create(body: Record<string, unknown>, agency = 'agency-1', environment?: 'production' | 'sandbox'): Promise<Subscription> {
  const result = await call('POST', '/webhook/subscriptions', { agency, environment, body });
  assert.equal(result.status, 201, result.text);
  const created = result.body as Subscription;
  assert.match(created.subscriptionId, UUID);
  assert.match(created.createdAt, ISO);
  assert.deepEqual(created, {
    subscriptionId: created.subscriptionId,
    url: body.url,
    status: body.status ?? 'ACTIVE',
    createdAt: created.createdAt,
    updatedAt: created.createdAt,
  });
  return created;
}

/** The apiKey as stored: sealed, so it is opened here with the server's key to compare. */
async function storedKey(id: string): Promise<string | undefined> {
  const { rows } = await server.pool.query<{ api_key: string }>('SELECT api_key FROM lead_webhook_subscriptions WHERE id = $1', [id]);
  const sealed = rows[0]?.api_key;
  if (sealed === undefined) return undefined;
  assert.match(sealed, /^ig1\./);
  return sealerFor(server.config).unseal(sealed, WEBHOOK_SECRET);
}

/** updated_at to the microsecond, UTC, as ISO text (sorts as it compares). */
async function storedUpdatedAt(id: string): Promise<string> {
  const { rows } = await server.pool.query<{ at: string }>(
    `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at FROM lead_webhook_subscriptions WHERE id = $1`,
    [id],
  );
  return rows[0]!.at;
}

describe('the subscription state table', () => {
  it('POST without status creates an ACTIVE subscription (201); the apiKey is stored but never returned', async () => {
    const created = await create({ url: 'https://hooks.example.org/leads', apiKey: KEY });
    assert.equal(await storedKey(created.subscriptionId), KEY);

    const list = await call('GET', '/webhook/subscriptions');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, { metadata: { count: 1, limit: 100 }, items: [created] });

    const audit = await call('GET', `/webhook/subscriptions/${created.subscriptionId}/audit`);
    assert.equal(audit.status, 200);
    assert.deepEqual(audit.body, { ...created, lastSuccessTimestamp: null, recentEvents: [] });
    assert.ok(![list.text, audit.text].some((text) => text.includes(KEY)));
  });

  it('POST with status INACTIVE creates it INACTIVE; an agency may have several subscriptions, also to one URL', async () => {
    const first = await create({ url: 'https://hooks.example.org/several', apiKey: KEY, status: 'INACTIVE' }, 'agency-2');
    const second = await create({ url: 'https://hooks.example.org/several', apiKey: `${KEY}-2`, status: 'ACTIVE' }, 'agency-2');
    const list = await call('GET', '/webhook/subscriptions', { agency: 'agency-2' });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, { metadata: { count: 2, limit: 100 }, items: [first, second] });
  });

  it('PUT status moves ACTIVE to INACTIVE and back; updatedAt changes, createdAt and url stay', async () => {
    const created = await create({ url: 'https://hooks.example.org/toggle', apiKey: KEY }, 'agency-put');
    const path = `/webhook/subscriptions/${created.subscriptionId}`;
    let previous = await storedUpdatedAt(created.subscriptionId);

    // The answer shows milliseconds; the stored time (microseconds) proves every PUT moved it.
    for (const status of ['INACTIVE', 'ACTIVE', 'ACTIVE'] as const) {
      const result = await call('PUT', path, { agency: 'agency-put', body: { status } });
      assert.equal(result.status, 200, result.text);
      const stored = await storedUpdatedAt(created.subscriptionId);
      assert.ok(stored > previous, `${stored} after ${previous}`);
      assert.deepEqual(result.body, { ...created, status, updatedAt: `${stored.slice(0, 23)}Z` });
      previous = stored;
    }
    assert.equal(await storedKey(created.subscriptionId), KEY);
  });

  it('PUT apiKey replaces the stored key without returning it; the status stays; both at once apply both', async () => {
    const created = await create({ url: 'https://hooks.example.org/rotate', apiKey: KEY, status: 'INACTIVE' }, 'agency-put');
    const path = `/webhook/subscriptions/${created.subscriptionId}`;
    const rotated = await call('PUT', path, { agency: 'agency-put', body: { apiKey: 'the-next-api-key-9876543210' } });
    assert.equal(rotated.status, 200, rotated.text);
    const rotatedAt = await storedUpdatedAt(created.subscriptionId);
    assert.ok(`${rotatedAt.slice(0, 23)}Z` >= created.updatedAt);
    assert.deepEqual(rotated.body, { ...created, updatedAt: `${rotatedAt.slice(0, 23)}Z` });
    assert.ok(!rotated.text.includes('the-next-api-key'));
    assert.equal(await storedKey(created.subscriptionId), 'the-next-api-key-9876543210');

    const both = await call('PUT', path, { agency: 'agency-put', body: { apiKey: 'a-third-api-key-abcdefghij', status: 'ACTIVE' } });
    assert.equal(both.status, 200, both.text);
    const bothAt = await storedUpdatedAt(created.subscriptionId);
    assert.ok(bothAt > rotatedAt, `${bothAt} after ${rotatedAt}`);
    assert.deepEqual(both.body, { ...created, status: 'ACTIVE', updatedAt: `${bothAt.slice(0, 23)}Z` });
    assert.equal(await storedKey(created.subscriptionId), 'a-third-api-key-abcdefghij');
  });

  it('DELETE answers the last known subscription with a message; then the id is unknown to every route (404)', async () => {
    const created = await create({ url: 'https://hooks.example.org/gone', apiKey: KEY }, 'agency-put');
    const path = `/webhook/subscriptions/${created.subscriptionId}`;
    const off = await call('PUT', path, { agency: 'agency-put', body: { status: 'INACTIVE' } });
    const last = off.body as Subscription;

    const removed = await call('DELETE', path, { agency: 'agency-put' });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body, { ...last, message: 'The subscription was deleted' });
    assert.equal(await storedKey(created.subscriptionId), undefined);

    assertNotFound(await call('DELETE', path, { agency: 'agency-put' }), created.subscriptionId);
    assertNotFound(await call('PUT', path, { agency: 'agency-put', body: { status: 'ACTIVE' } }), created.subscriptionId);
    assertNotFound(await call('GET', `${path}/audit`, { agency: 'agency-put' }), created.subscriptionId);
    const list = await call('GET', '/webhook/subscriptions', { agency: 'agency-put' });
    assert.ok(!(list.body as { items: Subscription[] }).items.some((item) => item.subscriptionId === created.subscriptionId));
  });
});

describe('GET /webhook/subscriptions in pages', () => {
  it('pages by limit in creation order with metadata.nextToken, losing and repeating none; a foreign token is a 400', async () => {
    const all: Subscription[] = [];
    for (let i = 0; i < 5; i++) all.push(await create({ url: `https://hooks.example.org/page/${i}`, apiKey: KEY }, 'agency-pages'));

    const pages: unknown[] = [];
    let query = '?limit=2';
    for (let i = 0; i < 5; i++) {
      const page = await call('GET', `/webhook/subscriptions${query}`, { agency: 'agency-pages' });
      assert.equal(page.status, 200, page.text);
      pages.push(page.body);
      const next = (page.body as { metadata: { nextToken?: string } }).metadata.nextToken;
      if (next === undefined) break;
      query = `?limit=2&nextToken=${encodeURIComponent(next)}`;
    }
    const token = (i: number) => (pages[i] as { metadata: { nextToken: string } }).metadata.nextToken;
    assert.deepEqual(pages, [
      { metadata: { count: 2, limit: 2, nextToken: token(0) }, items: all.slice(0, 2) },
      { metadata: { count: 2, limit: 2, nextToken: token(1) }, items: all.slice(2, 4) },
      { metadata: { count: 1, limit: 2 }, items: all.slice(4) },
    ]);

    // A token stays valid when the subscription it ends on is deleted meanwhile.
    assert.equal((await call('DELETE', `/webhook/subscriptions/${all[1]!.subscriptionId}`, { agency: 'agency-pages' })).status, 200);
    const resumed = await call('GET', `/webhook/subscriptions?limit=2&nextToken=${token(0)}`, { agency: 'agency-pages' });
    assert.equal(resumed.status, 200);
    assert.deepEqual(resumed.body, { metadata: { count: 2, limit: 2, nextToken: token(1) }, items: all.slice(2, 4) });

    const forged = Buffer.from(`w1|2024-02-30T00:00:00.000000|${all[0]!.subscriptionId}`).toString('base64url');
    for (const bad of ['not-a-token', forged, Buffer.from('s1:12').toString('base64url')]) {
      assertBodyErrors(
        await call('GET', `/webhook/subscriptions?nextToken=${bad}`, { agency: 'agency-pages' }),
        [{ name: 'nextToken', reason: 'is not a nextToken this endpoint returned.' }],
        'requestParameter',
      );
    }
    assertBodyErrors(await call('GET', '/webhook/subscriptions?limit=0'), [{ name: 'limit', reason: 'must be >= 1.' }], 'requestParameter');
    assertBodyErrors(
      await call('GET', '/webhook/subscriptions?limit=101'),
      [{ name: 'limit', reason: 'must be <= 100.' }],
      'requestParameter',
    );
    assertBodyErrors(
      await call('GET', `/webhook/subscriptions?start=${all[0]!.subscriptionId}`),
      [{ name: 'start', reason: 'must NOT have additional properties: start.' }],
      'requestParameter',
    );
  });
});

describe('validation', () => {
  const post = (body: unknown) => call('POST', '/webhook/subscriptions', { agency: 'agency-body', body });

  it('POST refuses unknown members, a status outside the enum, a missing url or apiKey, a url that is no URI, a bad apiKey', async () => {
    assertBodyErrors(await post({ url: 'https://hooks.example.org/x', apiKey: KEY, colour: 'red', status: 'PAUSED' }), [
      { name: '/colour', reason: 'must NOT have additional properties: colour.' },
      { name: '/status', reason: 'must be equal to one of the allowed values: ACTIVE, INACTIVE.' },
    ]);
    assertBodyErrors(await post({ status: 'ACTIVE' }), [
      { name: '/url', reason: 'is required.' },
      { name: '/apiKey', reason: 'is required.' },
    ]);
    assertBodyErrors(await post({ url: 'hooks.example.org/no-scheme', apiKey: KEY }), [
      { name: '/url', reason: 'must match format "uri".' },
    ]);
    assertBodyErrors(await post({ url: 'https://hooks.example.org/x', apiKey: '' }), [
      { name: '/apiKey', reason: 'must NOT have fewer than 1 characters.' },
    ]);
    assertBodyErrors(await post({ url: 'https://hooks.example.org/x', apiKey: 'spaces are not visible ascii' }), [
      { name: '/apiKey', reason: 'must match pattern "^[!-~]*$".' },
    ]);
    assertBodyErrors(await post({ url: 'https://hooks.example.org/x', apiKey: 'clé-non-ascii-0123456789' }), [
      { name: '/apiKey', reason: 'must match pattern "^[!-~]*$".' },
    ]);
    assertBodyErrors(await post({ url: 42, apiKey: 'k'.repeat(1025) }), [
      { name: '/url', reason: 'must be string.' },
      { name: '/apiKey', reason: 'must NOT have more than 1024 characters.' },
    ]);
    const list = await call('GET', '/webhook/subscriptions', { agency: 'agency-body' });
    assert.deepEqual(list.body, { metadata: { count: 0, limit: 100 }, items: [] });
  });

  it('POST refuses a URL that is not http(s), carries credentials, or names a private or loopback address', async () => {
    const post = (url: string) => call('POST', '/webhook/subscriptions', { agency: 'agency-urls', body: { url, apiKey: KEY } });
    const refused = async (url: string, reason: string) => assertBodyErrors(await post(url), [{ name: '/url', reason }]);
    await refused('ftp://hooks.example.org/leads', 'invalid URL: scheme ftp is not allowed, only http and https.');
    await refused('https://user:secret@hooks.example.org/leads', 'invalid URL: credentials in URLs are not supported.');
    await refused(
      'http://127.0.0.1:9/hooks',
      'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.',
    );
    await refused(
      'http://10.1.2.3/hooks',
      'refused to connect to 10.1.2.3: private address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.',
    );
    await refused(
      'http://[::1]:8080/hooks',
      'refused to connect to ::1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.',
    );
    await refused(
      'http://169.254.169.254/latest',
      'refused to connect to 169.254.169.254: link-local address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.',
    );
    const list = await call('GET', '/webhook/subscriptions', { agency: 'agency-urls' });
    assert.deepEqual(list.body, { metadata: { count: 0, limit: 100 }, items: [] });
  });

  it('PUT needs apiKey or status and nothing else; a malformed id is a 400 on every route naming it; audit limit is 1..100', async () => {
    const created = await create({ url: 'https://hooks.example.org/v', apiKey: KEY }, 'agency-body');
    const path = `/webhook/subscriptions/${created.subscriptionId}`;
    const put = (body: unknown) => call('PUT', path, { agency: 'agency-body', body });
    assertBodyErrors(await put({}), [{ name: '', reason: 'must NOT have fewer than 1 properties.' }]);
    assertBodyErrors(await put({ status: 'DELETED', url: 'https://elsewhere.example.org/' }), [
      { name: '/url', reason: 'must NOT have additional properties: url.' },
      { name: '/status', reason: 'must be equal to one of the allowed values: ACTIVE, INACTIVE.' },
    ]);
    assertBodyErrors(await put({ apiKey: '' }), [{ name: '/apiKey', reason: 'must NOT have fewer than 1 characters.' }]);
    // Nothing changed.
    const list = await call('GET', '/webhook/subscriptions', { agency: 'agency-body' });
    assert.deepEqual(list.body, { metadata: { count: 1, limit: 100 }, items: [created] });
    assert.equal(await storedKey(created.subscriptionId), KEY);

    const badId = [{ name: 'id', reason: 'must match format "uuid".' }];
    assertBodyErrors(
      await call('PUT', '/webhook/subscriptions/not-an-id', { agency: 'agency-body', body: { status: 'ACTIVE' } }),
      badId,
      'requestParameter',
    );
    assertBodyErrors(await call('DELETE', '/webhook/subscriptions/not-an-id', { agency: 'agency-body' }), badId, 'requestParameter');
    assertBodyErrors(await call('GET', '/webhook/subscriptions/not-an-id/audit', { agency: 'agency-body' }), badId, 'requestParameter');
    assertBodyErrors(
      await call('GET', `${path}/audit?limit=0`, { agency: 'agency-body' }),
      [{ name: 'limit', reason: 'must be >= 1.' }],
      'requestParameter',
    );
    assertBodyErrors(
      await call('GET', `${path}/audit?limit=101`, { agency: 'agency-body' }),
      [{ name: 'limit', reason: 'must be <= 100.' }],
      'requestParameter',
    );
    assertBodyErrors(
      await call('GET', `${path}/audit?limit=ten`, { agency: 'agency-body' }),
      [{ name: 'limit', reason: 'must be integer.' }],
      'requestParameter',
    );
    assertNotFound(
      await call('PUT', '/webhook/subscriptions/00000000-0000-4000-8000-000000000000', {
        agency: 'agency-body',
        body: { status: 'ACTIVE' },
      }),
      '00000000-0000-4000-8000-000000000000',
    );
  });

  it('every subscription route needs the scope leads:webhooks (leads:* grants it)', async () => {
    const token = await getToken(server, readOnly, { root: '/seeker-leads/v1', intermediary: 'agency-1' });
    const forbidden = { type: '/problems/forbidden', title: 'Forbidden', detail: 'The access token lacks the scope leads:webhooks' };
    const id = '00000000-0000-4000-8000-000000000000';
    assertProblem(
      await call('POST', '/webhook/subscriptions', { token, body: { url: 'https://hooks.example.org/x', apiKey: KEY } }),
      403,
      forbidden,
    );
    assertProblem(await call('GET', '/webhook/subscriptions', { token }), 403, forbidden);
    assertProblem(await call('PUT', `/webhook/subscriptions/${id}`, { token, body: { status: 'ACTIVE' } }), 403, forbidden);
    assertProblem(await call('DELETE', `/webhook/subscriptions/${id}`, { token }), 403, forbidden);
    assertProblem(await call('GET', `/webhook/subscriptions/${id}/audit`, { token }), 403, forbidden);
  });
});

describe('rate limit of POST /webhook/subscriptions (10 requests per 200 ms per caller)', () => {
  it('refuses a burst beyond the limit with 429 and Retry-After; other callers and later windows pass', async () => {
    const body = { url: 'https://hooks.example.org/burst', apiKey: KEY };
    const passed = await assertRateLimited(() => call('POST', '/webhook/subscriptions', { agency: 'agency-burst', body }), 201);
    const { rows } = await server.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM lead_webhook_subscriptions WHERE agency_id = 'agency-burst'",
    );
    assert.deepEqual(rows, [{ n: passed }]);

    // Another caller (here another agency of the same client) has its own budget.
    assert.equal((await call('POST', '/webhook/subscriptions', { agency: 'agency-urls', body })).status, 201);
    // GET is not limited by the spec.
    assert.equal((await call('GET', '/webhook/subscriptions?limit=1', { agency: 'agency-burst' })).status, 200);

    let later: HttpResult | undefined;
    for (let i = 0; i < 100; i++) {
      later = await call('POST', '/webhook/subscriptions', { agency: 'agency-burst', body });
      if (later.status === 201) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(later?.status, 201);
  });
});

describe('tenant isolation', () => {
  it("another agency, or the same agency's other environment, neither sees nor changes a subscription (404)", async () => {
    const mine = await create({ url: 'https://hooks.example.org/mine', apiKey: KEY }, 'agency-1');
    const sandbox = await create({ url: 'https://hooks.example.org/sandbox', apiKey: KEY }, 'agency-1', 'sandbox');
    const id = mine.subscriptionId;
    for (const other of [{ agency: 'agency-2' }, { agency: 'agency-1', environment: 'sandbox' as const }]) {
      assertNotFound(
        await call('PUT', `/webhook/subscriptions/${id}`, { ...other, body: { status: 'INACTIVE', apiKey: 'someone-elses-key-000000' } }),
        id,
      );
      assertNotFound(await call('GET', `/webhook/subscriptions/${id}/audit`, other), id);
      assertNotFound(await call('DELETE', `/webhook/subscriptions/${id}`, other), id);
      const list = await call('GET', '/webhook/subscriptions', other);
      assert.ok(!(list.body as { items: Subscription[] }).items.some((item) => item.subscriptionId === id));
    }
    const sandboxList = await call('GET', '/webhook/subscriptions', { agency: 'agency-1', environment: 'sandbox' });
    assert.deepEqual(sandboxList.body, { metadata: { count: 1, limit: 100 }, items: [sandbox] });
    // Untouched.
    const audit = await call('GET', `/webhook/subscriptions/${id}/audit`);
    assert.equal(audit.status, 200);
    assert.deepEqual(audit.body, { ...mine, lastSuccessTimestamp: null, recentEvents: [] });
    assert.equal(await storedKey(id), KEY);
  });
});

describe('OpenAPI document', () => {
  it('documents the subscription routes with their scope; apiKey is write-only and absent from every response', async () => {
    const result = await http('GET', `${server.base}/seeker-leads/v1/openapi.json`);
    assert.equal(result.status, 200);
    const paths = (result.body as { paths: Record<string, Record<string, Record<string, any>>> }).paths;
    const routes = Object.entries(paths)
      .filter(([path]) => path.includes('/webhook/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => [
          method,
          path,
          operation['x-scope'],
          Object.keys(operation.responses).filter((code) => code.startsWith('2')),
        ]),
      );
    assert.deepEqual(routes, [
      ['post', '/webhook/subscriptions', 'leads:webhooks', ['201']],
      ['get', '/webhook/subscriptions', 'leads:webhooks', ['200']],
      ['put', '/webhook/subscriptions/{id}', 'leads:webhooks', ['200']],
      ['delete', '/webhook/subscriptions/{id}', 'leads:webhooks', ['200']],
      ['get', '/webhook/subscriptions/{id}/audit', 'leads:webhooks', ['200']],
      ['post', '/webhook/subscriptions/{id}/test-events', 'leads:webhooks', ['202']],
    ]);
    assert.equal(paths['/webhook/subscriptions/{id}/test-events']!.post!['x-immogate-extension'], true);
    const post = paths['/webhook/subscriptions']!.post!;
    assert.equal(post.requestBody.content['application/json'].schema.properties.apiKey.writeOnly, true);
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods)) assert.ok(!JSON.stringify(operation.responses ?? {}).includes('apiKey'));
    }
  });
});
