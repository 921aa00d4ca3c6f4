/*
 * What a browser or a cache may do with immogate's answers. /docs (whose Authorize dialog takes a
 * client secret) has a Content-Security-Policy that forbids framing, and X-Frame-Options: DENY.
 * Every answer carrying personal data or secrets has Cache-Control: no-store, errors included:
 * the lead API in both environments, the console's backend, /admin and the token endpoint.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleSession } from '../fixtures/console.js';
import { leadRequest } from '../fixtures/leads.js';
import { http, type HttpResult, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'surface-operator-token-0123456789';
const AGENCY = 'agency-s';
const fixture = useServer({ env: { ADMIN_TOKEN }, client: { intermediaries: [AGENCY], scopes: ['caas:*', 'clim:*', 'leads:*'] } });
let base: string;

before(async () => {
  await fixture.ready();
  base = fixture.server.base;
});

function assertNoStore(result: HttpResult, status: number, what: string): void {
  assert.equal(result.status, status, `${what}: ${result.text}`);
  assert.equal(result.headers.get('cache-control'), 'no-store', what);
}

describe('/docs', () => {
  it('has a Content-Security-Policy with frame-ancestors none, X-Frame-Options: DENY and no referrer', async () => {
    const page = await http('GET', `${base}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(
      page.headers.get('content-security-policy'),
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
        `connect-src 'self' ${base}; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
    );
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    // Its scripts come with the same policy.
    const initializer = await http('GET', `${base}/docs/static/swagger-initializer.js`);
    assert.equal(initializer.status, 200);
    assert.equal(initializer.headers.get('content-security-policy'), page.headers.get('content-security-policy'));
  });
});

describe('Cache-Control: no-store', () => {
  it('on every answer of the lead API, in both environments: reads, writes, errors, its document', async () => {
    for (const root of ['/seeker-leads/v1', '/sandbox/seeker-leads/v1']) {
      const token = await fixture.token({ root, intermediary: AGENCY });
      const headers = { authorization: `Bearer ${token}` };
      const created = await http('POST', `${base}${root}/leads`, { headers, body: leadRequest() });
      assertNoStore(created, 200, `POST ${root}/leads`);
      const { requestId } = created.body as { requestId: string };
      const now = Math.floor(Date.now() / 1000);
      assertNoStore(
        await http('GET', `${base}${root}/leads?minDate=${now - 60}&maxDate=${now + 60}`, { headers }),
        200,
        `GET ${root}/leads`,
      );
      assertNoStore(await http('GET', `${base}${root}/leads/${requestId}`, { headers }), 404, `GET ${root}/leads/{id} of no lead`);
      assertNoStore(await http('GET', `${base}${root}/leads`), 401, `GET ${root}/leads without a token`);
      assertNoStore(await http('POST', `${base}${root}/leads`, { headers, body: { firstName: 1 } }), 400, `POST ${root}/leads refused`);
      assertNoStore(await http('GET', `${base}${root}/webhook/subscriptions`, { headers }), 200, `GET ${root}/webhook/subscriptions`);
      assertNoStore(await http('GET', `${base}${root}/openapi.json`), 200, `GET ${root}/openapi.json`);
    }
  });

  it("on every answer of the console's backend: sign-in (refused and not), the session, the APIs through it", async () => {
    assertNoStore(
      await http('POST', `${base}/console/api/session`, {
        body: { kind: 'integrator', clientId: fixture.client.clientId, clientSecret: 'wrong', agency: AGENCY, environment: 'sandbox' },
      }),
      401,
      'a refused sign-in',
    );
    const session = await ConsoleSession.asClient(base, fixture.client, AGENCY);
    assert.equal(session.signedIn.headers.get('cache-control'), 'no-store');
    assertNoStore(await session.request('GET', '/session'), 200, 'GET /console/api/session');
    const now = Math.floor(Date.now() / 1000);
    assertNoStore(
      await session.request('GET', `/leads/leads?minDate=${now - 60}&maxDate=${now + 60}`),
      200,
      'the leads through the console',
    );
    assertNoStore(await session.request('GET', '/caas/classifieds'), 200, 'the classifieds through the console');
    assertNoStore(await session.request('GET', '/tokens'), 200, "the client's tokens");
    assertNoStore(await http('GET', `${base}/console/api/session`), 401, 'the session without a cookie');
    const operator = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    assertNoStore(
      await operator.request('POST', '/admin/clients', { body: { name: 'x', intermediaries: ['a-1'] } }),
      201,
      'a secret shown once',
    );
  });

  it('on every answer of /admin and of the token endpoint', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    assertNoStore(await http('GET', `${base}/admin/clients`, { headers }), 200, 'GET /admin/clients');
    assertNoStore(
      await http('POST', `${base}/admin/clients/${fixture.client.clientId}/secret`, { headers: { authorization: 'Bearer nope' } }),
      401,
      'a wrong admin token',
    );
    assertNoStore(await http('GET', `${base}/admin/deliveries/not-a-uuid`, { headers }), 400, 'a refused admin request');
    const token = (body: Record<string, string>) => http('POST', `${base}/oauth/token`, { body });
    const request = {
      grant_type: 'client_credentials',
      client_id: fixture.client.clientId,
      client_secret: fixture.client.secret,
      audience: `${base}/seeker-leads/v1`,
      intermediary_id: AGENCY,
    };
    assertNoStore(await token(request), 200, 'a token');
    assertNoStore(await token({ ...request, client_secret: 'wrong' }), 401, 'a refused client');
    assertNoStore(await token({ ...request, grant_type: 'password' }), 400, 'a refused grant');
  });
});
