/*
 * A rotated secret and what it issued. POST /admin/clients/{id}/secret rotates the secret and ends
 * the client's console sessions; with {"revokeTokens": true} every token the client was issued
 * before is refused too, on every process within the guard's 10 seconds, while a token issued
 * right after (the same second) works at once. Tokens issued before token generations existed
 * (no token_generation claim) count as generation 0. The answer keeps its shape either way.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { KeyStore } from '../../src/platform/auth/keys.js';
import { sealerFor } from '../../src/platform/secrets/sealer.js';
import { ConsoleSession } from '../fixtures/console.js';
import {
  assertProblem,
  getToken,
  http,
  makeClient,
  startTestServer,
  type HttpResult,
  type TestClient,
  type TestServer,
  useServer,
  waitFor,
} from '../helpers.js';

const ADMIN_TOKEN = 'revocation-operator-token-0123456789';
const ROOT = '/seeker-leads/v1';
const AGENCY = 'agency-r';
const REVOKED = "The access token is not valid: it was revoked when its client's secret was rotated";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const fixture = useServer({ env: { ADMIN_TOKEN } });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

function newClient(): Promise<TestClient> {
  return makeClient(server.pool, [AGENCY], ['leads:*']);
}

function token(client: TestClient): Promise<string> {
  return getToken(server, client, { root: ROOT, intermediary: AGENCY });
}

/** A read of the lead API with `token`, at `address` (the fixture's server unless told). */
function call(bearer: string, address = server.base): Promise<HttpResult> {
  return http('GET', `${address}${ROOT}/webhook/subscriptions`, { headers: { authorization: `Bearer ${bearer}` } });
}

function rotate(client: TestClient, body?: unknown): Promise<HttpResult> {
  return http('POST', `${server.base}/admin/clients/${client.clientId}/secret`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body,
  });
}

