/*
 * The guard every API route runs first: the firewall's User-Agent rule, the bearer token, the
 * route's scope, and the tenant it leaves behind. No API exists yet, so a probe module puts one
 * route per scope under every root; tokens come from the real token endpoint, and the tokens no
 * honest endpoint would issue (expired, foreign scopes) are signed with the server's own key.
 */
import { sealerFor } from '../../src/platform/secrets/sealer.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose';
import { APIS, rootPath, type ApiDescriptor } from '../../src/platform/catalogue.js';
import type { ApiModule } from '../../src/platform/module.js';
import { disableClient } from '../../src/platform/auth/clients.js';
import {
  getToken,
  http,
  makeClient,
  rawHttp,
  type HttpResult,
  type TestClient,
  type TestServer,
  useServer,
  assertProblemBody as assertProblem,
} from '../helpers.js';

const api = (id: ApiDescriptor['id']): ApiDescriptor => APIS.find((candidate) => candidate.id === id) as ApiDescriptor;
const caas = api('caas');
const clim = api('clim');
const leads = api('leads');

/** Per API: the scope of GET /probe and of GET /probe/wildcard (a webhook-style wildcard scope). */
const PROBE_SCOPES: Record<ApiDescriptor['id'], { read: string; wildcard: string }> = {
  caas: { read: 'caas:classifieds:read', wildcard: 'caas:classifieds:*' },
  clim: { read: 'clim:listings:read', wildcard: 'clim:listings:*' },
  leads: { read: 'leads:read', wildcard: 'leads:*' },
};

const probes: ApiModule[] = APIS.map((descriptor) => ({
  api: descriptor,
  routes: async (app) => {
    const scopes = PROBE_SCOPES[descriptor.id];
    app.get('/probe', { config: { scope: scopes.read } }, async (request) => ({ tenant: request.tenant }));
    app.get('/probe/wildcard', { config: { scope: scopes.wildcard } }, async (request) => ({ tenant: request.tenant }));
  },
}));

