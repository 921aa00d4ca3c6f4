/*
 * Hostile inputs against every route that takes a body, and against the router and the HTTP
 * parser: each must be answered with the exact 4xx problem naming what is wrong, never a 5xx,
 * never a half-written record. The cases come from an attacker's review of the three APIs.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ALL_SCOPES } from '../../src/platform/catalogue.js';
import { realisticClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { TRACEPARENT, USER_AGENT, assertProblem, http, type HttpResult, type TestServer, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const VALIDATION = 'Your request has not been validated';
const SURROGATE = 'must be valid Unicode (it holds a lone UTF-16 surrogate).';
const NUL = 'must not contain the NUL character (\\u0000).';
const FINITE = 'must be a finite number.';
const SAFE = 'must be an integer between -9007199254740991 and 9007199254740991 (a larger one is not read exactly).';
const DEPTH = 'must not nest deeper than 64 levels of objects and arrays.';
const TWICE = 'must not be given twice in the same object.';

const fixture = useServer({ env: { ADMIN_TOKEN }, client: { intermediaries: ['agency-1'], scopes: [...ALL_SCOPES] } });
let server: TestServer;
const tokens: Record<string, string> = {};

before(async () => {
  await fixture.ready();
  server = fixture.server;
  for (const root of ['/sandbox/caas/v4', '/sandbox/import-listings/v1', '/sandbox/seeker-leads/v1']) {
    tokens[root] = await fixture.token({ root, intermediary: 'agency-1' });
  }
});

interface BodyRoute {
  method: string;
  path: string;
  root?: string;
  admin?: boolean;
}

/** Every route of the three APIs and of the operator that takes a JSON body. */
const BODY_ROUTES: BodyRoute[] = [
  { method: 'POST', root: '/sandbox/caas/v4', path: '/classifieds' },
  { method: 'PUT', root: '/sandbox/caas/v4', path: '/classifieds/0b1bd6d4-5bd9-4f4e-9a51-1e1dc3a4b0a7' },
  { method: 'PUT', root: '/sandbox/caas/v4', path: '/webhooks' },
  { method: 'POST', root: '/sandbox/import-listings/v1', path: '/listings' },
  { method: 'PUT', root: '/sandbox/import-listings/v1', path: '/listings/EXT-1' },
  { method: 'POST', root: '/sandbox/import-listings/v1', path: '/medias' },
  { method: 'POST', root: '/sandbox/seeker-leads/v1', path: '/leads' },
  { method: 'POST', root: '/sandbox/seeker-leads/v1', path: '/webhook/subscriptions' },
  { method: 'PUT', root: '/sandbox/seeker-leads/v1', path: '/webhook/subscriptions/0b1bd6d4-5bd9-4f4e-9a51-1e1dc3a4b0a7' },
  { method: 'POST', path: '/admin/deliveries/redeliveries', admin: true },
];

function headersFor(route: BodyRoute, contentType = 'application/json'): Record<string, string> {
  const authorization = route.admin ? `Bearer ${ADMIN_TOKEN}` : `Bearer ${tokens[route.root as string]}`;
  return { authorization, 'user-agent': USER_AGENT, 'content-type': contentType };
}

async function send(route: BodyRoute, body: string | Buffer, contentType?: string): Promise<HttpResult> {
  // The lead API allows 10 requests per 200 ms per caller.
  if (route.root?.includes('seeker-leads')) await sleep(25);
  const response = await fetch(`${server.base}${route.root ?? ''}${route.path}`, {
    method: route.method,
    headers: headersFor(route, contentType),
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) };
}

function assertBodyProblem(result: HttpResult, errors: Array<{ name: string; reason: string }>, detail = VALIDATION): void {
  assertProblem(result, 400, 'Bad request', detail, { errors, errorSource: 'body' }, 'bad-request');
}

const nested = (levels: number, open: string, close: string, bottom: string) => open.repeat(levels) + bottom + close.repeat(levels);
const depthPointer = '/0'.repeat(64);

