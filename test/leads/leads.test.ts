/*
 * The leads endpoints of the Lead API through real HTTP: POST /leads (every rule of
 * createLeadRequest), GET /leads (the 7-day period, limit, start, links, keyset pages that lose and
 * repeat nothing while leads keep arriving), GET /leads/{leadId}, the rate limit, scopes and tenant
 * isolation (agencies, sandbox and production).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { assertProblem as problem, getToken, http, makeClient, type HttpResult, type TestServer, useServer } from '../helpers.js';
import { LOCAL_DATE_TIME_PATTERN } from '../../src/platform/http/formats.js';

type Body = Record<string, any>;

const ROOT = '/seeker-leads/v1';
const SANDBOX = '/sandbox/seeker-leads/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DAY = 24 * 3600;
const WEEK = 7 * DAY;

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-2', 'agency-paging'], scopes: ['leads:*'] } });
let server: TestServer;
let token: string;
let otherAgencyToken: string;
let sandboxToken: string;
let pagingToken: string;
let readOnlyToken: string;
let createOnlyToken: string;
/** Unix seconds before any lead of this file was ingested. */
let since: number;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  since = Math.floor(Date.now() / 1000) - 1;
  token = await fixture.token({ root: ROOT, intermediary: 'agency-1' });
  otherAgencyToken = await fixture.token({ root: ROOT, intermediary: 'agency-2' });
  sandboxToken = await fixture.token({ root: SANDBOX, intermediary: 'agency-1' });
  pagingToken = await fixture.token({ root: ROOT, intermediary: 'agency-paging' });
  readOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-1', scope: 'leads:read' });
  createOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-1', scope: 'leads:create' });
});

function validLead(overrides: Body = {}): Body {
  return {
    firstName: 'Marie',
    lastName: 'Curie',
    gender: 'FEMALE',
    email: 'marie.curie@example.org',
    language: 'EN',
    phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78', verified: true }],
    message: 'Is the flat still available? I would like to visit it.',
    classifiedId: '12ABCDEFGHJK',
    submittedDate: '2024-05-01T10:00:00Z',
    ...overrides,
  };
}

function without(name: string, body: Body = validLead()): Body {
  const copy = { ...body };
  delete copy[name];
  return copy;
}

function url(path: string, root = ROOT): string {
  return `${server.base}${root}${path}`;
}

function submit(body: unknown, bearer = token, root = ROOT): Promise<HttpResult> {
  return http('POST', url('/leads', root), { headers: { authorization: `Bearer ${bearer}` }, body });
}

/** A GET of a rate-limited route, waiting out the limit: tests other than the rate limit's do not care about it. */
async function read(target: string, bearer = token): Promise<HttpResult> {
  for (let i = 0; i < 50; i++) {
    const result = await http('GET', target, { headers: { authorization: `Bearer ${bearer}` } });
    if (result.status !== 429) return result;
    await sleep(200);
  }
  throw new Error(`still rate limited: GET ${target}`);
}

function search(params: Record<string, string | number>, bearer = token, root = ROOT): Promise<HttpResult> {
  const query = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, String(value)]));
  return read(`${url('/leads', root)}?${query}`, bearer);
}

/** Submits a lead and answers its requestId. */
async function submitted(body: Body = validLead(), bearer = token, root = ROOT): Promise<string> {
  const result = await submit(body, bearer, root);
  assert.equal(result.status, 200, result.text);
  const answer = result.body as Body;
  assert.deepEqual(answer, { title: 'Lead submitted', requestId: answer.requestId });
  assert.match(answer.requestId, UUID);
  return answer.requestId;
}

/** The lead of a requestId, found through GET /leads over the file's period. */
async function leadOf(requestId: string, bearer = token, root = ROOT): Promise<Body> {
  let next: string | undefined = `${url('/leads', root)}?minDate=${since}&maxDate=${since + DAY}`;
  for (let page = 0; page < 20 && next !== undefined; page++) {
    const result = await read(next, bearer);
    assert.equal(result.status, 200, result.text);
    const found = (result.body as Body).items.find((item: Body) => item.metadata.requestId === requestId);
    if (found) return found;
    next = (result.body as Body).links.next;
  }
  throw new Error(`no lead with requestId ${requestId}`);
}

function invalid(result: HttpResult, errors: { name: string; reason: string }[], errorSource: 'body' | 'requestParameter'): void {
  problem(result, 400, 'Bad request', 'Your request has not been validated', { errors, errorSource });
}