const fixture = useServer({ apis: probes, client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*', 'clim:*', 'leads:*'] } });
let server: TestServer;
let client: TestClient;
let signing: { kid: string; jwk: JWK };

before(async () => {
  await fixture.ready();
  server = fixture.server;
  client = fixture.client;
  // The private key is stored sealed: opened here with the server's own key, as the server does.
  const { rows } = await server.pool.query<{ kid: string; private_jwk_sealed: string }>(
    'SELECT kid, private_jwk_sealed FROM signing_keys ORDER BY created_at DESC LIMIT 1',
  );
  const kid = rows[0]!.kid;
  signing = { kid, jwk: JSON.parse(sealerFor(server.config).unseal(rows[0]!.private_jwk_sealed, `signing-key:${kid}`)) as JWK };
});

const url = (descriptor: ApiDescriptor, path = '/probe', environment: 'production' | 'sandbox' = 'production') =>
  server.base + rootPath(descriptor, environment) + path;

function token(root: string, scope?: string, who: TestClient = client, intermediary = 'agency-1'): Promise<string> {
  return getToken(server, who, { root, intermediary, ...(scope === undefined ? {} : { scope }) });
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

/** Claims as the token endpoint would write them for the production classifieds root. */
function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: server.base,
    sub: client.clientId,
    aud: `${server.base}/caas/v4`,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    scope: 'caas:*',
    intermediary_id: 'agency-1',
    ...overrides,
  };
}

/** A token signed with the server's own private key: valid in every respect but what the test changes. */
async function forge(overrides: JWTPayload = {}, kid = signing.kid): Promise<string> {
  const key = await importJWK(signing.jwk, 'ES256');
  return new SignJWT(claims(overrides)).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** No bearer token at all: the bare RFC 6750 challenge. */
function assertNoToken(result: HttpResult, detail: string): void {
  assertProblem(result, 401, { type: '/problems/unauthorized', title: 'Unauthorized', detail });
  assert.equal(result.headers.get('www-authenticate'), 'Bearer');
}

/** A bearer token refused: the challenge says invalid_token (RFC 6750 section 3.1). */
function assertInvalidToken(result: HttpResult, reason: string): void {
  assertProblem(result, 401, { type: '/problems/unauthorized', title: 'Unauthorized', detail: `The access token is not valid: ${reason}` });
  assert.equal(result.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
}

function assertMissingScope(result: HttpResult, scope: string): void {
  assertProblem(result, 403, { type: '/problems/forbidden', title: 'Forbidden', detail: `The access token lacks the scope ${scope}` });
  assert.equal(result.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="${scope}"`);
}

function assertForbidden(result: HttpResult, detail: string): void {
  assertProblem(result, 403, { type: '/problems/forbidden', title: 'Forbidden', detail });
  assert.equal(result.headers.get('www-authenticate'), null);
}

function assertHeaderProblem(result: HttpResult, verb: 'must be' | 'is required' = 'must be'): void {
  assertProblem(result, 400, {
    type: '/problems/bad-request',
    title: 'Bad request',
    detail: 'Your request has not been validated',
    errors: [{ name: 'User-Agent', reason: `${verb} three space-separated name/version parts, e.g. "MyCrm/1.0.0 curl/7.52.1 debian/9".` }],
    errorSource: 'header',
  });
}

/** fetch always sends a User-Agent of its own, so a request without one goes through node:http. */
function withoutUserAgent(target: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return rawHttp('GET', target, headers);
}

const USER_AGENT_REQUIRED = 'Requests without a User-Agent header are refused';

describe('User-Agent', () => {
  it('a request without one, before the token is looked at: 400 (errorSource header) on the classifieds API, 403 (the firewall) on the listing import; the lead API needs none', async () => {
    for (const environment of ['production', 'sandbox'] as const) {
      const tokenOf = (descriptor: (typeof APIS)[number]) => token(rootPath(descriptor, environment));
      assertHeaderProblem(await withoutUserAgent(url(caas, '/probe', environment), bearer(await tokenOf(caas))), 'is required');
      assertHeaderProblem(await withoutUserAgent(url(caas, '/probe', environment)), 'is required');
      assertForbidden(await withoutUserAgent(url(clim, '/probe', environment), bearer(await tokenOf(clim))), USER_AGENT_REQUIRED);
      assertForbidden(await withoutUserAgent(url(clim, '/probe', environment)), USER_AGENT_REQUIRED);
      assert.equal((await withoutUserAgent(url(leads, '/probe', environment), bearer(await tokenOf(leads)))).status, 200);
      assertNoToken(await withoutUserAgent(url(leads, '/probe', environment)), 'The Authorization header with a Bearer token is required');
    }
  });

  it('an empty or blank one counts as missing', async () => {
    const auth = bearer(await token('/import-listings/v1'));
    assertForbidden(await http('GET', url(clim), { headers: { ...auth, 'user-agent': '' } }), USER_AGENT_REQUIRED);
    assertForbidden(await http('GET', url(clim), { headers: { ...auth, 'user-agent': '   ' } }), USER_AGENT_REQUIRED);
    assertHeaderProblem(await http('GET', url(caas), { headers: { ...bearer(await token('/caas/v4')), 'user-agent': '' } }), 'is required');
  });

  it('the classifieds API refuses a User-Agent that is not three name/version parts, with errorSource header', async () => {
    const auth = bearer(await token('/caas/v4'));
    const malformed = [
      'curl/7.52.1',
      'MyCrm/1.0.0 curl/7.52.1',
      'MyCrm/1.0.0 curl/7.52.1 debian/9 extra/1',
      'MyCrm/1.0.0  curl/7.52.1 debian/9',
      'My Crm/1.0.0 curl/7.52.1 debian/9',
      'MyCrm/1.0/0 curl/7.52.1 debian/9',
      'MyCrm/ curl/7.52.1 debian/9',
      'Mozilla/5.0 (X11; Linux x86_64)',
    ];
    for (const userAgent of malformed) {
      assertHeaderProblem(await http('GET', url(caas), { headers: { ...auth, 'user-agent': userAgent } }));
    }
  });

  it('the classifieds sandbox root checks the three-part form too', async () => {
    const auth = bearer(await token('/sandbox/caas/v4'));
    assertHeaderProblem(await http('GET', url(caas, '/probe', 'sandbox'), { headers: { ...auth, 'user-agent': 'curl/8.5.0' } }));
  });

  it('the classifieds API accepts the three-part form of contract-notes', async () => {
    const auth = bearer(await token('/caas/v4'));
    for (const userAgent of ['MyCrm/1.0.0 curl/7.52.1 debian/9', 'a/b c/d e/f', 'Crm-X/2024.1_beta node/20.18.1 linux/6.8.0-x']) {
      const result = await http('GET', url(caas), { headers: { ...auth, 'user-agent': userAgent } });
      assert.equal(result.status, 200, userAgent);
    }
  });

  it('the classifieds API decides exactly as the contract-notes regex does', async () => {
    const contract = /^[^/\s]+\/[^/\s]+\s{1}[^/\s]+\/[^/\s]+\s{1}[^/\s]+\/[^/\s]+$/;
    const auth = bearer(await token('/caas/v4'));
    const samples = ['MyCrm/1.0.0 curl/7.52.1 debian/9', 'MyCrm/1.0.0\tcurl/7.52.1 debian/9', 'a/b c/d', 'a/b c/d e/f g/h', 'ä/1 ö/2 ü/3'];
    for (const userAgent of samples) {
      const result = await http('GET', url(caas), { headers: { ...auth, 'user-agent': userAgent } });
      if (contract.test(userAgent)) assert.equal(result.status, 200, userAgent);
      else assertHeaderProblem(result);
    }
  });

  it('the other APIs accept any non-empty User-Agent', async () => {
    for (const descriptor of [clim, leads]) {
      const auth = bearer(await token(descriptor.root));
      for (const userAgent of ['curl/8.5.0', 'x', 'My CRM (build 7)']) {
        const result = await http('GET', url(descriptor), { headers: { ...auth, 'user-agent': userAgent } });
        assert.equal(result.status, 200, `${descriptor.id} ${userAgent}`);
      }
    }
  });
});

describe('bearer token failures, one by one (401 unless a scope is missing)', () => {
  it('no Authorization header', async () => {
    assertNoToken(await http('GET', url(caas)), 'The Authorization header with a Bearer token is required');
  });

  it('another scheme than Bearer', async () => {
    const basic = Buffer.from(`${client.clientId}:${client.secret}`).toString('base64');
    assertNoToken(
      await http('GET', url(caas), { headers: { authorization: `Basic ${basic}` } }),
      'The Authorization header must be "Bearer <access token>"',
    );
  });

  it('Bearer with no token', async () => {
    assertNoToken(
      await http('GET', url(caas), { headers: { authorization: 'Bearer' } }),
      'The Authorization header must be "Bearer <access token>"',
    );
  });

  it('a garbage token', async () => {
    assertInvalidToken(await http('GET', url(caas), { headers: bearer('not-a-jwt') }), 'the token is not a well-formed JWT');
  });

  it('a tampered payload (another agency) under the original signature', async () => {
    const [header, payload, signature] = (await token('/caas/v4')).split('.') as [string, string, string];
    const changed = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), intermediary_id: 'agency-2' };
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(`${header}.${b64(changed)}.${signature}`) }),
      'the token signature is invalid',
    );
  });

  it('a tampered signature', async () => {
    const [header, payload, signature] = (await token('/caas/v4')).split('.') as [string, string, string];
    const middle = Math.floor(signature.length / 2);
    const flipped = signature.slice(0, middle) + (signature[middle] === 'A' ? 'B' : 'A') + signature.slice(middle + 1);
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(`${header}.${payload}.${flipped}`) }),
      'the token signature is invalid',
    );
  });

  it('an unsigned token (alg none)', async () => {
    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt', kid: signing.kid })}.${b64(claims())}.`;
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(unsigned) }), 'the token algorithm must be ES256');
  });

  it('an HS256 token signed with some secret', async () => {
    const hs256 = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: signing.kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!'));
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(hs256) }), 'the token algorithm must be ES256');
  });

  it('a token naming a kid this server never had', async () => {
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(await forge({}, randomUUID())) }),
      'the token was not signed by this server',
    );
  });

  it('a token signed by a foreign ES256 key under our kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: 'at+jwt' }).sign(privateKey);
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(foreign) }), 'the token signature is invalid');
  });

  it('an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(await forge({ iat: now - 90_000, exp: now - 3600 })) }),
      'the token has expired',
    );
  });

  it('a token of another issuer', async () => {
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(await forge({ iss: 'https://elsewhere.example' })) }),
      `the token's issuer is https://elsewhere.example, expected ${server.base}`,
    );
  });

  it('a token without an expiry', async () => {
    const key = await importJWK(signing.jwk, 'ES256');
    const { exp: _exp, ...rest } = claims();
    const eternal = await new SignJWT(rest).setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: 'at+jwt' }).sign(key);
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(eternal) }), 'the token is invalid (missing required "exp" claim)');
  });

  it('a token without the at+jwt type (RFC 9068)', async () => {
    const key = await importJWK(signing.jwk, 'ES256');
    const untyped = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: signing.kid }).sign(key);
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(untyped) }),
      'the token is invalid (unexpected "typ" JWT header value)',
    );
  });

  it('a sandbox token on the production root', async () => {
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(await token('/sandbox/caas/v4')) }),
      `the token's audience is ${server.base}/sandbox/caas/v4, expected ${server.base}/caas/v4`,
    );
  });

  it('a production token on the sandbox root', async () => {
    assertInvalidToken(
      await http('GET', url(caas, '/probe', 'sandbox'), { headers: bearer(await token('/caas/v4')) }),
      `the token's audience is ${server.base}/caas/v4, expected ${server.base}/sandbox/caas/v4`,
    );
  });

  it('a token of another API (listing import token on the classifieds API)', async () => {
    assertInvalidToken(
      await http('GET', url(caas), { headers: bearer(await token('/import-listings/v1')) }),
      `the token's audience is ${server.base}/import-listings/v1, expected ${server.base}/caas/v4`,
    );
  });

  it('a token of a client disabled after it was issued', async () => {
    // A client of its own, never seen by the guard: the guard caches a client's status for a while.
    const doomed = await makeClient(server.pool, ['agency-1'], ['caas:*']);
    const issued = await token('/caas/v4', undefined, doomed);
    await disableClient(server.pool, doomed.clientId);
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(issued) }), 'its client is disabled');
  });

  it('a token whose client does not exist', async () => {
    assertInvalidToken(await http('GET', url(caas), { headers: bearer(await forge({ sub: 'ig_nobody' })) }), 'its client is disabled');
  });

  it('a valid token without the route scope: 403 naming the scope', async () => {
    assertMissingScope(
      await http('GET', url(caas), { headers: bearer(await token('/caas/v4', 'caas:classifieds:create')) }),
      'caas:classifieds:read',
    );
  });
});

