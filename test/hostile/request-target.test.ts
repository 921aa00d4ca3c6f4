/*
 * The request line before any route (issue 34): a request-target over its limit is answered 414 at
 * once, whatever the route, credentials or body; an unknown path is 404 and a known path with another
 * method 405 with Allow, for every method Node's parser accepts (QUERY included, whose missing
 * Content-Type Fastify would otherwise refuse first); and the docs page's single-document URLs serve
 * a document, never a 500.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import net from 'node:net';
import { before, describe, it } from 'node:test';
import { ALL_SCOPES } from '../../src/platform/catalogue.js';
import { MAX_REQUEST_TARGET_BYTES } from '../../src/platform/http/requestTarget.js';
import { USER_AGENT, assertProblem, http, type HttpResult, type TestServer, useServer } from '../helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1'], scopes: [...ALL_SCOPES] } });
let server: TestServer;
let token: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  token = await fixture.token({ root: '/sandbox/caas/v4', intermediary: 'agency-1' });
});

/** One request written as is on a socket of its own (any method, any target), and its answer. */
function raw(method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<HttpResult> {
  const { port } = new URL(server.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const result = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(':');
        result.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const content = text.slice(split + 4);
      let parsed: unknown;
      try {
        parsed = content === '' ? undefined : JSON.parse(content);
      } catch {
        parsed = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: result, text: content, body: parsed });
    });
    const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', `user-agent: ${USER_AGENT}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body !== '') lines.push(`content-length: ${Buffer.byteLength(body)}`);
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** A target of exactly `bytes` bytes: `prefix` then `filler` repeated (cut to fit). */
function targetOf(prefix: string, bytes: number, filler = 'a'): string {
  return prefix + filler.repeat(Math.ceil((bytes - prefix.length) / filler.length)).slice(0, bytes - prefix.length);
}

const TOO_LONG = `The request target (path and query) exceeds ${MAX_REQUEST_TARGET_BYTES} bytes`;