const LONG = 'x'.repeat(101);
const GENDER_VALUES = 'must be equal to one of the allowed values: MALE, FEMALE, OTHER, PREFER_NOT_TO_DISCLOSE.';
const LANGUAGE_VALUES = 'must be equal to one of the allowed values: DE, EN, ES, FR, HE, IT, NL, PT, RU.';
const PHONE_PATTERN = 'must match pattern "^\\+?[0-9(][0-9 ()./-]*[0-9]$".';
const CLASSIFIED_PATTERN = 'must match pattern "^([0-9]{2})([1-9A-NP-Z]{10})$".';

describe('POST /leads: createLeadRequest, rule by rule', () => {
  const refusals: [string, Body, { name: string; reason: string }[]][] = [
    ['firstName empty', validLead({ firstName: '' }), [{ name: '/firstName', reason: 'must NOT have fewer than 1 characters.' }]],
    [
      'firstName of 101 characters',
      validLead({ firstName: LONG }),
      [{ name: '/firstName', reason: 'must NOT have more than 100 characters.' }],
    ],
    ['firstName not a string', validLead({ firstName: 7 }), [{ name: '/firstName', reason: 'must be string.' }]],
    ['lastName missing', without('lastName'), [{ name: '/lastName', reason: 'is required.' }]],
    ['lastName empty', validLead({ lastName: '' }), [{ name: '/lastName', reason: 'must NOT have fewer than 1 characters.' }]],
    [
      'lastName of 101 characters',
      validLead({ lastName: LONG }),
      [{ name: '/lastName', reason: 'must NOT have more than 100 characters.' }],
    ],
    ['gender outside the enum', validLead({ gender: 'male' }), [{ name: '/gender', reason: GENDER_VALUES }]],
    ['email missing', without('email'), [{ name: '/email', reason: 'is required.' }]],
    ['email malformed', validLead({ email: 'marie.curie.example.org' }), [{ name: '/email', reason: 'must match format "email".' }]],
    ['language outside the enum', validLead({ language: 'SV' }), [{ name: '/language', reason: LANGUAGE_VALUES }]],
    ['phoneNumbers missing', without('phoneNumbers'), [{ name: '/phoneNumbers', reason: 'is required.' }]],
    ['phoneNumbers empty', validLead({ phoneNumbers: [] }), [{ name: '/phoneNumbers', reason: 'must NOT have fewer than 1 items.' }]],
    [
      'more than 10 phoneNumbers',
      validLead({ phoneNumbers: Array.from({ length: 11 }, (_, i) => ({ number: `06123456${10 + i}` })) }),
      [{ name: '/phoneNumbers', reason: 'must NOT have more than 10 items.' }],
    ],
    [
      'phoneNumbers not an array',
      validLead({ phoneNumbers: { number: '0612345678' } }),
      [{ name: '/phoneNumbers', reason: 'must be array.' }],
    ],
    [
      'a phone number with an unknown member',
      validLead({ phoneNumbers: [{ number: '0612345678', extension: '12' }] }),
      [{ name: '/phoneNumbers/0/extension', reason: 'must NOT have additional properties: extension.' }],
    ],
    [
      'a phone number without number',
      validLead({ phoneNumbers: [{ type: 'MOBILE' }] }),
      [{ name: '/phoneNumbers/0/number', reason: 'is required.' }],
    ],
    [
      'a phone number that is not one',
      validLead({ phoneNumbers: [{ number: 'call me' }] }),
      [{ name: '/phoneNumbers/0/number', reason: PHONE_PATTERN }],
    ],
    [
      'a phone number type outside the enum',
      validLead({ phoneNumbers: [{ number: '0612345678' }, { type: 'FAX', number: '0112345678' }] }),
      [{ name: '/phoneNumbers/1/type', reason: 'must be equal to one of the allowed values: MOBILE, LANDLINE.' }],
    ],
    [
      'verified not a boolean',
      validLead({ phoneNumbers: [{ number: '0612345678', verified: 'yes' }] }),
      [{ name: '/phoneNumbers/0/verified', reason: 'must be boolean.' }],
    ],
    ['message missing', without('message'), [{ name: '/message', reason: 'is required.' }]],
    ['classifiedId missing', without('classifiedId'), [{ name: '/classifiedId', reason: 'is required.' }]],
    [
      'classifiedId with the letter O',
      validLead({ classifiedId: '12ABCDEFGHJO' }),
      [{ name: '/classifiedId', reason: CLASSIFIED_PATTERN }],
    ],
    [
      'classifiedId with a zero after the two digits',
      validLead({ classifiedId: '120BCDEFGHJK' }),
      [{ name: '/classifiedId', reason: CLASSIFIED_PATTERN }],
    ],
    ['classifiedId in lower case', validLead({ classifiedId: '12abcdefghjk' }), [{ name: '/classifiedId', reason: CLASSIFIED_PATTERN }]],
    [
      'classifiedId one character short',
      validLead({ classifiedId: '12ABCDEFGHJ' }),
      [{ name: '/classifiedId', reason: CLASSIFIED_PATTERN }],
    ],
    ['submittedDate missing', without('submittedDate'), [{ name: '/submittedDate', reason: 'is required.' }]],
    [
      'submittedDate a date only',
      validLead({ submittedDate: '2024-05-01' }),
      [
        { name: '/submittedDate', reason: `must match pattern "${LOCAL_DATE_TIME_PATTERN}".` },
        { name: '/submittedDate', reason: 'must match format "iso-date-time".' },
      ],
    ],
    [
      'submittedDate not a date',
      validLead({ submittedDate: 'yesterday at ten' }),
      [
        { name: '/submittedDate', reason: `must match pattern "${LOCAL_DATE_TIME_PATTERN}".` },
        { name: '/submittedDate', reason: 'must match format "iso-date-time".' },
      ],
    ],
    ['an unknown member', validLead({ budget: 300000 }), [{ name: '/budget', reason: 'must NOT have additional properties: budget.' }]],
  ];
  for (const [label, body, errors] of refusals) {
    it(`refuses ${label}`, async () => {
      invalid(await submit(body), errors, 'body');
    });
  }

  it('reports every problem of a body at once', async () => {
    const body = without('lastName', validLead({ gender: 'X', phoneNumbers: [] }));
    invalid(
      await submit(body),
      [
        { name: '/lastName', reason: 'is required.' },
        { name: '/gender', reason: GENDER_VALUES },
        { name: '/phoneNumbers', reason: 'must NOT have fewer than 1 items.' },
      ],
      'body',
    );
  });

  it('accepts the limits: names of 1 and 100 characters, a message of any length the body limit allows, every phone form and enum value', async () => {
    for (const gender of ['MALE', 'FEMALE', 'OTHER', 'PREFER_NOT_TO_DISCLOSE']) await submitted(validLead({ gender }));
    await submitted(validLead({ firstName: 'A', lastName: 'B'.repeat(100), message: 'm'.repeat(100_000), language: 'RU' }));
    await submitted(
      validLead({ phoneNumbers: [{ number: '(030) 123-456' }, { type: 'LANDLINE', number: '+49 30 1234.56/78', verified: false }] }),
    );
  });

  it('stores the lead of the token agency with language FR by default; firstName and gender are optional', async () => {
    const body = without('gender', without('firstName', without('language')));
    const requestId = await submitted({ ...body, submittedDate: '2024-05-01T12:00:00+02:00', classifiedId: '99ZYXWVUTSRP' });
    const lead = await leadOf(requestId);
    assert.ok(Date.parse(lead.metadata.ingestionDate) >= since * 1000 && Date.parse(lead.metadata.ingestionDate) <= Date.now());
    assert.match(lead.metadata.leadId, UUID);
    assert.deepEqual(lead, {
      metadata: {
        leadId: lead.metadata.leadId,
        category: 'CLASSIFIED',
        ingestionDate: lead.metadata.ingestionDate,
        submittedDate: '2024-05-01T10:00:00.000Z',
        requestId,
        agencyId: 'agency-1',
      },
      contactRequest: {
        firstName: null,
        lastName: 'Curie',
        name: 'Curie',
        gender: null,
        email: 'marie.curie@example.org',
        language: 'FR',
        phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78', verified: true }],
        message: 'Is the flat still available? I would like to visit it.',
      },
      property: { classifiedId: '99ZYXWVUTSRP' },
    });
  });

  it('reads a submittedDate without a time zone (valid ISO 8601) as UTC', async () => {
    const requestId = await submitted(validLead({ submittedDate: '2024-05-01T10:00:00' }));
    assert.equal((await leadOf(requestId)).metadata.submittedDate, '2024-05-01T10:00:00.000Z');
    const withFraction = await submitted(validLead({ submittedDate: '2024-05-01T10:00:00.250' }));
    assert.equal((await leadOf(withFraction)).metadata.submittedDate, '2024-05-01T10:00:00.250Z');
  });

  it('needs the scope leads:create', async () => {
    const result = await submit(validLead(), readOnlyToken);
    problem(result, 403, 'Forbidden', 'The access token lacks the scope leads:create');
  });
});

