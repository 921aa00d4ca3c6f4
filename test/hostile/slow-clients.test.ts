/*
 * Slow and greedy clients: a socket trickling its headers or its body is answered 408 and closed
 * once HTTP_HEADERS_TIMEOUT_SECONDS / HTTP_REQUEST_TIMEOUT_SECONDS have passed, an idle one is
 * closed after HTTP_IDLE_TIMEOUT_SECONDS, and beyond HTTP_MAX_CONNECTIONS new connections are
 * refused until some close.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TRACEPARENT, createTestDatabase, http, startTestServer, type TestDatabase, type TestServer } from '../helpers.js';

let database: TestDatabase;
let server: TestServer;
let port: number;

before(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database, {
    env: {
      HTTP_HEADERS_TIMEOUT_SECONDS: '1',
      HTTP_REQUEST_TIMEOUT_SECONDS: '2',
      HTTP_IDLE_TIMEOUT_SECONDS: '3',
      HTTP_MAX_CONNECTIONS: '40',
    },
  });
  port = Number(new URL(server.base).port);
});

after(async () => {
  await server.close();
  await database.drop();
});

interface Trickle {
  received: () => string;
  closed: Promise<number>;
  stop: () => void;
}

/** A socket sending `head` at once, then `drip` one byte every 100 ms, for as long as it is open. */
function trickle(head: string, drip: string): Trickle {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let received = '';
  let sent = 0;
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.writable || drip === '') return;
    socket.write(drip[sent % drip.length] as string);
    sent += 1;
  }, 100);
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    }),
  );
  return { received: () => received, closed, stop: () => socket.destroy() };
}

function assertTimeoutProblem(raw: string): void {
  assert.match(raw, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(raw, /\r\nContent-Type: application\/problem\+json\r\n/);
  const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  assert.match(String(body.instance), TRACEPARENT);
  assert.deepEqual(body, {
    type: '/problems/request-timeout',
    title: 'Request timeout',
    status: 408,
    detail: 'The request was not received in time',
    instance: body.instance,
  });
}

describe('slow clients', () => {
  it('headers trickled a byte at a time: 408 and closed after the headers timeout, 30 sockets at once', async () => {
    const sockets = Array.from({ length: 30 }, () => trickle('GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: aaaaaaaa\r\n'));
    const lifetimes = await Promise.all(sockets.map((socket) => socket.closed));
    for (const socket of sockets) assertTimeoutProblem(socket.received());
    // Closed by the server (the test would go on dripping forever): within the timeout plus Node's 1 s check.
    assert.ok(Math.max(...lifetimes) < 10_000, `closed after ${Math.max(...lifetimes)} ms`);
  });

  it('a body trickled a byte at a time: 408 and closed after the request timeout', async () => {
    const head = 'POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    const socket = trickle(head, '{"a":1}');
    const lifetime = await socket.closed;
    assertTimeoutProblem(socket.received());
    assert.ok(lifetime < 10_000, `closed after ${lifetime} ms`);
  });

  it('an idle keep-alive connection is closed after the idle timeout; a prompt client is served', async () => {
    const socket = trickle('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '');
    const lifetime = await socket.closed;
    assert.match(socket.received(), /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(lifetime >= 2_500 && lifetime < 10_000, `closed after ${lifetime} ms`);
    assert.equal((await http('GET', `${server.base}/health`)).status, 200);
  });
});

describe('greedy clients', () => {
  it('beyond HTTP_MAX_CONNECTIONS new connections are refused; once some close, they are served again', async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < 40; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      held.push(socket);
    }
    await sleep(100);
    // The 41st is accepted by the kernel, then closed by the server before reading a byte.
    const refused = net.connect(port, '127.0.0.1');
    let answered = '';
    refused.on('data', (chunk) => (answered += chunk.toString()));
    refused.on('error', () => undefined);
    refused.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => refused.once('close', resolve));
    assert.equal(answered, '');
    for (const socket of held) socket.destroy();
    await sleep(200);
    assert.equal((await http('GET', `${server.base}/health`)).status, 200);
  });
});
