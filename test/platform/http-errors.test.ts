/*
 * What every API answers besides its own resources: traceparent on every response, problem+json
 * for every failure (validation in the contract's words, parse and content-type failures, size,
 * unknown routes and methods, server faults) and the per-route rate limit. A probe module gives
 * the platform routes to answer for, since no API exists yet.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { APIS, type ApiDescriptor } from '../../src/platform/catalogue.js';
import type { ApiModule } from '../../src/platform/module.js';
import {
  TRACEPARENT,
  USER_AGENT,
  getToken,
  http,
  makeClient,
  rawHttp,
  type HttpResult,
  type TestClient,
  type TestServer,
  useServer,
  assertProblemBody as assertProblem,
  assertRateLimited,
} from '../helpers.js';

const BODY_LIMIT = 2048;
const INTERNAL_SECRET = 'connect ECONNREFUSED 10.0.0.5:5432 (password=hunter2) at /srv/immogate/src/secret.ts:42';

const probeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'a'],
  properties: {
    kind: { enum: ['A', 'B', 'C'] },
    count: { type: 'integer' },
    a: {
      type: 'object',
      additionalProperties: false,
      properties: { email: { type: 'string', format: 'email' }, name: { type: 'string', maxLength: 5 } },
    },
  },
} as const;

function probeRoutes(descriptor: ApiDescriptor): ApiModule['routes'] {
  return async (app) => {
    if (descriptor.id === 'caas') {
      app.get('/probe', { config: { scope: 'caas:classifieds:read' } }, async (request) => ({ tenant: request.tenant }));
      app.post('/probe', { config: { scope: 'caas:classifieds:create' }, schema: { body: probeBody } }, async (_request, reply) =>
        reply.code(202).send({ accepted: true }),
      );
      app.get(
        '/probe/search',
        {
          config: { scope: 'caas:classifieds:read' },
          schema: { querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100 } } } },
        },
        async (request) => ({ query: request.query }),
      );
      app.get('/probe/:probeId/items', { config: { scope: 'caas:classifieds:read' } }, async () => ({ items: [] }));
      app.get('/probe/boom', { config: { scope: 'caas:classifieds:read' } }, async () => {
        throw new Error(INTERNAL_SECRET);
      });
    }
    if (descriptor.id === 'leads') {
      // The lead API's published limit: 10 requests per 200 ms per caller.
      app.get('/probe/limited', { config: { scope: 'leads:read', rateLimit: { max: 10, timeWindow: 200 } } }, async () => ({ ok: true }));
    }
  };
}

const probes: ApiModule[] = APIS.map((descriptor) => ({ api: descriptor, routes: probeRoutes(descriptor) }));

const fixture = useServer({
  apis: probes,
  env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'leads:*'] },
});
let server: TestServer;
let client: TestClient;
let other: TestClient;
let caasToken: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  client = fixture.client;
  other = await makeClient(server.pool, ['agency-1'], ['leads:*']);
  caasToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1' });
});

const caas = (path: string) => `${server.base}/caas/v4${path}`;
const auth = () => ({ authorization: `Bearer ${caasToken}` });

function traceparentOf(result: HttpResult): string {
  const value = result.headers.get('traceparent') ?? '';
  assert.match(value, TRACEPARENT);
  return value;
}

const VALIDATION = { type: '/problems/bad-request', title: 'Bad request', detail: 'Your request has not been validated' } as const;

function assertBodyErrors(result: HttpResult, errors: Array<{ name: string; reason: string }>): void {
  assertProblem(result, 400, { ...VALIDATION, errors, errorSource: 'body' });
}

const post = (body: unknown) => http('POST', caas('/probe'), { headers: auth(), body });
const postRaw = (raw: string, contentType: string) =>
  http('POST', caas('/probe'), { headers: { ...auth(), 'content-type': contentType }, raw });

/** fetch labels a string body text/plain by itself, so a body without a content type goes through node:http. */
function withoutContentType(target: string, raw: string): Promise<HttpResult> {
  const headers = { ...auth(), 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(raw)) };
  return rawHttp('POST', target, headers, raw);
}

const split = (traceparent: string) => {
  const [version, trace, span, flags] = traceparent.split('-');
  return { version, trace, span, flags };
};

