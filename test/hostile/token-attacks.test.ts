/*
 * The token attacks a reviewer tries against a bearer-token API, each refused with a 401 problem
 * and an `invalid_token` challenge: forged algorithms, keys smuggled in the header, tampered
 * claims, tokens for another issuer, audience or environment, lifetimes the server never issues,
 * a disabled client. And at the token endpoint, guessing secrets runs into a 429.
 */
import assert from 'node:assert/strict';
import { createHmac, createPublicKey, randomUUID } from 'node:crypto';
import { before, beforeEach, describe, it } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { KeyStore } from '../../src/platform/auth/keys.js';
import { sealerFor } from '../../src/platform/secrets/sealer.js';
import { assertProblem, getToken, http, makeClient, startTestServer, type TestClient, type TestServer, useServer } from '../helpers.js';

const ROOT = '/caas/v4';
const fixture = useServer({
  env: { AUTH_FAILURES_PER_ADDRESS: '30' },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'leads:*'] },
});
let server: TestServer;
let client: TestClient;
let keys: KeyStore;
let valid: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  client = fixture.client;
  valid = await fixture.token({ root: ROOT, intermediary: 'agency-1' });
  keys = await KeyStore.open(server.pool, sealerFor(server.config));
});

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: server.base,
    sub: client.clientId,
    aud: server.base + ROOT,
    iat: now(),
    exp: now() + 3600,
    jti: randomUUID(),
    scope: 'caas:*',
    intermediary_id: 'agency-1',
    ...overrides,
  };
}

/** Signed with the server's own key, as only a thief of that key could: what the claim checks alone must stop. */
async function serverSigned(overrides: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, key } = keys.signingKey();
  return new SignJWT(claims(overrides)).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', ...header }).sign(key);
}

async function attackerKey(): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey: privateKey as CryptoKey, jwk: await exportJWK(publicKey) };
}

function call(token: string, root = ROOT) {
  return http('GET', `${server.base}${root}/classifieds`, { headers: { authorization: `Bearer ${token}` } });
}

