/*
 * The classifieds read endpoints through real HTTP: GET /classifieds (keyset pages that stay
 * correct while writes go on), GET /classifieds/{id} (ETag, If-None-Match) and
 * GET /classifieds/{id}/statuses (filters, pages), tenant isolation, and every 200 body checked
 * against the real contract. The first server runs no worker, so acknowledged writes stay
 * unprocessed; the statuses of processed writes come from a second server with its worker on.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { assertContract } from '../fixtures/contract.js';
import { minimalClassified, realisticClassified } from '../fixtures/classifieds.js';
import {
  TRACEPARENT,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  type HttpResult,
  type TestDatabase,
  type TestServer,
  useServer,
  assertProblem,
} from '../helpers.js';

type Body = Record<string, any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-2', 'agency-paging'], scopes: ['caas:*'] } });
let server: TestServer;
let token: string;
let pagingToken: string;
let otherAgencyToken: string;
let otherClientToken: string;
let sandboxToken: string;
let createOnlyToken: string;
let estateCounter = 0;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  const other = await makeClient(server.pool, ['agency-3'], ['caas:*']);
  token = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1' });
  pagingToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-paging' });
  otherAgencyToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-2' });
  otherClientToken = await getToken(server, other, { root: '/caas/v4', intermediary: 'agency-3' });
  sandboxToken = await fixture.token({ root: '/sandbox/caas/v4', intermediary: 'agency-1' });
  createOnlyToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1', scope: 'caas:classifieds:create' });
});

/** A minimal classified with an offererEstateId of its own. */
function classified(prefix = 'R'): Body {
  const body = minimalClassified();
  body.data.metaData.source.offererEstateId = `${prefix}-${++estateCounter}`;
  return body;
}

function call(
  target: TestServer,
  method: string,
  path: string,
  options: { bearer: string; root?: string; body?: unknown; headers?: Record<string, string> },
): Promise<HttpResult> {
  return http(method, `${target.base}${options.root ?? '/caas/v4'}${path}`, {
    headers: { authorization: `Bearer ${options.bearer}`, ...options.headers },
    body: options.body,
  });
}

function get(path: string, bearer = token, headers: Record<string, string> = {}, root?: string): Promise<HttpResult> {
  return call(server, 'GET', path, { bearer, headers, root });
}

async function write(
  target: TestServer,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  bearer: string,
  body?: Body,
  root?: string,
): Promise<string> {
  const result = await call(target, method, path, { bearer, body, root });
  assert.equal(result.status, 202, result.text);
  return (result.body as { classifiedId: string }).classifiedId;
}

function post(body: Body, bearer = token, root?: string): Promise<string> {
  return write(server, 'POST', '/classifieds', bearer, body, root);
}

function ok(result: HttpResult, operationId: string): Body {
  assert.equal(result.status, 200, result.text);
  assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.match(result.headers.get('traceparent') ?? '', TRACEPARENT);
  assertContract(operationId, 200, result.body);
  return result.body as Body;
}

function notFound(result: HttpResult, id: string, operationId: string): void {
  assertProblem(result, 404, 'Not found', `No classified ${id}`);
  assertContract(operationId, 404, result.body);
}

function parameterProblem(result: HttpResult, name: string, reason: string): void {
  assertProblem(result, 400, 'Bad request', 'Your request has not been validated', {
    errors: [{ name, reason }],
    errorSource: 'requestParameter',
  });
}

/** The status values of the contract, in its order (enum problems list them so). */
const STATUS_VALUES = [
  'RECEIVING',
  'RECEIVED',
  'RECEIVING_FAILED',
  'CREATING',
  'CREATED',
  'CREATED_WITH_MEDIA_ERROR',
  'CREATING_FAILED',
  'UPDATING',
  'UPDATED',
  'UPDATED_WITH_MEDIA_ERROR',
  'UPDATING_FAILED',
  'DELETING',
  'DELETED',
  'DELETING_FAILED',
] as const;