describe('GET /leads/{leadId}', () => {
  let lead: Body;

  before(async () => {
    lead = await leadOf(await submitted(validLead({ email: 'reader@example.org', classifiedId: '01ABCDEFGHJK' })));
  });

  it('answers the lead: metadata, contactRequest, property', async () => {
    const result = await read(url(`/leads/${lead.metadata.leadId}`));
    assert.equal(result.status, 200, result.text);
    assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(result.body, {
      metadata: {
        leadId: lead.metadata.leadId,
        category: 'CLASSIFIED',
        ingestionDate: lead.metadata.ingestionDate,
        submittedDate: '2024-05-01T10:00:00.000Z',
        requestId: lead.metadata.requestId,
        agencyId: 'agency-1',
      },
      contactRequest: {
        firstName: 'Marie',
        lastName: 'Curie',
        name: 'Marie Curie',
        gender: 'FEMALE',
        email: 'reader@example.org',
        language: 'EN',
        phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78', verified: true }],
        message: 'Is the flat still available? I would like to visit it.',
      },
      property: { classifiedId: '01ABCDEFGHJK' },
    });
  });

  it('is 404 for an unknown lead, one of another agency and one of the other environment', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    problem(await read(url(`/leads/${unknown}`)), 404, 'Not found', `No lead ${unknown}`);
    const id = lead.metadata.leadId;
    problem(await read(url(`/leads/${id}`), otherAgencyToken), 404, 'Not found', `No lead ${id}`);
    problem(await read(url(`/leads/${id}`, SANDBOX), sandboxToken), 404, 'Not found', `No lead ${id}`);
  });

  it('is 400 for a malformed leadId', async () => {
    invalid(await read(url('/leads/not-a-uuid')), [{ name: 'leadId', reason: 'must match format "uuid".' }], 'requestParameter');
  });

  it('needs the scope leads:read', async () => {
    problem(
      await read(url(`/leads/${lead.metadata.leadId}`), createOnlyToken),
      403,
      'Forbidden',
      'The access token lacks the scope leads:read',
    );
  });
});