describe('scopes', () => {
  const get = async (target: string, scope: string, root = '/caas/v4') =>
    http('GET', target, { headers: bearer(await token(root, scope)) });

  it('caas:* grants caas:classifieds:read and the wildcard route caas:classifieds:*', async () => {
    assert.equal((await get(url(caas), 'caas:*')).status, 200);
    assert.equal((await get(url(caas, '/probe/wildcard'), 'caas:*')).status, 200);
  });

  it('caas:classifieds:* grants caas:classifieds:read and itself', async () => {
    assert.equal((await get(url(caas), 'caas:classifieds:*')).status, 200);
    assert.equal((await get(url(caas, '/probe/wildcard'), 'caas:classifieds:*')).status, 200);
  });

  it('caas:classifieds:read grants itself but not caas:classifieds:*', async () => {
    assert.equal((await get(url(caas), 'caas:classifieds:read')).status, 200);
    assertMissingScope(await get(url(caas, '/probe/wildcard'), 'caas:classifieds:read'), 'caas:classifieds:*');
  });

  it('caas:classifieds:create does not grant caas:classifieds:read', async () => {
    assertMissingScope(await get(url(caas), 'caas:classifieds:create'), 'caas:classifieds:read');
  });

  it('scopes are case sensitive', async () => {
    for (const scope of ['CAAS:*', 'caas:Classifieds:read', 'caas:classifieds:READ', 'Caas:classifieds:*']) {
      assertMissingScope(await http('GET', url(caas), { headers: bearer(await forge({ scope })) }), 'caas:classifieds:read');
    }
  });

  it('a wildcard of another API or a bare prefix grants nothing here', async () => {
    for (const scope of ['clim:*', 'leads:*', '*', 'caas', 'caas:', 'caas:classifieds', 'caasx:*', 'caas:classifieds:read:*']) {
      assertMissingScope(await http('GET', url(caas), { headers: bearer(await forge({ scope })) }), 'caas:classifieds:read');
    }
  });

  it('one granting scope among several is enough', async () => {
    const result = await http('GET', url(caas), {
      headers: bearer(await forge({ scope: 'caas:classifieds:create caas:classifieds:read' })),
    });
    assert.equal(result.status, 200);
  });

  it('clim:* and clim:listings:* grant clim:listings:read; clim:medias:* does not', async () => {
    assert.equal((await get(url(clim), 'clim:*', '/import-listings/v1')).status, 200);
    assert.equal((await get(url(clim), 'clim:listings:*', '/import-listings/v1')).status, 200);
    assert.equal((await get(url(clim, '/probe/wildcard'), 'clim:*', '/import-listings/v1')).status, 200);
    assertMissingScope(await get(url(clim), 'clim:medias:*', '/import-listings/v1'), 'clim:listings:read');
    assertMissingScope(await get(url(clim, '/probe/wildcard'), 'clim:listings:read', '/import-listings/v1'), 'clim:listings:*');
  });

  it('leads:* grants leads:read; leads:webhooks does not', async () => {
    assert.equal((await get(url(leads), 'leads:*', '/seeker-leads/v1')).status, 200);
    assertMissingScope(await get(url(leads), 'leads:webhooks', '/seeker-leads/v1'), 'leads:read');
  });
});