/** Raw bodies refused by what every JSON body goes through, whatever the route. */
const HOSTILE_BODIES: Array<{ name: string; raw: string; errors: Array<{ name: string; reason: string }> }> = [
  { name: 'a lone high surrogate', raw: '{"a":"x\\ud800"}', errors: [{ name: '/a', reason: SURROGATE }] },
  { name: 'a lone low surrogate in an array', raw: '{"a":["ok","\\udc00y"]}', errors: [{ name: '/a/1', reason: SURROGATE }] },
  { name: 'a reversed surrogate pair', raw: '{"a":"\\udc00\\ud800"}', errors: [{ name: '/a', reason: SURROGATE }] },
  { name: 'a lone surrogate in a member name', raw: '{"b\\ud800":1}', errors: [{ name: '/b\ud800', reason: SURROGATE }] },
  { name: 'U+0000 deep down', raw: '{"a":{"b":[{"c":"\\u0000"}]}}', errors: [{ name: '/a/b/0/c', reason: NUL }] },
  {
    name: '100,000 nested arrays with U+0000 at the bottom',
    raw: nested(100_000, '[', ']', '"\\u0000"'),
    errors: [{ name: depthPointer, reason: DEPTH }],
  },
  { name: '65 nested objects', raw: nested(65, '{"a":', '}', '1'), errors: [{ name: '/a'.repeat(64), reason: DEPTH }] },
  { name: '1e400 (Infinity)', raw: '{"a":1e400}', errors: [{ name: '/a', reason: FINITE }] },
  { name: '-1e400 (-Infinity)', raw: '{"a":[-1e400]}', errors: [{ name: '/a/0', reason: FINITE }] },
  { name: '9007199254740993 (2^53 + 1)', raw: '{"a":9007199254740993}', errors: [{ name: '/a', reason: SAFE }] },
  {
    name: 'an array of 10,001 items',
    raw: `{"a":[${'0,'.repeat(10_000)}0]}`,
    errors: [{ name: '/a', reason: 'must not hold more than 10000 items.' }],
  },
  {
    name: 'an object of 1,001 members',
    raw: `{"a":{${Array.from({ length: 1001 }, (_, i) => `"m${i}":0`).join(',')}}}`,
    errors: [{ name: '/a', reason: 'must not hold more than 1000 members.' }],
  },
  { name: 'a member given twice', raw: '{"a":1,"b":{"c":[{"d":1,"d":2}]}}', errors: [{ name: '/b/c/0/d', reason: TWICE }] },
  { name: 'a member given twice, once escaped', raw: '{"ab":1,"a\\u0062":2}', errors: [{ name: '/ab', reason: TWICE }] },
  {
    name: '__proto__',
    raw: '{"a":{"__proto__":{"admin":true}}}',
    errors: [{ name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' }],
  },
  {
    name: 'constructor.prototype',
    raw: '{"constructor":{"prototype":{"admin":true}}}',
    errors: [{ name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' }],
  },
];

describe('hostile bodies on every route that takes one', () => {
  for (const route of BODY_ROUTES) {
    describe(`${route.method} ${route.root ?? ''}${route.path}`, () => {
      for (const hostile of HOSTILE_BODIES) {
        it(`${hostile.name}: 400 naming the pointer`, async () => {
          assertBodyProblem(await send(route, hostile.raw), hostile.errors);
        });
      }

      it('invalid UTF-8 bytes: 400', async () => {
        const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')]);
        assertBodyProblem(
          await send(route, bytes),
          [{ name: '', reason: 'must be encoded in valid UTF-8.' }],
          'The body is not valid UTF-8',
        );
      });

      it('a 10 MB body: 413', async () => {
        const result = await send(route, `{"a":"${'x'.repeat(10 * 1024 * 1024)}"}`);
        assertProblem(result, 413, 'Payload too large', 'The request body exceeds 1048576 bytes');
      });

      it('a text/plain body: 400 naming the content type (errorSource contentType, as the contracts list it)', async () => {
        const result = await send(route, '{}', 'text/plain');
        assertProblem(
          result,
          400,
          'Bad request',
          VALIDATION,
          {
            errors: [{ name: 'Content-Type', reason: 'must be application/json, got "text/plain".' }],
            errorSource: 'contentType',
          },
          'bad-request',
        );
      });

      it('an empty body: 400', async () => {
        assertBodyProblem(await send(route, ''), [{ name: '', reason: 'The body is empty but the content type is application/json.' }]);
      });
    });
  }
});

describe('hostile values in the fields that are stored', () => {
  const caas = { method: 'POST', root: '/sandbox/caas/v4', path: '/classifieds' };
  const leads = { method: 'POST', root: '/sandbox/seeker-leads/v1', path: '/leads' };
  const listings = { method: 'POST', root: '/sandbox/import-listings/v1', path: '/listings' };
  const withSurrogate = (json: string, value: string) => json.replace(JSON.stringify(value), `"${value}\\ud83d"`);

  it('a lead message and last name with lone surrogates: both named, nothing stored', async () => {
    const raw = withSurrogate(withSurrogate(JSON.stringify(leadRequest()), 'Schmidt'), 'Is the flat still available?');
    assertBodyProblem(await send(leads, raw), [
      { name: '/lastName', reason: SURROGATE },
      { name: '/message', reason: SURROGATE },
    ]);
    const stored = await server.pool.query('SELECT count(*)::int AS n FROM leads');
    assert.deepEqual(stored.rows, [{ n: 0 }]);
  });

  it('a classified city and offererEstateId with lone surrogates', async () => {
    const classified = realisticClassified();
    const raw = withSurrogate(withSurrogate(JSON.stringify(classified), classified.data.location!.city!), 'IXL-231-7B');
    const result = await send(caas, raw);
    assert.equal(result.status, 400, result.text);
    assert.deepEqual((result.body as { errors: unknown[] }).errors, [
      { name: '/data/location/city', reason: SURROGATE },
      { name: '/data/metaData/source/offererEstateId', reason: SURROGATE },
    ]);
    const stored = await server.pool.query('SELECT count(*)::int AS n FROM classifieds');
    assert.deepEqual(stored.rows, [{ n: 0 }]);
  });

  it('a listing street with a lone surrogate', async () => {
    const raw = withSurrogate(JSON.stringify(berlinRentApartment()), 'Hauptstraße');
    assertBodyProblem(await send(listings, raw), [{ name: '/data/location/street', reason: SURROGATE }]);
  });

  it('a price of 1e400 is refused, not stored as null', async () => {
    const raw = JSON.stringify(realisticClassified()).replace('"amount":845000', '"amount":1e400');
    assertBodyProblem(await send(caas, raw), [{ name: '/data/prices/buy/price/amount', reason: FINITE }]);
  });

  it('a price of 2^53 + 1 is refused', async () => {
    const raw = JSON.stringify(realisticClassified()).replace('"amount":845000', '"amount":9007199254740993');
    assertBodyProblem(await send(caas, raw), [{ name: '/data/prices/buy/price/amount', reason: SAFE }]);
  });

  it('-0 and 1e-400 are numbers like any other (zero): accepted', async () => {
    const classified = realisticClassified();
    classified.data.metaData!.source!.offererEstateId = 'EST-zero';
    const raw = JSON.stringify(classified).replace('"amount":845000', '"amount":-0').replace('"amount":800000', '"amount":1e-400');
    const result = await send(caas, raw);
    assert.equal(result.status, 202, result.text);
  });

  it('5,000 media: 400 naming the bound of 300', async () => {
    const classified = realisticClassified() as unknown as { media: unknown[] };
    const one = classified.media[0];
    classified.media = Array.from({ length: 5000 }, () => one);
    assertBodyProblem(await send(caas, JSON.stringify(classified)), [{ name: '/media', reason: 'must NOT have more than 300 items.' }]);
  });

  it('100,000 empty portal objects: one error, before any validation', async () => {
    const raw = JSON.stringify({ ...realisticClassified(), portals: Array.from({ length: 100_000 }, () => ({})) });
    const result = await send(caas, raw);
    assertBodyProblem(result, [{ name: '/portals', reason: 'must not hold more than 10000 items.' }]);
    assert.ok(result.text.length < 1000);
  });

  it('5,000 empty portal objects: at most 100 errors, the last saying how many more', async () => {
    const raw = JSON.stringify({ ...realisticClassified(), portals: Array.from({ length: 5000 }, () => ({})) });
    const result = await send(caas, raw);
    assert.equal(result.status, 400);
    const errors = (result.body as { errors: Array<{ name: string; reason: string }> }).errors;
    assert.equal(errors.length, 100);
    assert.deepEqual(errors[0], { name: '/portals', reason: 'must NOT have more than 5 items.' });
    assert.deepEqual(errors[1], { name: '/portals/0', reason: 'must be equal to one of the allowed values: SL, BUCOM, BD, SLC, SLN.' });
    assert.deepEqual(errors[2], { name: '/portals/0', reason: 'must be string.' });
    // One maxItems, then an enum and a type error per item: 10,001 in all, 99 listed.
    assert.deepEqual(errors[99], { name: '', reason: '9902 more errors were found and are not listed; correct these first.' });
    assert.ok(result.text.length < raw.length, `${result.text.length} bytes answered to ${raw.length}`);
  });
});

/** One exchange on a fresh socket, bytes as given; resolves with everything the server sent until it closed. */
function exchange(bytes: string | Buffer, waitMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const url = new URL(server.base);
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
    socket.write(bytes);
    setTimeout(() => socket.destroy(), waitMs).unref();
  });
}

/** The problem a raw answer ends with, its status line's code and its Content-Type. */
function lastProblem(raw: string): { status: number; contentType: string; body: Record<string, unknown> } {
  const start = [...raw.matchAll(/HTTP\/1\.1 \d{3} /g)].at(-1)?.index ?? 0;
  const [head = '', body = ''] = raw.slice(start).split('\r\n\r\n');
  const status = Number(head.slice(9, 12));
  const contentType = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '';
  return { status, contentType, body: JSON.parse(body) as Record<string, unknown> };
}

describe('what the router and the HTTP parser refuse, as problems', () => {
  const auth = () => ({ authorization: `Bearer ${tokens['/sandbox/caas/v4']}` });

  it('a malformed percent-encoding in the path: 400', async () => {
    const result = await http('GET', `${server.base}/sandbox/caas/v4/classifieds/%ED%A0%80`, { headers: auth() });
    assertProblem(
      result,
      400,
      'Bad request',
      'The request path is not a valid URL',
      {
        errors: [{ name: 'path', reason: 'must be percent-encoded UTF-8.' }],
        errorSource: 'requestParameter',
      },
      'bad-request',
    );
  });

  it('a path parameter longer than any identifier: 414', async () => {
    const result = await http('GET', `${server.base}/sandbox/caas/v4/classifieds/${'a'.repeat(500)}`, { headers: auth() });
    assertProblem(result, 414, 'URI too long', 'A segment of the request path is longer than any identifier of these APIs');
  });

  it('U+0000 in the path and in the query: 400', async () => {
    const path = await http('GET', `${server.base}/sandbox/caas/v4/classifieds/a%00b`, { headers: auth() });
    assertProblem(
      path,
      400,
      'Bad request',
      VALIDATION,
      {
        errors: [{ name: 'classifiedId', reason: 'must not contain the NUL character (%00).' }],
        errorSource: 'requestParameter',
      },
      'bad-request',
    );
    const query = await http('GET', `${server.base}/sandbox/caas/v4/classifieds?nextToken=a%00`, { headers: auth() });
    assertProblem(
      query,
      400,
      'Bad request',
      VALIDATION,
      {
        errors: [{ name: 'nextToken', reason: 'must not contain the NUL character (%00).' }],
        errorSource: 'requestParameter',
      },
      'bad-request',
    );
  });

  it('an unknown path: 404; a known one with another method: 405; neither may be sniffed into something else', async () => {
    const unknown = await http('GET', `${server.base}/sandbox/caas/v4/nothing`, { headers: auth() });
    assertProblem(unknown, 404, 'Not found', 'No resource at GET /sandbox/caas/v4/nothing', {}, 'not-found');
    assert.equal(unknown.headers.get('x-content-type-options'), 'nosniff');
    const wrongMethod = await http('PATCH', `${server.base}/sandbox/caas/v4/webhooks`, { headers: auth() });
    assertProblem(wrongMethod, 405, 'Method not allowed', 'PATCH is not allowed here; allowed: DELETE, PUT');
  });

  const parserProblem = (raw: string, status: number, title: string, detail: string) => {
    const answer = lastProblem(raw);
    assert.equal(answer.status, status, raw);
    assert.equal(answer.contentType, 'application/problem+json');
    assert.match(String(answer.body.instance), TRACEPARENT);
    assert.deepEqual(answer.body, {
      type: `/problems/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      title,
      status,
      detail,
      instance: answer.body.instance,
    });
  };

  it('a Content-Length shorter than the body: the request is read as sent, the rest refused as a problem', async () => {
    const raw = await exchange(`GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}xxxxxxxx`);
    assert.match(raw, /^HTTP\/1\.1 200 OK/);
    parserProblem(raw, 400, 'Bad request', 'The request is not well-formed HTTP/1.1 (HPE_INVALID_METHOD)');
  });

  it('U+0000 in a header value: 400', async () => {
    const raw = await exchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Name: a\u0000b\r\n\r\n`);
    parserProblem(raw, 400, 'Bad request', 'The request is not well-formed HTTP/1.1 (HPE_INVALID_HEADER_TOKEN)');
  });

  it('headers larger than 16 KB: 431', async () => {
    const raw = await exchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    parserProblem(raw, 431, 'Request header fields too large', 'The request headers are too large');
  });

  it('not HTTP at all: 400', async () => {
    const raw = await exchange('\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003');
    parserProblem(raw, 400, 'Bad request', 'The request is not well-formed HTTP/1.1 (HPE_INVALID_METHOD)');
  });
});