describe('GET /leads: parameters and the 7-day period', () => {
  const period = { minDate: 1_700_000_000, maxDate: 1_700_000_000 + DAY };

  function emptyPage(result: HttpResult, query: { minDate: number; maxDate: number; limit: number }): void {
    assert.equal(result.status, 200, result.text);
    const self = `${server.base}${ROOT}/leads?minDate=${query.minDate}&maxDate=${query.maxDate}&limit=${query.limit}`;
    assert.deepEqual(result.body, { metadata: { count: 0, ...query }, links: { self }, items: [] });
  }

  it('accepts exactly 7 days and refuses 7 days and one second, naming both bounds', async () => {
    emptyPage(await search({ minDate: period.minDate, maxDate: period.minDate + WEEK }), {
      minDate: period.minDate,
      maxDate: period.minDate + WEEK,
      limit: 100,
    });
    const reason = 'must be at most 7 days (604800 seconds) apart from the other bound.';
    invalid(
      await search({ minDate: period.minDate, maxDate: period.minDate + WEEK + 1 }),
      [
        { name: 'minDate', reason },
        { name: 'maxDate', reason },
      ],
      'requestParameter',
    );
  });

  it('refuses a minDate after maxDate, naming both; equal bounds are an empty period', async () => {
    invalid(
      await search({ minDate: period.maxDate, maxDate: period.minDate }),
      [
        { name: 'minDate', reason: 'must not be after maxDate.' },
        { name: 'maxDate', reason: 'must not be before minDate.' },
      ],
      'requestParameter',
    );
    emptyPage(await search({ minDate: period.minDate, maxDate: period.minDate, limit: 5 }), {
      minDate: period.minDate,
      maxDate: period.minDate,
      limit: 5,
    });
  });

  it('requires minDate and maxDate as integers', async () => {
    invalid(
      await search({}),
      [
        { name: 'minDate', reason: 'is required.' },
        { name: 'maxDate', reason: 'is required.' },
      ],
      'requestParameter',
    );
    invalid(await search({ ...period, minDate: 'yesterday' }), [{ name: 'minDate', reason: 'must be integer.' }], 'requestParameter');
    invalid(await search({ ...period, maxDate: '1700000000.5' }), [{ name: 'maxDate', reason: 'must be integer.' }], 'requestParameter');
    invalid(await search({ ...period, minDate: -1 }), [{ name: 'minDate', reason: 'must be >= 0.' }], 'requestParameter');
  });

  it('takes a limit of 1 to 100, 100 by default', async () => {
    emptyPage(await search(period), { ...period, limit: 100 });
    emptyPage(await search({ ...period, limit: 1 }), { ...period, limit: 1 });
    invalid(await search({ ...period, limit: 0 }), [{ name: 'limit', reason: 'must be >= 1.' }], 'requestParameter');
    invalid(await search({ ...period, limit: 101 }), [{ name: 'limit', reason: 'must be <= 100.' }], 'requestParameter');
  });

  it('refuses unknown parameters and a start that is not a leadId of the agency', async () => {
    invalid(
      await search({ ...period, page: 2 }),
      [{ name: 'page', reason: 'must NOT have additional properties: page.' }],
      'requestParameter',
    );
    invalid(await search({ ...period, start: 'abc' }), [{ name: 'start', reason: 'must match format "uuid".' }], 'requestParameter');
    const notOurs = 'must be the leadId of a lead of this agency.';
    invalid(
      await search({ ...period, start: '00000000-0000-4000-8000-000000000000' }),
      [{ name: 'start', reason: notOurs }],
      'requestParameter',
    );
    const lead = await leadOf(await submitted());
    invalid(
      await search({ ...period, start: lead.metadata.leadId }, otherAgencyToken),
      [{ name: 'start', reason: notOurs }],
      'requestParameter',
    );
    invalid(
      await search({ ...period, start: lead.metadata.leadId }, sandboxToken, SANDBOX),
      [{ name: 'start', reason: notOurs }],
      'requestParameter',
    );
  });

  it('bounds the ingestion date: minDate inclusive, maxDate exclusive', async () => {
    const requestId = await submitted(validLead({ email: 'bounds@example.org' }));
    const lead = await leadOf(requestId);
    const second = Math.floor(Date.parse(lead.metadata.ingestionDate) / 1000);
    const requestIds = async (minDate: number, maxDate: number) => {
      const result = await search({ minDate, maxDate }, token);
      assert.equal(result.status, 200, result.text);
      return (result.body as Body).items.map((item: Body) => item.metadata.requestId);
    };
    assert.ok((await requestIds(second, second + 1)).includes(requestId));
    assert.ok(!(await requestIds(second + 1, second + 2)).includes(requestId));
    assert.ok(!(await requestIds(second - 1, second)).includes(requestId));
  });

  it('needs the scope leads:read', async () => {
    problem(await search(period, createOnlyToken), 403, 'Forbidden', 'The access token lacks the scope leads:read');
  });
});