function assertRefused(result: Awaited<ReturnType<typeof call>>, reason: string): void {
  assertProblem(result, 401, 'Unauthorized', `The access token is not valid: ${reason}`);
  assert.equal(result.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
}

describe('forged tokens are refused with 401', () => {
  it('the genuine token works (the baseline of every case below)', async () => {
    assert.equal((await call(valid)).status, 200);
  });

  it('alg none, without a signature', async () => {
    const token = `${b64({ alg: 'none', typ: 'at+jwt', kid: keys.signingKey().kid })}.${b64(claims())}.`;
    assertRefused(await call(token), 'the token algorithm must be ES256');
  });

  it('HS256 with the public key as the HMAC secret (algorithm confusion)', async () => {
    const { kid } = keys.signingKey();
    const publicJwk = keys.jwks().keys.find((key) => key.kid === kid) as JWK;
    const pem = createPublicKey({ key: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y }, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    for (const secret of [pem, JSON.stringify(publicJwk)]) {
      const input = `${b64({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64(claims())}`;
      const token = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      assertRefused(await call(token), 'the token algorithm must be ES256');
    }
  });

  it('a kid naming no key of ours: made up, a path, an injection', async () => {
    const { privateKey } = await attackerKey();
    for (const kid of [randomUUID(), '../../../../etc/passwd', "' OR '1'='1", '']) {
      const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(privateKey);
      assertRefused(await call(token), 'the token was not signed by this server');
    }
  });

  it('a key of the attacker embedded in the header (jwk), with its own kid or with ours', async () => {
    const { privateKey, jwk } = await attackerKey();
    const own = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: 'attacker', typ: 'at+jwt', jwk }).sign(privateKey);
    assertRefused(await call(own), 'the token was not signed by this server');
    const ours = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256', kid: keys.signingKey().kid, typ: 'at+jwt', jwk })
      .sign(privateKey);
    assertRefused(await call(ours), 'the token signature is invalid');
  });

  it('a key set of the attacker named in the header (jku, x5u): never fetched', async () => {
    const { privateKey } = await attackerKey();
    for (const header of [{ jku: 'https://attacker.example/jwks.json' }, { x5u: 'https://attacker.example/cert.pem' }]) {
      const token = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'ES256', kid: keys.signingKey().kid, typ: 'at+jwt', ...header })
        .sign(privateKey);
      assertRefused(await call(token), 'the token signature is invalid');
    }
  });

  it('a genuine token with its payload tampered (another agency, more scope)', async () => {
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const claimsOf = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    for (const change of [{ intermediary_id: 'agency-2' }, { scope: 'caas:* leads:*' }, { exp: now() + 10 * 86_400 }]) {
      const token = `${header}.${b64({ ...claimsOf, ...change })}.${signature}`;
      assertRefused(await call(token), 'the token signature is invalid');
    }
  });

  it('a genuine token with its signature cut off or altered', async () => {
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    assertRefused(await call(`${header}.${payload}.`), 'the token signature is invalid');
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    assertRefused(await call(`${header}.${payload}.${flipped}`), 'the token signature is invalid');
  });

  it('another issuer', async () => {
    assertRefused(
      await call(await serverSigned({ iss: 'https://elsewhere.example' })),
      `the token's issuer is https://elsewhere.example, expected ${server.base}`,
    );
  });

  it('another audience: another API, or the same API in the other environment', async () => {
    const leads = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-1' });
    assertRefused(await call(leads), `the token's audience is ${server.base}/seeker-leads/v1, expected ${server.base}${ROOT}`);
    const sandbox = await getToken(server, client, { root: '/sandbox/caas/v4', intermediary: 'agency-1' });
    assertRefused(await call(sandbox), `the token's audience is ${server.base}/sandbox/caas/v4, expected ${server.base}${ROOT}`);
    assertRefused(
      await call(valid, '/sandbox/caas/v4'),
      `the token's audience is ${server.base}${ROOT}, expected ${server.base}/sandbox/caas/v4`,
    );
  });

  it('expired', async () => {
    assertRefused(await call(await serverSigned({ iat: now() - 7200, exp: now() - 60 })), 'the token has expired');
  });

  it('issued in the future: an hour, ten years', async () => {
    for (const ahead of [3600, 10 * 365 * 86_400]) {
      assertRefused(
        await call(await serverSigned({ iat: now() + ahead, exp: now() + ahead + 3600 })),
        'the token was issued in the future',
      );
    }
    // Within the clock skew allowed: accepted.
    assert.equal((await call(await serverSigned({ iat: now() + 30, exp: now() + 3600 }))).status, 200);
  });

  it('a lifetime longer than the server issues: a day and a second, a hundred years', async () => {
    for (const lifetime of [86_401, 100 * 365 * 86_400]) {
      assertRefused(
        await call(await serverSigned({ iat: now(), exp: now() + lifetime })),
        'the token lives longer than the 86400 seconds this server issues tokens for',
      );
    }
  });

  it('claims the server relies on left out: exp, iat, sub, scope, intermediary_id', async () => {
    assertRefused(await call(await serverSigned({ exp: undefined })), 'the token is invalid (missing required "exp" claim)');
    assertRefused(await call(await serverSigned({ iat: undefined })), 'the token is invalid (missing required "iat" claim)');
    for (const missing of ['sub', 'scope', 'intermediary_id']) {
      assertRefused(await call(await serverSigned({ [missing]: undefined })), 'the token lacks sub, scope or intermediary_id');
    }
  });

  it('a token type other than at+jwt (an ID token, say)', async () => {
    assertRefused(await call(await serverSigned({}, { typ: 'JWT' })), 'the token is invalid (unexpected "typ" JWT header value)');
  });

  it('not a JWT at all', async () => {
    for (const token of ['abc', 'a.b.c', `${b64('{')}.${b64('{')}.x`])
      assertRefused(await call(token), 'the token is not a well-formed JWT');
  });

  it("a disabled client's token, still within its lifetime", async () => {
    const other = await makeClient(server.pool, ['agency-1'], ['caas:*']);
    const token = await getToken(server, other, { root: ROOT, intermediary: 'agency-1' });
    await server.pool.query('UPDATE clients SET disabled_at = now() WHERE client_id = $1', [other.clientId]);
    assertRefused(await call(token), 'its client is disabled');
  });
});