describe('a request-target over the limit is 414 before routing', () => {
  it('the limit is 4,096 bytes', () => {
    assert.equal(MAX_REQUEST_TARGET_BYTES, 4096);
  });

  it('at the limit, a known route answers as usual and an unknown path is 404', async () => {
    const health = targetOf('/health?padding=', MAX_REQUEST_TARGET_BYTES);
    const ok = await raw('GET', health);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, { status: 'ok' });
    const unknown = targetOf('/nowhere/', MAX_REQUEST_TARGET_BYTES);
    assertProblem(await raw('GET', unknown), 404, 'Not found', `No resource at GET ${unknown}`, {}, 'not-found');
  });

  it('one byte over it: 414 on every kind of path, before credentials, content type or body are looked at', async () => {
    const over = MAX_REQUEST_TARGET_BYTES + 1;
    const cases: [string, string, Record<string, string>, string][] = [
      ['GET', targetOf('/health?padding=', over), {}, ''],
      ['GET', targetOf('/nowhere/', over), {}, ''],
      ['GET', targetOf('/nowhere/', 15_000, '/a'), {}, ''],
      // No token: the guard would answer 401.
      ['GET', targetOf('/sandbox/caas/v4/classifieds?nextToken=', over), {}, ''],
      // A token, and a content type no route takes: 415 otherwise.
      ['POST', targetOf('/sandbox/caas/v4/classifieds?x=', over), { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, 'x'],
      ['QUERY', targetOf('/sandbox/caas/v4/classifieds?x=', over), {}, ''],
      ['DELETE', targetOf('/admin/clients/', over), {}, ''],
    ];
    for (const [method, target, headers, body] of cases) {
      const result = await raw(method, target, headers, body);
      assertProblem(result, 414, 'URI too long', TOO_LONG);
      assert.equal(result.headers.get('x-content-type-options'), 'nosniff');
    }
  });

  it('the router’s own 414 for a path segment over 100 characters stays', async () => {
    const result = await http('GET', `${server.base}/sandbox/caas/v4/classifieds/${'a'.repeat(500)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertProblem(result, 414, 'URI too long', 'A segment of the request path is longer than any identifier of these APIs');
  });
});

describe('404 and 405 for every method', () => {
  const notAllowed = (result: HttpResult, method: string, allowed: string) => {
    assertProblem(result, 405, 'Method not allowed', `${method} is not allowed here; allowed: ${allowed}`);
    assert.equal(result.headers.get('allow'), allowed);
  };

  it('QUERY on a known path is 405 with Allow, with or without a body and its type; on an unknown path 404', async () => {
    const auth = { authorization: `Bearer ${token}` };
    notAllowed(await raw('QUERY', '/sandbox/caas/v4/webhooks', auth), 'QUERY', 'DELETE, PUT');
    notAllowed(await raw('QUERY', '/sandbox/caas/v4/webhooks'), 'QUERY', 'DELETE, PUT');
    notAllowed(
      await raw('QUERY', '/sandbox/caas/v4/webhooks', { ...auth, 'content-type': 'application/json' }, '{"a":1}'),
      'QUERY',
      'DELETE, PUT',
    );
    notAllowed(await raw('QUERY', '/sandbox/caas/v4/webhooks', { 'content-type': 'text/plain' }, 'x'), 'QUERY', 'DELETE, PUT');
    notAllowed(await raw('QUERY', '/health'), 'QUERY', 'GET, HEAD');
    assertProblem(
      await raw('QUERY', '/sandbox/caas/v4/nothing', auth),
      404,
      'Not found',
      'No resource at QUERY /sandbox/caas/v4/nothing',
      {},
      'not-found',
    );
  });

  it('other methods: a body of a type no route takes does not change the 405 or 404', async () => {
    notAllowed(await raw('PATCH', '/sandbox/caas/v4/webhooks', { 'content-type': 'text/plain' }, 'x'), 'PATCH', 'DELETE, PUT');
    notAllowed(await raw('OPTIONS', '/sandbox/caas/v4/webhooks', {}, ''), 'OPTIONS', 'DELETE, PUT');
    notAllowed(await raw('PROPFIND', '/sandbox/caas/v4/webhooks'), 'PROPFIND', 'DELETE, PUT');
    assertProblem(
      await raw('POST', '/sandbox/caas/v4/nothing', { 'content-type': 'text/plain' }, 'x'),
      404,
      'Not found',
      'No resource at POST /sandbox/caas/v4/nothing',
      {},
      'not-found',
    );
  });

  it('a path with parameters is matched segment by segment, a query is not part of it', async () => {
    const id = '0b1bd6d4-5bd9-4f4e-9a51-1e1dc3a4b0a7';
    notAllowed(await raw('PATCH', `/sandbox/caas/v4/classifieds/${id}/statuses?portal=x`), 'PATCH', 'GET, HEAD');
    notAllowed(await raw('GET', `/admin/clients/${id}/secret`), 'GET', 'POST');
    assertProblem(
      await raw('PATCH', `/sandbox/caas/v4/classifieds/${id}/statuses/more?portal=x`),
      404,
      'Not found',
      `No resource at PATCH /sandbox/caas/v4/classifieds/${id}/statuses/more`,
      {},
      'not-found',
    );
    // An empty segment fills no parameter.
    assertProblem(
      await raw('PATCH', '/sandbox/caas/v4/classifieds//statuses'),
      404,
      'Not found',
      'No resource at PATCH /sandbox/caas/v4/classifieds//statuses',
      {},
      'not-found',
    );
  });
});

describe('the docs page’s single-document URLs', () => {
  it('/docs/json is the document the page opens first (the classifieds’), as /caas/v4/openapi.json serves it', async () => {
    const served = await http('GET', `${server.base}/caas/v4/openapi.json`);
    assert.equal(served.status, 200);
    const json = await http('GET', `${server.base}/docs/json`);
    assert.equal(json.status, 200, json.text.slice(0, 500));
    assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(json.body, served.body);
    assert.equal((json.body as { info: { title: string } }).info.title, 'Classifieds ingestion API');
  });

  it('/docs/yaml is the same document as YAML', async () => {
    const served = await http('GET', `${server.base}/caas/v4/openapi.json`);
    const yaml = await http('GET', `${server.base}/docs/yaml`);
    assert.equal(yaml.status, 200, yaml.text.slice(0, 500));
    assert.equal(yaml.headers.get('content-type'), 'application/yaml; charset=utf-8');
    // A YAML parser (the one @fastify/swagger writes YAML with) reads it as the document.
    const require = createRequire(createRequire(import.meta.url).resolve('@fastify/swagger'));
    const { parse } = require('yaml') as { parse: (text: string) => unknown };
    assert.deepEqual(parse(yaml.text), served.body);
  });
});
