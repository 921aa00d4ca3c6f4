/*
 * The token endpoint and the JWKS: what clients and OAuth2 libraries get.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ClientCredentials } from 'simple-oauth2';
import { http, makeClient, startTestServer, type TestClient, type TestServer, useServer } from '../helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*', 'clim:*', 'leads:*'] } });
let server: TestServer;
let client: TestClient;
let narrow: TestClient;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  client = fixture.client;
  narrow = await makeClient(server.pool, ['agency-9'], ['caas:classifieds:read', 'caas:classifieds:create']);
});

function tokenRequest(overrides: Record<string, unknown> = {}, c: TestClient = client): Record<string, unknown> {
  return {
    grant_type: 'client_credentials',
    client_id: c.clientId,
    client_secret: c.secret,
    audience: `${server.base}/caas/v4`,
    intermediary_id: 'agency-1',
    ...overrides,
  };
}

function oauthError(error: string, description: string) {
  return { error, error_description: description };
}

describe('POST /oauth/token', () => {
  it('issues a 24-hour bearer JWT for a JSON request, with the client scopes of that API', async () => {
    const result = await http('POST', `${server.base}/oauth/token`, { body: tokenRequest() });
    assert.equal(result.status, 200);
    assert.equal(result.headers.get('cache-control'), 'no-store');
    const body = result.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(body.expires_in, 86400);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'caas:*');

    const jwks = createRemoteJWKSet(new URL(`${server.base}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(body.access_token as string, jwks, {
      issuer: server.base,
      audience: `${server.base}/caas/v4`,
      algorithms: ['ES256'],
    });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(typeof protectedHeader.kid, 'string');
    assert.deepEqual(Object.keys(payload).sort(), [
      'aud',
      'exp',
      'iat',
      'intermediary_id',
      'iss',
      'jti',
      'scope',
      'sub',
      'token_generation',
    ]);
    assert.equal(payload.sub, client.clientId);
    // The client's secret was never rotated with its tokens revoked.
    assert.equal(payload.token_generation, 0);
    assert.equal(payload.intermediary_id, 'agency-1');
    assert.equal(payload.scope, 'caas:*');
    assert.equal((payload.exp as number) - (payload.iat as number), 86400);
    assert.match(payload.jti as string, /^[0-9a-f-]{36}$/);
  });

  it('accepts form-encoded parameters and HTTP Basic client authentication', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      audience: `${server.base}/sandbox/import-listings/v1`,
      intermediary_id: 'agency-2',
      scope: 'clim:listings:read clim:medias:create',
    });
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64');
    const result = await http('POST', `${server.base}/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      raw: form.toString(),
    });
    assert.equal(result.status, 200);
    const body = result.body as { access_token: string; scope: string };
    assert.equal(body.scope, 'clim:listings:read clim:medias:create');
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1] as string, 'base64url').toString());
    assert.equal(claims.aud, `${server.base}/sandbox/import-listings/v1`);
    assert.equal(claims.intermediary_id, 'agency-2');
  });

  it('works with a standard OAuth2 client library (simple-oauth2, Basic auth, form body)', async () => {
    const oauth = new ClientCredentials({
      client: { id: client.clientId, secret: client.secret },
      auth: { tokenHost: server.base, tokenPath: '/oauth/token' },
    });
    // Our two parameters beyond the library's declared ones: a variable, so they pass its type.
    const params = { scope: 'leads:read', audience: `${server.base}/seeker-leads/v1`, intermediary_id: 'agency-1' };
    const token = await oauth.getToken(params);
    assert.equal(token.token.token_type, 'Bearer');
    assert.equal(token.token.scope, 'leads:read');
    assert.equal(token.token.expires_in, 86400);
    assert.equal(token.expired(), false);
  });

  it('lets a client request a narrower scope granted by a wildcard it holds', async () => {
    const result = await http('POST', `${server.base}/oauth/token`, { body: tokenRequest({ scope: 'caas:classifieds:read' }) });
    assert.equal(result.status, 200);
    assert.equal((result.body as { scope: string }).scope, 'caas:classifieds:read');
  });

  it('records every issued token for the operator report', async () => {
    const before = await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM token_issuance WHERE client_id = $1', [
      narrow.clientId,
    ]);
    await http('POST', `${server.base}/oauth/token`, { body: tokenRequest({ intermediary_id: 'agency-9' }, narrow) });
    const { rows } = await server.pool.query('SELECT audience, intermediary_id, scope FROM token_issuance WHERE client_id = $1', [
      narrow.clientId,
    ]);
    assert.equal(rows.length, (before.rows[0]?.n ?? 0) + 1);
    assert.deepEqual(rows.at(-1), {
      audience: `${server.base}/caas/v4`,
      intermediary_id: 'agency-9',
      scope: 'caas:classifieds:read caas:classifieds:create',
    });
  });

  describe('refuses, in the RFC 6749 error shape', () => {
    const cases: Array<[string, () => Record<string, unknown>, number, ReturnType<typeof oauthError>]> = [
      [
        'an unknown client',
        () => tokenRequest({ client_id: 'ig_unknown' }),
        401,
        oauthError('invalid_client', 'client authentication failed'),
      ],
      ['a wrong secret', () => tokenRequest({ client_secret: 'wrong' }), 401, oauthError('invalid_client', 'client authentication failed')],
      // RFC 6749 section 5.2: no client authentication included is invalid_client, 401.
      [
        'a missing client_id',
        () => tokenRequest({ client_id: undefined }),
        401,
        oauthError('invalid_client', 'client authentication is missing: client_id is required'),
      ],
      [
        'a missing client_secret',
        () => tokenRequest({ client_secret: undefined }),
        401,
        oauthError('invalid_client', 'client authentication is missing: client_secret is required'),
      ],
      ['a missing grant_type', () => tokenRequest({ grant_type: undefined }), 400, oauthError('invalid_request', 'grant_type is required')],
      [
        'another grant type',
        () => tokenRequest({ grant_type: 'password' }),
        400,
        oauthError('unsupported_grant_type', 'grant_type "password" is not supported; use client_credentials'),
      ],
      ['a missing audience', () => tokenRequest({ audience: undefined }), 400, oauthError('invalid_request', 'audience is required')],
      [
        'a missing intermediary_id',
        () => tokenRequest({ intermediary_id: undefined }),
        400,
        oauthError('invalid_request', 'intermediary_id is required'),
      ],
      [
        'an intermediary the client may not act for',
        () => tokenRequest({ intermediary_id: 'agency-3' }),
        400,
        oauthError('invalid_request', 'intermediary_id "agency-3" is not an intermediary this client may act for'),
      ],
      [
        'a scope the client does not hold',
        () => tokenRequest({ scope: 'caas:classifieds:delete', intermediary_id: 'agency-9' }, narrow),
        400,
        oauthError('invalid_scope', 'scope "caas:classifieds:delete" is not granted to this client'),
      ],
      [
        'a wildcard broader than the client holds',
        () => tokenRequest({ scope: 'caas:*', intermediary_id: 'agency-9' }, narrow),
        400,
        oauthError('invalid_scope', 'scope "caas:*" is not granted to this client'),
      ],
      [
        'a scope of another API than the audience',
        () => tokenRequest({ scope: 'clim:listings:read' }),
        400,
        oauthError('invalid_scope', `scope "clim:listings:read" is not a scope of ${'BASE'}/caas/v4`),
      ],
      [
        'a scope in the wrong case',
        () => tokenRequest({ scope: 'CAAS:classifieds:read' }),
        400,
        oauthError('invalid_scope', `scope "CAAS:classifieds:read" is not a scope of ${'BASE'}/caas/v4`),
      ],
      [
        'a client holding no scope of the audience',
        () => tokenRequest({ audience: 'BASE/seeker-leads/v1', intermediary_id: 'agency-9' }, narrow),
        400,
        oauthError('invalid_scope', 'the client holds no scope of BASE/seeker-leads/v1'),
      ],
      [
        'a repeated parameter',
        () => tokenRequest({ scope: ['caas:*', 'caas:*'] }),
        400,
        oauthError('invalid_request', 'scope must be given once, as a string'),
      ],
    ];
    for (const [name, body, status, expected] of cases) {
      it(name, async () => {
        const withBase = JSON.parse(JSON.stringify(body()).replaceAll('BASE', server.base));
        const result = await http('POST', `${server.base}/oauth/token`, { body: withBase });
        assert.equal(result.status, status);
        assert.deepEqual(result.body, {
          error: expected.error,
          error_description: expected.error_description.replaceAll('BASE', server.base),
        });
        assert.equal(result.headers.get('cache-control'), 'no-store');
        // Credentials sent in the body: no challenge (RFC 6749 section 5.2 asks for one only after HTTP Basic).
        assert.equal(result.headers.get('www-authenticate'), null);
      });
    }

    it('an audience that is not an API root of this server (invalid_target)', async () => {
      const result = await http('POST', `${server.base}/oauth/token`, {
        body: tokenRequest({ audience: 'https://elsewhere.example/caas/v4' }),
      });
      assert.equal(result.status, 400);
      const roots = [
        '/caas/v4',
        '/sandbox/caas/v4',
        '/import-listings/v1',
        '/sandbox/import-listings/v1',
        '/seeker-leads/v1',
        '/sandbox/seeker-leads/v1',
      ];
      assert.deepEqual(result.body, {
        error: 'invalid_target',
        error_description: `audience "https://elsewhere.example/caas/v4" is not an API root of this server; use one of ${roots
          .map((root) => server.base + root)
          .join(', ')}`,
      });
    });

    it('credentials both by Basic and in the body', async () => {
      const basic = Buffer.from(`${client.clientId}:${client.secret}`).toString('base64');
      const result = await http('POST', `${server.base}/oauth/token`, {
        headers: { authorization: `Basic ${basic}` },
        body: tokenRequest(),
      });
      assert.equal(result.status, 400);
      assert.deepEqual(
        result.body,
        oauthError('invalid_request', 'send the client credentials either by HTTP Basic or in the body, not both'),
      );
    });

    it('no client credentials at all: invalid_client with the Basic challenge, the scheme besides the body', async () => {
      const result = await http('POST', `${server.base}/oauth/token`, {
        body: tokenRequest({ client_id: undefined, client_secret: undefined }),
      });
      assert.equal(result.status, 401);
      assert.deepEqual(result.body, oauthError('invalid_client', 'client authentication is missing: send client_id and client_secret'));
      assert.equal(result.headers.get('www-authenticate'), 'Basic realm="immogate", charset="UTF-8"');
      assert.equal(result.headers.get('cache-control'), 'no-store');
    });

    it('a Basic header with a wrong secret', async () => {
      const basic = Buffer.from(`${client.clientId}:nope`).toString('base64');
      const body = tokenRequest({ client_id: undefined, client_secret: undefined });
      const result = await http('POST', `${server.base}/oauth/token`, { headers: { authorization: `Basic ${basic}` }, body });
      assert.equal(result.status, 401);
      assert.deepEqual(result.body, oauthError('invalid_client', 'client authentication failed'));
      assert.equal(result.headers.get('www-authenticate'), 'Basic realm="immogate", charset="UTF-8"');
    });

    it('a disabled client', async () => {
      const disabled = await makeClient(server.pool, ['agency-1'], ['caas:*']);
      await server.pool.query('UPDATE clients SET disabled_at = now() WHERE client_id = $1', [disabled.clientId]);
      const result = await http('POST', `${server.base}/oauth/token`, { body: tokenRequest({}, disabled) });
      assert.equal(result.status, 401);
      assert.deepEqual(result.body, oauthError('invalid_client', 'client authentication failed'));
    });

    it('a body that is not JSON', async () => {
      const result = await http('POST', `${server.base}/oauth/token`, {
        headers: { 'content-type': 'application/json' },
        raw: '{"grant_type":',
      });
      assert.equal(result.status, 400);
      const message = (() => {
        try {
          return JSON.parse('{"grant_type":') as string;
        } catch (error) {
          return (error as Error).message;
        }
      })();
      assert.deepEqual(result.body, oauthError('invalid_request', `the body is not valid JSON: ${message}.`));
    });

    it('a content type other than JSON or form', async () => {
      const result = await http('POST', `${server.base}/oauth/token`, { headers: { 'content-type': 'text/plain' }, raw: 'hello' });
      assert.equal(result.status, 400);
      assert.deepEqual(result.body, oauthError('invalid_request', 'send application/json or application/x-www-form-urlencoded'));
    });

    it('a JSON body that is not an object', async () => {
      const result = await http('POST', `${server.base}/oauth/token`, { body: ['client_credentials'] });
      assert.equal(result.status, 400);
      assert.deepEqual(result.body, oauthError('invalid_request', 'the body must be a JSON object or form-encoded parameters'));
    });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public signing key the tokens name in their kid', async () => {
    const token = await http('POST', `${server.base}/oauth/token`, { body: tokenRequest() });
    const { kid } = decodeProtectedHeader((token.body as { access_token: string }).access_token);
    const result = await http('GET', `${server.base}/.well-known/jwks.json`);
    assert.equal(result.status, 200);
    const keys = (result.body as { keys: Array<Record<string, string>> }).keys;
    assert.equal(keys.length, 1);
    const key = keys[0] as Record<string, string>;
    assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.deepEqual([key.kid, key.alg, key.kty, key.crv, key.use], [kid, 'ES256', 'EC', 'P-256', 'sig']);
  });

  it('is shared by every process: a second server on the same database signs with the same key', async () => {
    const second = await startTestServer(fixture.database);
    try {
      const first = await http('GET', `${server.base}/.well-known/jwks.json`);
      const other = await http('GET', `${second.base}/.well-known/jwks.json`);
      assert.deepEqual(other.body, first.body);
    } finally {
      await second.close();
    }
  });
});