function assertRevoked(result: HttpResult): void {
  assertProblem(result, 401, 'Unauthorized', REVOKED);
  assert.equal(result.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
}

/** The rotation's answer, as before revocation existed: the client and its new secret, nothing more. */
function assertRotated(result: HttpResult, client: TestClient): TestClient {
  assert.equal(result.status, 200, result.text);
  const body = result.body as { client: Record<string, unknown>; clientSecret: string };
  assert.match(body.clientSecret, /^[A-Za-z0-9_-]{43}$/);
  assert.match(String(body.client.secretRotatedAt), ISO);
  assert.deepEqual(body, {
    client: {
      clientId: client.clientId,
      name: 'test client',
      intermediaries: [AGENCY],
      scopes: ['leads:*'],
      environments: ['sandbox', 'production'],
      createdAt: body.client.createdAt,
      secretRotatedAt: body.client.secretRotatedAt,
      disabledAt: null,
    },
    clientSecret: body.clientSecret,
  });
  return { clientId: client.clientId, secret: body.clientSecret };
}

async function consoleSession(client: TestClient): Promise<ConsoleSession> {
  return ConsoleSession.asClient(server.base, client, AGENCY, 'production');
}

/** A token with `claims`, signed with the server's own key as the token endpoint signs them (valid for an hour). */
async function signedByServer(client: TestClient, claims: Record<string, unknown>): Promise<string> {
  const keys = await KeyStore.open(server.pool, sealerFor(server.config));
  const { kid, key } = keys.signingKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .setIssuer(server.base)
    .setSubject(client.clientId)
    .setAudience(server.base + ROOT)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(key);
}

describe('rotating a secret without revoking', () => {
  it('answers as before; tokens issued before keep working, the old secret stops, the console sessions end', async () => {
    const client = await newClient();
    const issued = await token(client);
    const session = await consoleSession(client);
    assert.equal((await session.request('GET', '/session')).status, 200);

    // No body at all, as before revocation existed; an empty object and false mean the same.
    let current = assertRotated(await rotate(client), client);
    current = assertRotated(await rotate(current, {}), client);
    current = assertRotated(await rotate(current, { revokeTokens: false }), client);

    assert.equal((await call(issued)).status, 200);
    assertProblem(await session.request('GET', '/session'), 401, 'Unauthorized', 'Sign in to the console first');
    const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM console_sessions WHERE client_id = $1', [client.clientId]);
    assert.deepEqual(rows, [{ n: 0 }]);
    const stale = await http('POST', `${server.base}/oauth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.secret,
        audience: server.base + ROOT,
        intermediary_id: AGENCY,
      },
    });
    assert.equal(stale.status, 401);
    // A new sign-in with the new secret opens a session again.
    assert.equal((await (await consoleSession(current)).request('GET', '/session')).status, 200);
  });
});

describe('rotating a secret with {"revokeTokens": true}', () => {
  it('refuses every token issued before, on every process within 10 seconds; a token issued right after works at once', async () => {
    const client = await newClient();
    const older = await token(client);
    // Another process of the same deployment: same database and PUBLIC_URL (the tokens' issuer and audience), its own port.
    const second = await startTestServer(fixture.database, { env: { ADMIN_TOKEN, PUBLIC_URL: server.base } });
    const other = second.services.address ?? '';
    try {
      // Both processes remember the client's generation now.
      assert.equal((await call(older)).status, 200);
      assert.equal((await call(older, other)).status, 200);
      const session = await consoleSession(client);

      const current = assertRotated(await rotate(client, { revokeTokens: true }), client);
      const rotatedAt = Date.now();
      const newer = await token(current);
      assert.equal(Math.floor(Date.now() / 1000) - Math.floor(rotatedAt / 1000) <= 1, true, 'the new token came within a second');
      assert.equal((await call(newer)).status, 200);
      // The newer token showed this process its memory of the client was stale.
      assertRevoked(await call(older));
      assertProblem(await session.request('GET', '/session'), 401, 'Unauthorized', 'Sign in to the console first');

      // The other process finds out when its memory expires: within 10 seconds.
      const refused = await waitFor(
        'the other process to refuse the older token',
        () => call(older, other),
        (result) => result.status === 401,
        240,
        50,
      );
      assert.ok(Date.now() - rotatedAt <= 11_000, `refused after ${Date.now() - rotatedAt} ms`);
      assertRevoked(refused);
      assert.equal((await call(newer, other)).status, 200);
    } finally {
      await second.close();
    }
  });

  it('refuses the tokens of every generation before, not only the last: two revocations in a row', async () => {
    const client = await newClient();
    const first = await token(client);
    const once = assertRotated(await rotate(client, { revokeTokens: true }), client);
    const second = await token(once);
    const twice = assertRotated(await rotate(once, { revokeTokens: true }), client);
    const third = await token(twice);
    assert.equal((await call(third)).status, 200);
    assertRevoked(await call(first));
    assertRevoked(await call(second));
    const { rows } = await server.pool.query('SELECT token_generation FROM clients WHERE client_id = $1', [client.clientId]);
    assert.deepEqual(rows, [{ token_generation: 2 }]);
  });

  it('treats a token without token_generation (issued before generations existed) as generation 0', async () => {
    const client = await newClient();
    const legacy = await signedByServer(client, { scope: 'leads:*', intermediary_id: AGENCY });
    assert.equal((await call(legacy)).status, 200);
    const current = assertRotated(await rotate(client, { revokeTokens: true }), client);
    assert.equal((await call(await token(current))).status, 200);
    assertRevoked(await call(legacy));
  });

  it('refuses a token whose token_generation is not a whole number, and one ahead of its client is served like any', async () => {
    const client = await newClient();
    const signed = (generation: unknown) =>
      signedByServer(client, { scope: 'leads:*', intermediary_id: AGENCY, token_generation: generation });
    for (const generation of [-1, 1.5, '1']) {
      assertProblem(
        await call(await signed(generation)),
        401,
        'Unauthorized',
        'The access token is not valid: the token_generation of the token is not a whole number',
      );
    }
  });

  it('refuses a body that is not {"revokeTokens": boolean} with a 400 naming the member; an unknown client is a 404', async () => {
    const client = await newClient();
    assertProblem(
      await rotate(client, { revokeTokens: 'yes' }),
      400,
      'Bad request',
      'Your request has not been validated',
      { errors: [{ name: '/revokeTokens', reason: 'must be boolean.' }], errorSource: 'body' },
      'bad-request',
    );
    assertProblem(
      await rotate(client, { revoke: true }),
      400,
      'Bad request',
      'Your request has not been validated',
      { errors: [{ name: '/revoke', reason: 'must NOT have additional properties: revoke.' }], errorSource: 'body' },
      'bad-request',
    );
    // Nothing was rotated by the refused requests.
    assert.equal((await token(client)).length > 0, true);
    assertProblem(await rotate({ clientId: 'ig_nobody', secret: '' }, { revokeTokens: true }), 404, 'Not found', 'No client ig_nobody');
  });

  it('does the same from the console operator page: the route under /console/api/admin', async () => {
    const client = await newClient();
    const older = await token(client);
    const operator = await ConsoleSession.signIn(server.base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const current = assertRotated(
      await operator.request('POST', `/admin/clients/${client.clientId}/secret`, { body: { revokeTokens: true } }),
      client,
    );
    assert.equal((await call(await token(current))).status, 200);
    assertRevoked(await call(older));
  });
});