describe('traceparent', () => {
  it('is created when the request has none', async () => {
    const result = await http('GET', caas('/probe'), { headers: auth() });
    assert.equal(result.status, 200);
    assert.equal(split(traceparentOf(result)).version, '00');
  });

  it('each request without one starts a trace of its own', async () => {
    const first = traceparentOf(await http('GET', caas('/probe'), { headers: auth() }));
    const second = traceparentOf(await http('GET', caas('/probe'), { headers: auth() }));
    assert.notEqual(split(first).trace, split(second).trace);
  });

  it('an incoming one is continued: same trace id and flags, a span id of our own', async () => {
    for (const incoming of [
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
    ]) {
      const result = await http('GET', caas('/probe'), { headers: { ...auth(), traceparent: incoming } });
      assert.equal(result.status, 200);
      const ours = split(traceparentOf(result));
      const theirs = split(incoming);
      assert.deepEqual([ours.version, ours.trace, ours.flags], ['00', theirs.trace, theirs.flags]);
      assert.notEqual(ours.span, theirs.span);
    }
  });

  it('a malformed or invalid one is replaced by a fresh trace', async () => {
    const malformed = [
      'garbage',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01',
    ];
    for (const incoming of malformed) {
      const result = await http('GET', caas('/probe'), { headers: { ...auth(), traceparent: incoming } });
      assert.equal(result.status, 200);
      const ours = split(traceparentOf(result));
      assert.notEqual(ours.trace, '4bf92f3577b34da6a3ce929d0e0e4736', incoming);
      assert.equal(ours.flags, '01');
    }
  });

  it('a problem body carries the response traceparent, continuing the incoming trace, in instance', async () => {
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const result = await http('GET', caas('/probe'), { headers: { traceparent: incoming } });
    assertProblem(result, 401, {
      type: '/problems/unauthorized',
      title: 'Unauthorized',
      detail: 'The Authorization header with a Bearer token is required',
    });
    assert.equal(split((result.body as { instance: string }).instance).trace, split(incoming).trace);
  });

  it('is on 404s, on the token endpoint (success and error) and on the platform routes', async () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const notFound = await http('GET', `${server.base}/nowhere`, { headers: { traceparent: incoming } });
    assert.equal(notFound.status, 404);
    assert.equal(split(traceparentOf(notFound)).trace, split(incoming).trace);
    const tokenRequest = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret };
    const issued = await http('POST', `${server.base}/oauth/token`, {
      headers: { traceparent: incoming },
      body: { ...tokenRequest, audience: `${server.base}/caas/v4`, intermediary_id: 'agency-1' },
    });
    assert.equal(issued.status, 200);
    assert.equal(split(traceparentOf(issued)).trace, split(incoming).trace);
    const refused = await http('POST', `${server.base}/oauth/token`, { body: { ...tokenRequest, client_secret: 'wrong' } });
    assert.equal(refused.status, 401);
    traceparentOf(refused);
    for (const path of ['/health', '/ready', '/.well-known/jwks.json']) {
      const result = await http('GET', server.base + path);
      assert.equal(result.status, 200, path);
      traceparentOf(result);
    }
  });
});

describe('validation problems', () => {
  it('a valid body is accepted', async () => {
    const result = await post({ kind: 'A', count: 3, a: { email: 'someone@example.com', name: 'Bob' } });
    assert.equal(result.status, 202);
    assert.deepEqual(result.body, { accepted: true });
  });

  it('an unknown member at the top is named by its own pointer', async () => {
    assertBodyErrors(await post({ kind: 'A', a: {}, spaceship: true }), [
      { name: '/spaceship', reason: 'must NOT have additional properties: spaceship.' },
    ]);
  });

  it('an unknown member deeper down is named by its own pointer', async () => {
    assertBodyErrors(await post({ kind: 'A', a: { spaceship: { warp: 9 } } }), [
      { name: '/a/spaceship', reason: 'must NOT have additional properties: spaceship.' },
    ]);
  });

  it('an enum failure lists the allowed values', async () => {
    assertBodyErrors(await post({ kind: 'D', a: {} }), [{ name: '/kind', reason: 'must be equal to one of the allowed values: A, B, C.' }]);
  });

  it('a wrong type is not coerced', async () => {
    assertBodyErrors(await post({ kind: 'A', a: {}, count: '3' }), [{ name: '/count', reason: 'must be integer.' }]);
  });

  it('a missing required member is named by the pointer it should have', async () => {
    assertBodyErrors(await post({ a: {} }), [{ name: '/kind', reason: 'is required.' }]);
  });

  it('a format failure', async () => {
    assertBodyErrors(await post({ kind: 'A', a: { email: 'not-an-address' } }), [
      { name: '/a/email', reason: 'must match format "email".' },
    ]);
  });

  it('every error of the body is reported in one response', async () => {
    const result = await post({ kind: 'Z', count: 1.5, a: { email: 'nope', name: 'far too long', spaceship: 1 }, extra: null });
    assertBodyErrors(result, [
      { name: '/extra', reason: 'must NOT have additional properties: extra.' },
      { name: '/kind', reason: 'must be equal to one of the allowed values: A, B, C.' },
      { name: '/count', reason: 'must be integer.' },
      { name: '/a/spaceship', reason: 'must NOT have additional properties: spaceship.' },
      { name: '/a/email', reason: 'must match format "email".' },
      { name: '/a/name', reason: 'must NOT have more than 5 characters.' },
    ]);
  });

  it('a body that is not an object', async () => {
    assertBodyErrors(await post(['A']), [{ name: '', reason: 'must be object.' }]);
  });

  it('a query parameter failure has errorSource requestParameter and names the parameter', async () => {
    const result = await http('GET', caas('/probe/search?limit=abc'), { headers: auth() });
    assertProblem(result, 400, { ...VALIDATION, errors: [{ name: 'limit', reason: 'must be integer.' }], errorSource: 'requestParameter' });
    const tooSmall = await http('GET', caas('/probe/search?limit=0'), { headers: auth() });
    assertProblem(tooSmall, 400, { ...VALIDATION, errors: [{ name: 'limit', reason: 'must be >= 1.' }], errorSource: 'requestParameter' });
    const fine = await http('GET', caas('/probe/search?limit=7'), { headers: auth() });
    assert.equal(fine.status, 200);
    assert.deepEqual(fine.body, { query: { limit: 7 } });
  });
});

