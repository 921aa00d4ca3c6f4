/*
 * `immogate token --client --secret` without --url sends the secret to the URL the database
 * records for its running server (server_listeners). A row there may name anything (restored from
 * a crafted file, or written by whoever could write the table): the CLI first asks the server at
 * that URL to prove it serves this database (a MAC of a fresh challenge and its own URL under the
 * database's identity key, on /ready). A loopback fake that cannot prove it, or that relays the
 * challenge to the real server, never receives the secret: it is passed over for the real server,
 * and with no real one recorded the command fails naming each URL and why.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  assertProblem,
  createTestDatabase,
  http,
  makeClient,
  startTestServer,
  type TestClient,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';
import { runCli } from '../processes.js';

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A server on loopback that records every request and answers with `answer`. */
async function fake(answer: (request: IncomingMessage) => Promise<{ status: number; body: string }>) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', body });
      answer(request).then(
        (reply) => response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body),
        () => response.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let database: TestDatabase;
let server: TestServer;
let client: TestClient;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  client = await makeClient(server.pool, ['agency-1'], ['caas:*']);
});

after(async () => {
  for (const close of closers) await close();
  await server?.close();
  await database?.drop();
});

beforeEach(async () => {
  await server.pool.query("DELETE FROM server_listeners WHERE started_at > now() + interval '1 day'");
});

/** Records `url` as the newest listener, as a restored row dated 2099 would. */
async function recordAsNewest(url: string): Promise<void> {
  await server.pool.query(
    "INSERT INTO server_listeners (instance_id, public_url, started_at) VALUES (gen_random_uuid(), $1, '2099-01-01')",
    [url],
  );
}

function tokenWithSecret() {
  return runCli(['token', '--api', 'caas', '--agency', 'agency-1', '--client', client.clientId, '--secret', client.secret], {
    DATABASE_URL: database.url,
    PUBLIC_URL: undefined,
  });
}

/** What the CLI says when no recorded server proves that it serves this database. */
function refusal(url: string, why: string): string {
  return (
    `immogate: no running immogate serves this database (${url} ${why}): start one (immogate start), ` +
    'or give its --url (or PUBLIC_URL)\n'
  );
}

const leaked = (seen: Seen[]) => seen.some((request) => request.body.includes(client.secret) || request.url.includes(client.secret));

/** The secret went to the real server: a token it issued, and accepts. */
async function assertRealToken(result: { code: number | null; stdout: string; stderr: string }): Promise<void> {
  assert.deepEqual([result.code, result.stderr], [0, '']);
  assert.match(result.stdout, /^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
  const call = await http('GET', `${server.base}/sandbox/caas/v4/classifieds`, {
    headers: { authorization: `Bearer ${result.stdout.trim()}` },
  });
  assert.equal(call.status, 200, call.text);
}

describe('immogate token --client --secret with the URL read from the database', () => {
  it('passes over a server that answers /ready but cannot prove it serves this database: the secret goes to the real one only', async () => {
    const impostor = await fake(async () => ({ status: 200, body: JSON.stringify({ status: 'ready', database: 'ok' }) }));
    closers.push(impostor.close);
    await recordAsNewest(impostor.url);
    await assertRealToken(await tokenWithSecret());
    assert.equal(leaked(impostor.seen), false);
    assert.deepEqual(
      impostor.seen.map((request) => [request.method, request.url.replace(/challenge=[\w-]{43}$/, 'challenge=…')]),
      [['GET', '/ready?challenge=…']],
    );
  });

  it("passes over a server that relays the challenge to the real server: the proof names the real server's URL, not its own", async () => {
    const relay = await fake(async (request) => {
      const response = await fetch(`${server.base}${request.url ?? '/'}`);
      return { status: response.status, body: await response.text() };
    });
    closers.push(relay.close);
    await recordAsNewest(relay.url);
    await assertRealToken(await tokenWithSecret());
    assert.equal(leaked(relay.seen), false);
  });

  it('passes over a URL where nothing answers (a server killed)', async () => {
    const gone = await fake(async () => ({ status: 200, body: '{}' }));
    await gone.close();
    await recordAsNewest(gone.url);
    await assertRealToken(await tokenWithSecret());
  });

  it('sends the secret to the real server, which proves it', async () => {
    await assertRealToken(await tokenWithSecret());
  });

  it('with no recorded server that proves it, refuses naming each URL and why: the secret is sent nowhere, by token or demo', async () => {
    const impostor = await fake(async () => ({ status: 200, body: JSON.stringify({ status: 'ready', database: 'ok' }) }));
    closers.push(impostor.close);
    await recordAsNewest(impostor.url);
    const { rows } = await server.pool.query('DELETE FROM server_listeners WHERE public_url = $1 RETURNING *', [server.base]);
    try {
      const result = await tokenWithSecret();
      assert.deepEqual(result, { code: 1, stdout: '', stderr: refusal(impostor.url, 'did not prove that it serves this database') });
      const demo = await runCli(['demo', '--client', client.clientId, '--secret', client.secret], {
        DATABASE_URL: database.url,
        PUBLIC_URL: undefined,
      });
      assert.deepEqual(demo, { code: 1, stdout: '', stderr: refusal(impostor.url, 'did not prove that it serves this database') });
      assert.equal(leaked(impostor.seen), false);
      assert.deepEqual(
        impostor.seen.map((request) => request.method),
        ['GET', 'GET'],
      );
    } finally {
      for (const row of rows)
        await server.pool.query('INSERT INTO server_listeners (instance_id, public_url, started_at) VALUES ($1, $2, $3)', [
          row.instance_id,
          row.public_url,
          row.started_at,
        ]);
    }
  });
});

describe('/ready with a challenge', () => {
  it('answers its proof; a challenge of another shape is a 400 naming it', async () => {
    const challenge = 'A'.repeat(43);
    const ready = await fetch(`${server.base}/ready?challenge=${challenge}`);
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { proof: string };
    assert.match(body.proof, /^[\w-]{43}$/);
    assert.deepEqual(body, { status: 'ready', database: 'ok', proof: body.proof });
    const bad = await http('GET', `${server.base}/ready?challenge=short`);
    assertProblem(bad, 400, 'Bad request', 'Your request has not been validated', {
      errors: [
        { name: 'challenge', reason: 'must NOT have fewer than 43 characters.' },
        { name: 'challenge', reason: 'must match pattern "^[A-Za-z0-9_-]{43}$".' },
      ],
      errorSource: 'requestParameter',
    });
  });
});