const BAD_TOKEN = 'is not a nextToken this endpoint returned.';

describe('members the contract leaves open', () => {
  it('are accepted where the real document accepts them and come back as sent', async () => {
    const body = classified('OPEN');
    body.data.location.geometry = { type: 'Point', coordinates: [2.37, 48.86], bbox: [2.3, 48.8, 2.4, 48.9] };
    body.data.links = { brochure: 'https://example.org/brochure.pdf' };
    const id = await post(body);
    const read = await get(`/classifieds/${id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, { ...body, classifiedId: id });
  });
});

describe('GET /classifieds: keyset pages, newest first, while writes go on', () => {
  /** The paging offerer's classifieds, oldest first, with their current payloads. */
  const created: string[] = [];
  const payloads = new Map<string, Body>();

  async function postPaging(prefix: string): Promise<string> {
    const body = classified(prefix);
    const id = await post(body, pagingToken);
    payloads.set(id, body);
    return id;
  }

  function item(id: string): Body {
    return { ...payloads.get(id), classifiedId: id };
  }

  async function page(limit: number | undefined, nextToken?: string): Promise<Body> {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (nextToken !== undefined) query.set('nextToken', nextToken);
    return ok(await get(`/classifieds?${query}`, pagingToken), 'getClassifieds');
  }

  /**
   * Reads every page while classifieds are added (one before each page, and a bounded loop
   * alongside) and not-yet-read ones are updated; the pages must hold exactly the classifieds
   * that existed when paging began, newest first, each once, each with its payload as of its read.
   */
  async function pageThroughWhileWriting(limit: number): Promise<void> {
    const expected = [...created].reverse();
    const added: string[] = [];
    let stop = false;
    // Started once the first page is read: a classified posted before it would rightly be on it.
    let alongside: Promise<string[]> | undefined;
    const writeAlongside = async () => {
      const ids: string[] = [];
      for (let i = 0; i < 40 && !stop; i++) ids.push(await postPaging('ALONGSIDE'));
      return ids;
    };

    const seen: Body[] = [];
    const sizes: number[] = [];
    let nextToken: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const body = await page(limit, nextToken);
      seen.push(...body.items);
      sizes.push(body.items.length);
      nextToken = body.nextToken;
      if (nextToken === undefined) break;
      assert.deepEqual(Object.keys(body).sort(), ['items', 'nextToken']);
      alongside ??= writeAlongside();
      added.push(await postPaging('BETWEEN'));
      // An update of a classified further down: it keeps its place and shows its new payload.
      const ahead = expected[seen.length + limit];
      if (ahead !== undefined && pages % 3 === 0) {
        const changed = structuredClone(payloads.get(ahead)!);
        changed.data.prices.rent.baseRent.amount += 1;
        await write(server, 'PUT', `/classifieds/${ahead}`, pagingToken, changed);
        payloads.set(ahead, changed);
      }
    }
    stop = true;
    added.push(...((await alongside) ?? []));

    const full = Math.floor(expected.length / limit);
    assert.deepEqual(sizes, [...Array<number>(full).fill(limit), ...(expected.length % limit === 0 ? [] : [expected.length % limit])]);
    assert.deepEqual(
      seen.map((entry) => entry.classifiedId),
      expected,
    );
    assert.deepEqual(seen, expected.map(item));
    // Writes made at once are created in an order HTTP cannot see: the database's seq says it.
    const order = await creationOrder();
    assert.deepEqual(new Set(order), new Set([...created, ...added]));
    created.splice(0, created.length, ...order);
  }

  async function creationOrder(): Promise<string[]> {
    const { rows } = await server.pool.query<{ id: string }>("SELECT id FROM classifieds WHERE agency_id = 'agency-paging' ORDER BY seq");
    return rows.map((row) => row.id);
  }

  before(async () => {
    for (let i = 0; i < 600; i++) created.push(await postPaging('PAGED'));
  });

  it('gives the 250 newest by default, with a nextToken', async () => {
    const body = await page(undefined);
    assert.deepEqual(body.items, [...created].reverse().slice(0, 250).map(item));
    assert.equal(typeof body.nextToken, 'string');
  });

  it('pages through 600+ classifieds with limit 250 while others are added and updated: nothing lost, repeated or new', async () => {
    await pageThroughWhileWriting(250);
  });

  it('pages through them with a small limit while others are added and updated', async () => {
    await pageThroughWhileWriting(7);
  });

  it('then lists all, those added meanwhile first, and ends without a nextToken', async () => {
    const all: Body[] = [];
    let nextToken: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const body = await page(250, nextToken);
      all.push(...body.items);
      nextToken = body.nextToken;
      if (nextToken === undefined) {
        assert.deepEqual(Object.keys(body), ['items']);
        break;
      }
    }
    assert.deepEqual(all, [...created].reverse().map(item));
  });

  it('ends with the page that holds exactly the rest, without a nextToken', async () => {
    // Skipped to the last 100, whatever the earlier tests added (a page holds 250 at most).
    const rest = [...created].reverse().slice(-100).map(item);
    let nextToken: string | undefined;
    for (let skipped = 0; skipped < created.length - rest.length; ) {
      const body = await page(Math.min(250, created.length - rest.length - skipped), nextToken);
      skipped += body.items.length;
      nextToken = body.nextToken;
    }
    assert.deepEqual(await page(rest.length, nextToken), { items: rest });
    const short = await page(rest.length - 1, nextToken);
    assert.deepEqual(short.items, rest.slice(0, -1));
    assert.deepEqual(await page(1, short.nextToken), { items: rest.slice(-1) });
  });

  it('filters by offererEstateId', async () => {
    const id = created[123]!;
    const estateId = payloads.get(id)!.data.metaData.source.offererEstateId as string;
    assert.deepEqual(ok(await get(`/classifieds?offererEstateId=${estateId}`, pagingToken), 'getClassifieds'), { items: [item(id)] });
    assert.deepEqual(ok(await get('/classifieds?offererEstateId=NOBODY', pagingToken), 'getClassifieds'), { items: [] });
    // Another offerer's offererEstateId finds nothing.
    assert.deepEqual(ok(await get(`/classifieds?offererEstateId=${estateId}`), 'getClassifieds'), { items: [] });
    parameterProblem(await get('/classifieds?offererEstateId=', pagingToken), 'offererEstateId', 'must NOT have fewer than 1 characters.');
  });

  it('serves a limit above 250 (the contract sets no maximum) a page of 250, and nextToken continues', async () => {
    const client = await makeClient(server.pool, ['agency-many'], ['caas:*']);
    const many = await getToken(server, client, { root: '/caas/v4', intermediary: 'agency-many' });
    await server.pool.query(
      `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload)
       SELECT gen_random_uuid(), 'production', 'agency-many', 'MANY-' || g, 1,
              jsonb_set($1::jsonb, '{data,metaData,source,offererEstateId}', to_jsonb('MANY-' || g))
         FROM generate_series(1, 260) g`,
      [JSON.stringify(minimalClassified())],
    );
    for (const limit of [251, 1000, 1_000_000]) {
      const first = ok(await get(`/classifieds?limit=${limit}`, many), 'getClassifieds') as { items: unknown[]; nextToken?: string };
      assert.equal(first.items.length, 250);
      assert.equal(typeof first.nextToken, 'string');
      const rest = ok(await get(`/classifieds?limit=${limit}&nextToken=${first.nextToken}`, many), 'getClassifieds') as {
        items: unknown[];
        nextToken?: string;
      };
      assert.equal(rest.items.length, 10);
      assert.equal(rest.nextToken, undefined);
    }
  });

  it('refuses a limit below 1 or not an integer, naming limit', async () => {
    parameterProblem(await get('/classifieds?limit=0'), 'limit', 'must be >= 1.');
    parameterProblem(await get('/classifieds?limit=-3'), 'limit', 'must be >= 1.');
    parameterProblem(await get('/classifieds?limit=ten'), 'limit', 'must be integer.');
    parameterProblem(await get('/classifieds?limit=2.5'), 'limit', 'must be integer.');
  });

  it('refuses a garbled or forged nextToken naming nextToken, never a 500', async () => {
    const statusesToken = Buffer.from('s1:5').toString('base64url');
    const tokens = [
      '',
      'garbage!!',
      '%00%ff',
      Buffer.from('c1:abc').toString('base64url'),
      Buffer.from('c1:0').toString('base64url'),
      Buffer.from('c1:-5').toString('base64url'),
      Buffer.from('c1:99999999999999999999999').toString('base64url'),
      Buffer.from('c2:5').toString('base64url'),
      `${Buffer.from('c1:5').toString('base64url')}=`,
      statusesToken,
    ];
    for (const nextToken of tokens) {
      parameterProblem(await get(`/classifieds?nextToken=${encodeURIComponent(nextToken)}`, pagingToken), 'nextToken', BAD_TOKEN);
    }
    // A well-formed token names a place in the list, nothing more: below seq 1 there is nothing.
    assert.deepEqual(ok(await get(`/classifieds?nextToken=${Buffer.from('c1:1').toString('base64url')}`, pagingToken), 'getClassifieds'), {
      items: [],
    });
  });

  it('needs the scope caas:classifieds:read', async () => {
    assertProblem(await get('/classifieds', createOnlyToken), 403, 'Forbidden', 'The access token lacks the scope caas:classifieds:read');
  });
});

describe('GET /classifieds/{classifiedId}', () => {
  let id: string;
  let body: Body;

  before(async () => {
    body = realisticClassified();
    id = await post(body);
  });

  it('answers the classified as posted plus classifiedId, with ETag "1"', async () => {
    const result = await get(`/classifieds/${id}`);
    assert.deepEqual(ok(result, 'GetClassified'), { ...body, classifiedId: id });
    assert.equal(result.headers.get('etag'), '"1"');
  });

  it('lists it in GET /classifieds as the same complete body', async () => {
    const listed = ok(await get(`/classifieds?offererEstateId=${body.data.metaData.source.offererEstateId}`), 'getClassifieds');
    assert.deepEqual(listed, { items: [{ ...body, classifiedId: id }] });
  });

  it('after a PUT answers the new payload with ETag "2"', async () => {
    body = realisticClassified();
    body.data.prices.buy.price.amount = 799000;
    body.media = body.media!.slice(1);
    await write(server, 'PUT', `/classifieds/${id}`, token, body);
    const result = await get(`/classifieds/${id}`);
    assert.deepEqual(ok(result, 'GetClassified'), { ...body, classifiedId: id });
    assert.equal(result.headers.get('etag'), '"2"');
  });

  it('answers 304 without a body when If-None-Match names the current ETag, 200 otherwise', async () => {
    for (const tag of ['"2"', 'W/"2"', '"1", "2"', '*']) {
      const result = await get(`/classifieds/${id}`, token, { 'if-none-match': tag });
      assert.equal(result.status, 304, tag);
      assert.equal(result.text, '');
      assert.equal(result.headers.get('etag'), '"2"');
      assert.match(result.headers.get('traceparent') ?? '', TRACEPARENT);
    }
    for (const tag of ['"1"', '"12"', '2']) {
      const result = await get(`/classifieds/${id}`, token, { 'if-none-match': tag });
      assert.deepEqual(ok(result, 'GetClassified'), { ...body, classifiedId: id }, tag);
      assert.equal(result.headers.get('etag'), '"2"');
    }
  });

  it('still answers a classified whose DELETE is acknowledged but not yet processed, in the list too', async () => {
    const pending = classified('PENDING');
    const pendingId = await post(pending);
    await write(server, 'DELETE', `/classifieds/${pendingId}`, token);
    const result = await get(`/classifieds/${pendingId}`);
    assert.deepEqual(ok(result, 'GetClassified'), { ...pending, classifiedId: pendingId });
    assert.equal(result.headers.get('etag'), '"2"');
    const listed = ok(await get(`/classifieds?offererEstateId=${pending.data.metaData.source.offererEstateId}`), 'getClassifieds');
    assert.deepEqual(listed, { items: [{ ...pending, classifiedId: pendingId }] });
  });

  it('answers 404 for an unknown id, another agency, another client, and the other environment', async () => {
    const unknown = '0b7c5a3e-1d2f-4a6b-9c8d-7e6f5a4b3c2d';
    notFound(await get(`/classifieds/${unknown}`), unknown, 'GetClassified');
    notFound(await get(`/classifieds/${id}`, otherAgencyToken), id, 'GetClassified');
    notFound(await get(`/classifieds/${id}`, otherClientToken), id, 'GetClassified');
    notFound(await get(`/classifieds/${id}`, sandboxToken, {}, '/sandbox/caas/v4'), id, 'GetClassified');
    // Nor do the others list it.
    for (const [bearer, root] of [
      [otherAgencyToken, '/caas/v4'],
      [otherClientToken, '/caas/v4'],
      [sandboxToken, '/sandbox/caas/v4'],
    ] as const) {
      const listed = ok(await get('/classifieds', bearer, {}, root), 'getClassifieds');
      assert.equal(
        listed.items.some((entry: Body) => entry.classifiedId === id),
        false,
      );
    }
  });

  it('serves the sandbox its own classifieds', async () => {
    const sandboxBody = classified('SANDBOX');
    const sandboxId = await post(sandboxBody, sandboxToken, '/sandbox/caas/v4');
    assert.deepEqual(ok(await get(`/classifieds/${sandboxId}`, sandboxToken, {}, '/sandbox/caas/v4'), 'GetClassified'), {
      ...sandboxBody,
      classifiedId: sandboxId,
    });
    notFound(await get(`/classifieds/${sandboxId}`), sandboxId, 'GetClassified');
  });

  it('refuses a malformed id naming classifiedId', async () => {
    parameterProblem(await get('/classifieds/not-a-uuid'), 'classifiedId', 'must match format "uuid".');
  });

  it('needs the scope caas:classifieds:read', async () => {
    assertProblem(
      await get(`/classifieds/${id}`, createOnlyToken),
      403,
      'Forbidden',
      'The access token lacks the scope caas:classifieds:read',
    );
  });
});

interface StoredStatus {
  status_id: string;
  revision: number;
  status: string;
  status_date: Date;
  received_at: Date;
}

async function storedStatuses(target: TestServer, id: string): Promise<Map<string, StoredStatus>> {
  const { rows } = await target.pool.query<StoredStatus>(
    `SELECT s.status_id, s.revision, s.status, s.status_date, r.received_at
       FROM classified_statuses s JOIN classified_revisions r USING (classified_id, revision)
      WHERE s.classified_id = $1`,
    [id],
  );
  return new Map(rows.map((row) => [`${row.revision} ${row.status}`, row]));
}

/** The expected item of a status: its identity and dates as stored, everything else as given. */
function statusItem(stored: Map<string, StoredStatus>, id: string, fields: Body & { revision: number; status: string }): Body {
  const row = stored.get(`${fields.revision} ${fields.status}`);
  assert.ok(row, `no status ${fields.status} of revision ${fields.revision}`);
  assert.match(row.status_id, UUID);
  return {
    statusId: row.status_id,
    classifiedId: id,
    customerId: 'agency-1',
    creationDate: row.received_at.toISOString(),
    statusDate: row.status_date.toISOString(),
    ...fields,
  };
}

describe('GET /classifieds/{classifiedId}/statuses of an unprocessed write', () => {
  it('answers the RECEIVED status of a POST, exactly', async () => {
    const body = classified('STATUS');
    body.portals = ['BUCOM', 'SL'];
    const id = await post(body);
    const stored = await storedStatuses(server, id);
    const result = await get(`/classifieds/${id}/statuses`);
    assert.deepEqual(ok(result, 'getClassifiedStatuses'), {
      items: [
        statusItem(stored, id, {
          revision: 1,
          portals: ['BUCOM', 'SL'],
          status: 'RECEIVED',
          subStatus: 'RECEIVED_POST',
          message: 'The POST of revision 1 was received and is queued for processing',
          stage: 'processed',
        }),
      ],
    });
  });

  it('accepts the deprecated current parameter and ignores it, as the served document says', async () => {
    const id = await post(classified('CURRENT'));
    const plain = ok(await get(`/classifieds/${id}/statuses`), 'getClassifiedStatuses');
    for (const value of ['true', 'false', 'anything']) {
      assert.deepEqual(ok(await get(`/classifieds/${id}/statuses?current=${value}`), 'getClassifiedStatuses'), plain, value);
    }
  });

  it('answers 404 for an unknown id, another agency, another client and the other environment; 400 for a malformed id', async () => {
    const id = await post(classified('STATUS'));
    const unknown = '0b7c5a3e-1d2f-4a6b-9c8d-7e6f5a4b3c2d';
    notFound(await get(`/classifieds/${unknown}/statuses`), unknown, 'getClassifiedStatuses');
    notFound(await get(`/classifieds/${id}/statuses`, otherAgencyToken), id, 'getClassifiedStatuses');
    notFound(await get(`/classifieds/${id}/statuses`, otherClientToken), id, 'getClassifiedStatuses');
    notFound(await get(`/classifieds/${id}/statuses`, sandboxToken, {}, '/sandbox/caas/v4'), id, 'getClassifiedStatuses');
    notFound(await get(`/classifieds/${unknown}/statuses?status=CREATED&filter=latest`), unknown, 'getClassifiedStatuses');
    parameterProblem(await get('/classifieds/nope/statuses'), 'classifiedId', 'must match format "uuid".');
  });

  it('refuses bad filters, limits and tokens naming the parameter', async () => {
    const id = await post(classified('STATUS'));
    const statuses = `/classifieds/${id}/statuses`;
    const enumReason = (values: readonly string[]) => `must be equal to one of the allowed values: ${values.join(', ')}.`;
    const checks: Array<[string, string, string]> = [
      ['?filter=oldest', 'filter', enumReason(['latest'])],
      ['?status=DONE', 'status', enumReason(STATUS_VALUES)],
      ['?status=CREATED&status=DONE', 'status', enumReason(STATUS_VALUES)],
      ['?portal=XX', 'portal', enumReason(['SL', 'BUCOM', 'BD', 'SLC', 'SLN'])],
      ['?limit=0', 'limit', 'must be >= 1.'],
      [`?nextToken=${Buffer.from('c1:5').toString('base64url')}`, 'nextToken', BAD_TOKEN],
      ['?nextToken=%25%25', 'nextToken', BAD_TOKEN],
    ];
    for (const [query, name, reason] of checks) {
      const result = await get(statuses + query);
      parameterProblem(result, name, reason);
      assertContract('getClassifiedStatuses', 400, result.body);
    }
  });

  it('needs the scope caas:classifieds:read', async () => {
    const id = await post(classified('STATUS'));
    assertProblem(
      await get(`/classifieds/${id}/statuses`, createOnlyToken),
      403,
      'Forbidden',
      'The access token lacks the scope caas:classifieds:read',
    );
  });
});

describe('GET /classifieds/{classifiedId}/statuses of processed writes (worker on)', () => {
  let workerDatabase: TestDatabase;
  let worker: TestServer;
  let workerToken: string;
  let id: string;
  let stored: Map<string, StoredStatus>;
  /** Every status of the classified, newest first, as the API must show it. */
  let all: Body[];

  function statuses(query = ''): Promise<HttpResult> {
    return call(worker, 'GET', `/classifieds/${id}/statuses${query}`, { bearer: workerToken });
  }

  /** Polls (bounded) until the newest status of the classified is `status`. */
  async function until(status: string): Promise<void> {
    let latest: unknown;
    for (let i = 0; i < 400; i++) {
      const body = ok(await statuses('?limit=1'), 'getClassifiedStatuses');
      latest = body.items[0]?.status;
      if (latest === status) return;
      await sleep(25);
    }
    throw new Error(`classified ${id} did not reach ${status}; last status ${String(latest)}`);
  }

  before(async () => {
    workerDatabase = await createTestDatabase();
    worker = await startTestServer(workerDatabase, { worker: true });
    const client = await makeClient(worker.pool, ['agency-1'], ['caas:*']);
    workerToken = await getToken(worker, client, { root: '/caas/v4', intermediary: 'agency-1' });

    // SL accepts it; BD refuses it (no picture, no description): each outcome names its portals.
    const body = classified('WORKER');
    body.portals = ['SL', 'BD'];
    id = await write(worker, 'POST', '/classifieds', workerToken, body);
    await until('CREATED');
    body.data.prices.rent.baseRent.amount = 2100;
    await write(worker, 'PUT', `/classifieds/${id}`, workerToken, body);
    await until('UPDATED');
    stored = await storedStatuses(worker, id);

    const bdDetails =
      'BD: BD_PICTURE_REQUIRED: media must contain at least one PICTURE to publish on BD; ' +
      'BD_DESCRIPTION_LENGTH: data.texts.description must have at least 160 characters in one language to publish on BD, got 0';
    const both = ['SL', 'BD'];
    const write_ = (revision: number, operation: 'POST' | 'PUT', words: [string, string, string]) => [
      statusItem(stored, id, {
        revision,
        portals: ['SL'],
        status: words[2],
        message: 'Accepted on SL',
        mediaStatuses: [],
        stage: 'accepted',
      }),
      statusItem(stored, id, {
        revision,
        portals: ['BD'],
        status: words[1],
        subStatusDetails: bdDetails,
        message: 'Rejected on BD: 2 rules violated',
        stage: 'rejected',
      }),
      statusItem(stored, id, {
        revision,
        portals: both,
        status: words[0],
        message: `Revision ${revision} is being checked`,
        stage: 'analyzed',
      }),
      statusItem(stored, id, {
        revision,
        portals: both,
        status: 'RECEIVED',
        subStatus: `RECEIVED_${operation}`,
        message: `The ${operation} of revision ${revision} was received and is queued for processing`,
        stage: 'processed',
      }),
    ];
    all = [
      ...write_(2, 'PUT', ['UPDATING', 'UPDATING_FAILED', 'UPDATED']),
      ...write_(1, 'POST', ['CREATING', 'CREATING_FAILED', 'CREATED']),
    ];
  });

  after(async () => {
    await worker.close();
    await workerDatabase.drop();
  });

  it('answers every status, newest first, each item exact', async () => {
    assert.deepEqual(ok(await statuses(), 'getClassifiedStatuses'), { items: all });
  });

  it('filter=latest answers the statuses of the latest revision only', async () => {
    assert.deepEqual(ok(await statuses('?filter=latest'), 'getClassifiedStatuses'), { items: all.slice(0, 4) });
    assert.deepEqual(ok(await statuses('?filter=latest&status=UPDATED'), 'getClassifiedStatuses'), { items: [all[0]] });
    assert.deepEqual(ok(await statuses('?filter=latest&status=CREATED'), 'getClassifiedStatuses'), { items: [] });
  });

  it('filters by status, one value or several', async () => {
    const only = (...wanted: string[]) => ({ items: all.filter((item) => wanted.includes(item.status)) });
    assert.deepEqual(ok(await statuses('?status=CREATED'), 'getClassifiedStatuses'), only('CREATED'));
    assert.deepEqual(ok(await statuses('?status=CREATED&status=UPDATED'), 'getClassifiedStatuses'), only('CREATED', 'UPDATED'));
    assert.deepEqual(ok(await statuses('?status=RECEIVED'), 'getClassifiedStatuses'), only('RECEIVED'));
    assert.deepEqual(ok(await statuses('?status=DELETED'), 'getClassifiedStatuses'), { items: [] });
  });

  it('filters by portal: the items whose portals include one of them', async () => {
    const on = (...portals: string[]) => ({ items: all.filter((item) => item.portals.some((portal: string) => portals.includes(portal))) });
    assert.deepEqual(ok(await statuses('?portal=BD'), 'getClassifiedStatuses'), on('BD'));
    assert.equal(on('BD').items.length, 6);
    assert.deepEqual(ok(await statuses('?portal=SL'), 'getClassifiedStatuses'), on('SL'));
    assert.deepEqual(ok(await statuses('?portal=SL&portal=BD'), 'getClassifiedStatuses'), { items: all });
    assert.deepEqual(ok(await statuses('?portal=SLC'), 'getClassifiedStatuses'), { items: [] });
    assert.deepEqual(ok(await statuses('?portal=BD&status=CREATING_FAILED&status=CREATED'), 'getClassifiedStatuses'), { items: [all[5]] });
  });

  it('pages with limit and nextToken, the last page without a nextToken', async () => {
    const pages: Body[][] = [];
    let nextToken: string | undefined;
    for (let i = 0; i < 10; i++) {
      const body = ok(await statuses(`?limit=3${nextToken === undefined ? '' : `&nextToken=${nextToken}`}`), 'getClassifiedStatuses');
      pages.push(body.items);
      nextToken = body.nextToken;
      if (nextToken === undefined) break;
    }
    assert.deepEqual(pages, [all.slice(0, 3), all.slice(3, 6), all.slice(6)]);
    // Filters and pages combine.
    const first = ok(await statuses('?portal=BD&limit=4'), 'getClassifiedStatuses');
    assert.deepEqual(first.items, all.filter((item) => item.portals.includes('BD')).slice(0, 4));
    const second = ok(await statuses(`?portal=BD&limit=4&nextToken=${first.nextToken}`), 'getClassifiedStatuses');
    assert.deepEqual(second, { items: all.filter((item) => item.portals.includes('BD')).slice(4) });
  });

  it('after a processed DELETE: the classified is gone from reads, its statuses stay readable, DELETED first', async () => {
    await write(worker, 'DELETE', `/classifieds/${id}`, workerToken);
    await until('DELETED');
    stored = await storedStatuses(worker, id);
    const deleted = [
      statusItem(stored, id, {
        revision: 3,
        portals: ['SL', 'BD'],
        status: 'DELETED',
        message: 'The classified and all its media were deleted',
        stage: 'accepted',
      }),
      statusItem(stored, id, {
        revision: 3,
        portals: ['SL', 'BD'],
        status: 'DELETING',
        message: 'Revision 3 is being checked',
        stage: 'analyzed',
      }),
      statusItem(stored, id, {
        revision: 3,
        portals: ['SL', 'BD'],
        status: 'RECEIVED',
        subStatus: 'RECEIVED_DELETE',
        message: 'The DELETE of revision 3 was received and is queued for processing',
        stage: 'processed',
      }),
    ];
    assert.deepEqual(ok(await statuses(), 'getClassifiedStatuses'), { items: [...deleted, ...all] });
    assert.deepEqual(ok(await statuses('?filter=latest'), 'getClassifiedStatuses'), { items: deleted });

    const one = await call(worker, 'GET', `/classifieds/${id}`, { bearer: workerToken });
    assertProblem(one, 404, 'Not found', `No classified ${id}`);
    const listed = ok(await call(worker, 'GET', '/classifieds', { bearer: workerToken }), 'getClassifieds');
    assert.deepEqual(listed, { items: [] });
  });
});