describe('body, content type and routing problems', () => {
  it('malformed JSON names the parse error', async () => {
    const raw = '{"kind": "A", "a": {}';
    let parseError = '';
    try {
      JSON.parse(raw);
    } catch (error) {
      parseError = (error as Error).message;
    }
    assertProblem(await postRaw(raw, 'application/json'), 400, {
      type: '/problems/bad-request',
      title: 'Bad request',
      detail: 'The body is not valid JSON',
      errors: [{ name: '', reason: `is not valid JSON: ${parseError}.` }],
      errorSource: 'body',
    });
  });

  it('a NUL character in a string or member name, which PostgreSQL cannot store, named by its pointer', async () => {
    assertBodyErrors(await postRaw('{"kind": "A", "a": {"name": "ab\\u0000c"}}', 'application/json'), [
      { name: '/a/name', reason: 'must not contain the NUL character (\\u0000).' },
    ]);
    assertBodyErrors(await postRaw('{"kind": "A", "a": {}, "x\\u0000": 1}', 'application/json'), [
      { name: '/x\u0000', reason: 'must not contain the NUL character (\\u0000).' },
    ]);
  });

  it('a NUL character in a query or path parameter', async () => {
    const query = await http('GET', caas('/probe/search?limit=1&q=a%00b'), { headers: auth() });
    assertProblem(query, 400, {
      type: '/problems/bad-request',
      title: 'Bad request',
      detail: 'Your request has not been validated',
      errors: [{ name: 'q', reason: 'must not contain the NUL character (%00).' }],
      errorSource: 'requestParameter',
    });
    const path = await http('GET', caas('/probe/a%00b/items'), { headers: auth() });
    assertProblem(path, 400, {
      type: '/problems/bad-request',
      title: 'Bad request',
      detail: 'Your request has not been validated',
      errors: [{ name: 'probeId', reason: 'must not contain the NUL character (%00).' }],
      errorSource: 'requestParameter',
    });
  });

  it('an empty JSON body', async () => {
    assertBodyErrors(await postRaw('', 'application/json'), [
      { name: '', reason: 'The body is empty but the content type is application/json.' },
    ]);
  });

  it('a JSON body with __proto__ is refused (prototype poisoning)', async () => {
    assertBodyErrors(await postRaw('{"kind": "A", "a": {"__proto__": {"isAdmin": true}}}', 'application/json'), [
      { name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' },
    ]);
  });

  it('a JSON body with constructor.prototype is refused too', async () => {
    assertBodyErrors(await postRaw('{"kind": "A", "a": {}, "constructor": {"prototype": {"isAdmin": true}}}', 'application/json'), [
      { name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' },
    ]);
  });

  it('JSON with a charset parameter is JSON', async () => {
    const result = await postRaw('{"kind": "B", "a": {}}', 'application/json; charset=utf-8');
    assert.equal(result.status, 202);
  });

  for (const [name, contentType, raw] of [
    ['text/plain', 'text/plain', '{"kind": "A", "a": {}}'],
    ['a form', 'application/x-www-form-urlencoded', 'kind=A'],
    ['XML', 'application/xml', '<kind>A</kind>'],
  ] as const) {
    it(`a body sent as ${name} is a 400 with errorSource contentType, as the contracts list it`, async () => {
      assertProblem(await postRaw(raw, contentType), 400, {
        ...VALIDATION,
        errors: [{ name: 'Content-Type', reason: `must be application/json, got "${contentType}".` }],
        errorSource: 'contentType',
      });
    });
  }

  it('a body without a content type is a 400 with errorSource contentType', async () => {
    const result = await withoutContentType(caas('/probe'), '{"kind": "A", "a": {}}');
    assertProblem(result, 400, {
      ...VALIDATION,
      errors: [{ name: 'Content-Type', reason: 'must be application/json, none was given.' }],
      errorSource: 'contentType',
    });
  });

  it('an oversized body is refused with 413', async () => {
    const result = await post({ kind: 'A', a: { name: 'x'.repeat(BODY_LIMIT) } });
    assertProblem(result, 413, {
      type: '/problems/payload-too-large',
      title: 'Payload too large',
      detail: `The request body exceeds ${BODY_LIMIT} bytes`,
    });
  });

  it('an unknown path is a 404 problem', async () => {
    for (const path of ['/caas/v4/nowhere', '/nowhere', '/sandbox/caas/v4/probe/boom/deeper']) {
      const result = await http('GET', server.base + path, { headers: auth() });
      assertProblem(result, 404, { type: '/problems/not-found', title: 'Not found', detail: `No resource at GET ${path}` });
    }
  });

  it('GET / and HEAD / redirect (302) to the console', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await fetch(`${server.base}/`, { method, redirect: 'manual' });
      assert.equal(response.status, 302, method);
      assert.equal(response.headers.get('location'), '/console', method);
      assert.equal(await response.text(), '', method);
    }
    const followed = await fetch(`${server.base}/`);
    assert.equal(followed.url, `${server.base}/console`);
    assert.equal(followed.status, 200);
    assert.equal(followed.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await followed.text(), /^<!doctype html>/i);
  });

  it('a known path with another method is a 405 problem with Allow', async () => {
    const result = await http('DELETE', caas('/probe'), { headers: auth() });
    assertProblem(result, 405, {
      type: '/problems/method-not-allowed',
      title: 'Method not allowed',
      detail: 'DELETE is not allowed here; allowed: GET, HEAD, POST',
    });
    assert.equal(result.headers.get('allow'), 'GET, HEAD, POST');
    const parameterised = await http('PUT', caas('/probe/8d1c4a52/items'), { headers: auth() });
    assertProblem(parameterised, 405, {
      type: '/problems/method-not-allowed',
      title: 'Method not allowed',
      detail: 'PUT is not allowed here; allowed: GET, HEAD',
    });
    assert.equal(parameterised.headers.get('allow'), 'GET, HEAD');
  });

  it('a server fault is a 500 problem showing nothing internal', async () => {
    const result = await http('GET', caas('/probe/boom'), { headers: auth() });
    assertProblem(result, 500, {
      type: '/problems/internal-server-error',
      title: 'Internal server error',
      detail: 'The server could not complete the request; quote the instance when reporting it',
    });
    assert.ok(!result.text.includes('hunter2') && !result.text.includes('ECONNREFUSED') && !result.text.includes('secret.ts'));
  });
});

describe('rate limit (10 requests per 200 ms per caller on the probe route)', () => {
  it('refuses the 11th request of a window with a 429 problem and Retry-After; other callers and later windows pass', async () => {
    const limited = `${server.base}/seeker-leads/v1/probe/limited`;
    const mine = { authorization: `Bearer ${await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-1' })}` };
    const theirs = { authorization: `Bearer ${await getToken(server, other, { root: '/seeker-leads/v1', intermediary: 'agency-1' })}` };

    await assertRateLimited(() => http('GET', limited, { headers: mine }), 200);

    const another = await http('GET', limited, { headers: theirs });
    assert.equal(another.status, 200);
    assert.deepEqual(another.body, { ok: true });

    let later: HttpResult | undefined;
    for (let i = 0; i < 100; i++) {
      later = await http('GET', limited, { headers: mine });
      if (later.status === 200) break;
      await sleep(50);
    }
    assert.equal(later?.status, 200);
    assert.deepEqual(later?.body, { ok: true });
  });
});