describe('GET /leads: tenant isolation', () => {
  it('lists only the leads of the token agency and environment', async () => {
    const ours = await submitted(validLead({ email: 'ours@example.org' }));
    const theirs = await submitted(validLead({ email: 'theirs@example.org' }), otherAgencyToken);
    const sandboxed = await submitted(validLead({ email: 'sandbox@example.org' }), sandboxToken, SANDBOX);
    const listed = async (bearer: string, root = ROOT) => {
      const result = await search({ minDate: since, maxDate: since + DAY }, bearer, root);
      assert.equal(result.status, 200, result.text);
      return (result.body as Body).items.map((item: Body) => item.metadata.requestId);
    };
    const production = await listed(token);
    assert.ok(production.includes(ours) && !production.includes(theirs) && !production.includes(sandboxed));
    assert.deepEqual(await listed(otherAgencyToken), [theirs]);
    assert.deepEqual(await listed(sandboxToken, SANDBOX), [sandboxed]);
    const sandboxLead = await leadOf(sandboxed, sandboxToken, SANDBOX);
    assert.equal(sandboxLead.metadata.agencyId, 'agency-1');
    problem(await read(url(`/leads/${sandboxLead.metadata.leadId}`)), 404, 'Not found', `No lead ${sandboxLead.metadata.leadId}`);
  });
});

