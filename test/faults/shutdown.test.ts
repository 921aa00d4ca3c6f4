/*
 * A request that arrives while the server shuts down, with another still in flight, is answered
 * with the 503 problem, Retry-After and Connection: close (not Fastify's bare JSON), and the one
 * in flight still gets its answer. The late request is one whose headers were on their way when
 * stop() began (a connection that is sending a request is not idle, so it is not cut).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, it } from 'node:test';
import { heldRoute } from '../fixtures/heldRoute.js';
import { TRACEPARENT, type TestServer, useServer } from '../helpers.js';

const held = heldRoute();
const fixture = useServer({ apis: [held.module] });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

/** A raw connection: what the server sends back, until it closes the connection. */
function connect(port: number): Promise<{ socket: net.Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const chunks: Buffer[] = [];
      const answer = new Promise<string>((done) => {
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
      });
      resolve({ socket, answer });
    });
    socket.once('error', reject);
  });
}

describe('a request arriving during shutdown', () => {
  it('gets the 503 problem with Retry-After and Connection: close while the one in flight finishes', async () => {
    const { inFlight, token } = await held.hold(server);

    const late = await connect(server.config.port);
    // The request line and a header now, the blank line that ends the headers once shutdown has begun.
    late.socket.write(`GET /seeker-leads/v1/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = server.services.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    late.socket.write('\r\n');
    const raw = await late.answer;

    const [head = '', body = ''] = raw.split('\r\n\r\n');
    const [statusLine, ...headerLines] = head.split('\r\n');
    assert.equal(statusLine, 'HTTP/1.1 503 Service Unavailable', raw);
    const headers = new Map(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    assert.equal(headers.get('connection'), 'close');
    assert.equal(headers.get('retry-after'), '5');
    assert.equal(headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const instance = headers.get('traceparent') ?? '';
    assert.match(instance, TRACEPARENT);
    assert.deepEqual(JSON.parse(body), {
      type: '/problems/service-unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: 'The server is shutting down; retry later',
      instance,
    });

    held.release();
    const answer = await inFlight;
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { finished: true });
    await stopping;
    assert.equal(server.services.app?.server.listening, false);
  });
});