describe('tenant', () => {
  it('a production call runs in production, for the intermediary and client of its token', async () => {
    const result = await http('GET', url(caas), {
      headers: bearer(await token('/caas/v4', 'caas:classifieds:read caas:classifieds:create')),
    });
    assert.equal(result.status, 200);
    assert.deepEqual(result.body, {
      tenant: {
        environment: 'production',
        agencyId: 'agency-1',
        clientId: client.clientId,
        scopes: ['caas:classifieds:read', 'caas:classifieds:create'],
      },
    });
  });

  it('a sandbox call runs in the sandbox, for the intermediary of its token', async () => {
    for (const descriptor of APIS) {
      const root = rootPath(descriptor, 'sandbox');
      const result = await http('GET', url(descriptor, '/probe', 'sandbox'), {
        headers: bearer(await token(root, undefined, client, 'agency-2')),
      });
      assert.equal(result.status, 200);
      assert.deepEqual(result.body, {
        tenant: { environment: 'sandbox', agencyId: 'agency-2', clientId: client.clientId, scopes: [`${descriptor.scopePrefix}:*`] },
      });
    }
  });
});

describe('OpenAPI document of guarded routes', () => {
  it('lists routes declared without a schema, with their scope and the token schemes', async () => {
    const result = await http('GET', url(caas, '/openapi.json'));
    assert.equal(result.status, 200);
    const document = result.body as { paths: Record<string, Record<string, Record<string, unknown>>> };
    // The probes, and the event feed every root serves.
    assert.deepEqual(Object.keys(document.paths).sort(), ['/events', '/probe', '/probe/wildcard']);
    assert.deepEqual(document.paths['/probe']?.get?.security, [{ oauth2: ['caas:classifieds:read'] }, { bearerAuth: [] }]);
    assert.equal(document.paths['/probe']?.get?.['x-scope'], 'caas:classifieds:read');
  });
});