describe('GET /leads: paging 1,000 leads of one day while more arrive', () => {
  it('follows links.next through every lead once, in ingestion order, and continues after the last one later', async () => {
    const firstBatch: string[] = [];
    for (let round = 0; round < 100; round++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) => submitted(validLead({ email: `batch-${round}-${i}@example.org` }), pagingToken)),
      );
      firstBatch.push(...ids);
    }

    const minDate = since;
    const maxDate = since + DAY;
    // New leads arrive while the client pages, two at a time, besides those posted between pages.
    const arriving: string[] = [];
    const arrivals = (async () => {
      for (let round = 0; round < 60; round++) {
        const ids = await Promise.all([0, 1].map((i) => submitted(validLead({ email: `late-${round}-${i}@example.org` }), pagingToken)));
        arriving.push(...ids);
      }
    })();

    const seen: Body[] = [];
    const follow = async (first: string): Promise<void> => {
      let next: string | undefined = first;
      for (let page = 0; page < 100 && next !== undefined; page++) {
        const result = await read(next, pagingToken);
        assert.equal(result.status, 200, result.text);
        const body = result.body as Body;
        assert.equal(body.links.self, next);
        assert.equal(body.metadata.count, body.items.length);
        assert.ok(body.items.length <= 100);
        if (body.links.next !== undefined) {
          assert.equal(body.items.length, 100);
          const last = body.items.at(-1).metadata.leadId;
          assert.equal(body.links.next, `${server.base}${ROOT}/leads?minDate=${minDate}&maxDate=${maxDate}&limit=100&start=${last}`);
        }
        seen.push(...body.items);
        next = body.links.next;
        // And some arrive between this page and the next, for certain.
        if (next !== undefined) arriving.push(await submitted(validLead({ email: `between-${page}@example.org` }), pagingToken));
      }
      assert.equal(next, undefined, 'paging did not end');
    };
    await follow(`${server.base}${ROOT}/leads?minDate=${minDate}&maxDate=${maxDate}&limit=100`);
    await arrivals;
    for (let i = 0; i < 3; i++) arriving.push(await submitted(validLead({ email: `after-${i}@example.org` }), pagingToken));
    // Later, the client continues after the last lead it saw.
    await follow(`${server.base}${ROOT}/leads?minDate=${minDate}&maxDate=${maxDate}&limit=100&start=${seen.at(-1)!.metadata.leadId}`);

    const requestIds = seen.map((item) => item.metadata.requestId);
    assert.equal(new Set(requestIds).size, requestIds.length, 'a lead was listed twice');
    assert.equal(requestIds.length, firstBatch.length + arriving.length);
    assert.deepEqual(new Set(requestIds.slice(0, 1000)), new Set(firstBatch));
    assert.deepEqual(new Set(requestIds.slice(1000)), new Set(arriving));
    const dates = seen.map((item) => Date.parse(item.metadata.ingestionDate));
    assert.ok(
      dates.every((date, i) => i === 0 || date >= dates[i - 1]!),
      'not in ingestion order',
    );
  });
});

describe('rate limit (10 requests per 200 ms per caller)', () => {
  for (const [route, path] of [
    ['GET /leads', `/leads?minDate=1700000000&maxDate=1700086400`],
    ['GET /leads/{leadId}', '/leads/00000000-0000-4000-8000-000000000000'],
  ] as const) {
    it(`refuses the 11th request of a window on ${route} with a 429 problem and Retry-After; other callers pass`, async () => {
      const client = await makeClient(server.pool, ['agency-rate'], ['leads:read']);
      const mine = { authorization: `Bearer ${await getToken(server, client, { root: ROOT, intermediary: 'agency-rate' })}` };
      // Fixed windows: a burst may straddle two, but the first refusal comes after the 10 its window allows.
      let passed = 0;
      let refused: HttpResult | undefined;
      for (let i = 0; i < 500 && refused === undefined; i++) {
        const result = await http('GET', url(path), { headers: mine });
        if (result.status === 429) refused = result;
        else {
          assert.ok(result.status === 200 || result.status === 404, result.text);
          passed++;
        }
      }
      assert.ok(refused, 'no request was refused');
      assert.ok(passed >= 10, `only ${passed} requests passed before the first refusal`);
      problem(refused, 429, 'Too many requests', 'At most 10 requests per 200 ms are allowed for this caller; retry later');
      assert.equal(refused.headers.get('retry-after'), '1');
      const other = await http('GET', url('/leads?minDate=1700000000&maxDate=1700086400'), {
        headers: { authorization: `Bearer ${otherAgencyToken}` },
      });
      assert.equal(other.status, 200, other.text);
    });
  }
});