describe('guessing secrets at the token endpoint', () => {
  function tokenRequest(clientId: string, secret: string, headers: Record<string, string> = {}) {
    return http('POST', `${server.base}/oauth/token`, {
      headers,
      body: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        audience: server.base + ROOT,
        intermediary_id: 'agency-1',
      },
    });
  }

  it('beyond 10 failures in the window the client id gets 429 with Retry-After, the right secret too; other clients are served', async () => {
    const victim = await makeClient(server.pool, ['agency-1'], ['caas:*']);
    for (let i = 0; i < 10; i++) {
      const wrong = await tokenRequest(victim.clientId, `guess-${i}`);
      assert.equal(wrong.status, 401);
      assert.deepEqual(wrong.body, { error: 'invalid_client', error_description: 'client authentication failed' });
    }
    for (const secret of ['guess-10', victim.secret]) {
      const locked = await tokenRequest(victim.clientId, secret);
      assert.equal(locked.status, 429);
      const retryAfter = Number(locked.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      assert.deepEqual(locked.body, {
        error: 'temporarily_unavailable',
        error_description: `too many failed authentications lately; retry in ${retryAfter} seconds`,
      });
      assert.equal(locked.headers.get('cache-control'), 'no-store');
    }
    assert.equal((await tokenRequest(client.clientId, client.secret)).status, 200);
    // The window passed (moved back here rather than waited for): the right secret works again.
    await server.pool.query("UPDATE auth_failures SET window_started_at = window_started_at - interval '61 seconds'");
    assert.equal((await tokenRequest(victim.clientId, victim.secret)).status, 200);
  });

  it('beyond the per-address limit (30 here) unknown client ids from that address get 429; a known client there is still served', async () => {
    await server.pool.query('DELETE FROM auth_failures');
    for (let i = 0; i < 30; i++) assert.equal((await tokenRequest(`ig_made_up_${i}`, 'x')).status, 401);
    const locked = await tokenRequest('ig_made_up_30', 'x');
    assert.equal(locked.status, 429);
    assert.equal((locked.body as { error: string }).error, 'temporarily_unavailable');
    assert.equal((await tokenRequest(client.clientId, client.secret)).status, 200);
    await server.pool.query('DELETE FROM auth_failures');
    assert.equal((await tokenRequest('ig_made_up_30', 'x')).status, 401);
  });

  it("a known client's wrong secrets never refuse another client's right secret from the same address", async () => {
    await server.pool.query('DELETE FROM auth_failures');
    // Forty wrong secrets from this address, past its thirty, ten for each of four known clients.
    for (let c = 0; c < 4; c++) {
      const guessed = await makeClient(server.pool, ['agency-1'], ['caas:*']);
      for (let i = 0; i < 11; i++) assert.equal((await tokenRequest(guessed.clientId, `guess-${i}`)).status, i < 10 ? 401 : 429);
    }
    assert.equal((await tokenRequest(client.clientId, client.secret)).status, 200);
    assert.equal((await tokenRequest('ig_made_up_after', 'x')).status, 401);
  });

  it('a forged X-Forwarded-For from a peer that is no trusted proxy (TRUST_PROXY off) escapes no count', async () => {
    await server.pool.query('DELETE FROM auth_failures');
    const request = (clientId: string, secret: string, i: number) =>
      tokenRequest(clientId, secret, { 'x-forwarded-for': `198.51.100.${i % 250}` });
    for (let i = 0; i < 30; i++) assert.equal((await request(`ig_forged_${i}`, 'x', i)).status, 401);
    assert.equal((await request('ig_forged_30', 'x', 30)).status, 429);
    await server.pool.query('DELETE FROM auth_failures');
    const victim = await makeClient(server.pool, ['agency-1'], ['caas:*']);
    for (let i = 0; i < 10; i++) assert.equal((await request(victim.clientId, 'wrong', i)).status, 401);
    assert.equal((await request(victim.clientId, victim.secret, 10)).status, 429);
    await server.pool.query('DELETE FROM auth_failures');
  });

  it('the count is in the database: another process on the same database refuses too', async () => {
    const victim = await makeClient(server.pool, ['agency-1'], ['caas:*']);
    for (let i = 0; i < 10; i++) assert.equal((await tokenRequest(victim.clientId, 'wrong')).status, 401);
    const second = await startTestServer(fixture.database);
    try {
      const result = await http('POST', `${second.base}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: victim.clientId,
          client_secret: victim.secret,
          audience: second.base + ROOT,
          intermediary_id: 'agency-1',
        },
      });
      assert.equal(result.status, 429);
    } finally {
      await second.close();
    }
  });
});

describe('behind a trusted proxy (TRUST_PROXY=127.0.0.1): failures are counted per client address', () => {
  const proxied = useServer({
    env: { TRUST_PROXY: '127.0.0.1', AUTH_FAILURES_PER_ADDRESS: '30' },
    client: { intermediaries: ['agency-1'], scopes: ['caas:*'] },
  });
  const ATTACKER = '203.0.113.66';
  const OTHER = '198.51.100.7';

  function viaProxy(from: string, clientId: string, secret: string) {
    const base = proxied.server.base;
    return http('POST', `${base}/oauth/token`, {
      headers: { 'x-forwarded-for': from },
      body: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        audience: base + ROOT,
        intermediary_id: 'agency-1',
      },
    });
  }

  beforeEach(async () => {
    await proxied.ready();
    await proxied.server.pool.query('DELETE FROM auth_failures');
  });

  it("101 wrong secrets for a client lock out that client from the attacker's address only", async () => {
    const victim = await makeClient(proxied.server.pool, ['agency-1'], ['caas:*']);
    for (let i = 0; i < 101; i++) assert.equal((await viaProxy(ATTACKER, victim.clientId, `guess-${i}`)).status, i < 10 ? 401 : 429);
    assert.equal((await viaProxy(ATTACKER, victim.clientId, victim.secret)).status, 429);
    assert.equal((await viaProxy(OTHER, victim.clientId, victim.secret)).status, 200);
    assert.equal((await viaProxy(ATTACKER, proxied.client.clientId, proxied.client.secret)).status, 200);
    assert.equal((await viaProxy(OTHER, proxied.client.clientId, proxied.client.secret)).status, 200);
  });

  it("unknown client ids lock out the attacker's address for unknown ids, nobody else", async () => {
    for (let i = 0; i < 30; i++) assert.equal((await viaProxy(ATTACKER, `ig_made_up_${i}`, 'x')).status, 401);
    assert.equal((await viaProxy(ATTACKER, 'ig_made_up_30', 'x')).status, 429);
    assert.equal((await viaProxy(OTHER, 'ig_made_up_30', 'x')).status, 401);
    assert.equal((await viaProxy(OTHER, proxied.client.clientId, proxied.client.secret)).status, 200);
    assert.equal((await viaProxy(ATTACKER, proxied.client.clientId, proxied.client.secret)).status, 200);
  });
});
