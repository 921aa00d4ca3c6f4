/*
 * The console's backend through real HTTP: signing in (as an integrator through the token
 * service's checks and /oauth/token, as an operator with ADMIN_TOKEN), the session cookie and its
 * CSRF token, each API acting through the console exactly as with the client's own token (tenant,
 * scopes, 404 for another agency's), the operator's pages being the /admin routes, signing out.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { assertProblem, getToken, http, makeClient, startTestServer, type TestClient, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const API_TITLES = { caas: 'Classifieds ingestion API', clim: 'Listing import API (German market)', leads: 'Lead API' };

const fixture = useServer({
  env: { ADMIN_TOKEN },
  client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*', 'clim:*', 'leads:*'] },
});

let base: string;
let client: TestClient;

before(async () => {
  await fixture.ready();
  base = fixture.server.base;
  client = fixture.client;
});

function integrator(overrides: Record<string, unknown> = {}) {
  return {
    kind: 'integrator' as const,
    clientId: client.clientId,
    clientSecret: client.secret,
    agency: 'agency-1',
    environment: 'sandbox' as const,
    ...overrides,
  };
}

async function tokensIssued(clientId: string): Promise<number> {
  const { rows } = await fixture.server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM token_issuance WHERE client_id = $1', [
    clientId,
  ]);
  return rows[0]?.n ?? 0;
}

describe('signing in as an integrator', () => {
  it('answers the session and sets an HttpOnly, SameSite=Strict cookie; the tokens come from /oauth/token, one per API', async () => {
    const own = await makeClient(fixture.server.pool, ['agency-9'], ['caas:classifieds:read', 'leads:*'], ['sandbox']);
    const session = await ConsoleSession.asClient(base, own, 'agency-9');
    const result = session.signedIn;
    assert.match(
      result.headers.get('set-cookie') ?? '',
      /^immogate_console=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=2879[0-9]; HttpOnly; SameSite=Strict$/,
    );
    // The answer carries the session's CSRF token: no cache may keep it.
    assert.equal(result.headers.get('cache-control'), 'no-store');
    const body = result.body as Record<string, unknown>;
    assert.match(String(body.csrfToken), /^[A-Za-z0-9_-]{32}$/);
    assert.match(String(body.expiresAt), ISO);
    assert.deepEqual(body, {
      kind: 'integrator',
      clientId: own.clientId,
      clientName: 'test client',
      agency: 'agency-9',
      environment: 'sandbox',
      apis: [
        { id: 'caas', title: API_TITLES.caas, scopes: ['caas:classifieds:read'] },
        { id: 'leads', title: API_TITLES.leads, scopes: ['leads:*'] },
      ],
      csrfToken: body.csrfToken,
      expiresAt: body.expiresAt,
    });
    const { rows } = await fixture.server.pool.query<{ audience: string; intermediary_id: string }>(
      'SELECT audience, intermediary_id FROM token_issuance WHERE client_id = $1 ORDER BY audience',
      [own.clientId],
    );
    assert.deepEqual(rows, [
      { audience: `${base}/sandbox/caas/v4`, intermediary_id: 'agency-9' },
      { audience: `${base}/sandbox/seeker-leads/v1`, intermediary_id: 'agency-9' },
    ]);
    const again = await session.request('GET', '/session');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, body);
  });

  it('reuses the tokens of an earlier sign-in: signing in again costs the client no token', async () => {
    const own = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*', 'clim:*', 'leads:*'], ['sandbox']);
    await ConsoleSession.asClient(base, own, 'agency-1');
    assert.equal(await tokensIssued(own.clientId), 3);
    for (let i = 0; i < 3; i++) await ConsoleSession.asClient(base, own, 'agency-1');
    assert.equal(await tokensIssued(own.clientId), 3);
  });

  it('refuses a wrong secret with 401 and sets no cookie', async () => {
    const result = await http('POST', `${base}/console/api/session`, { body: integrator({ clientSecret: 'not-the-secret' }) });
    assertProblem(result, 401, 'Unauthorized', 'The Client ID or the Client secret is wrong');
    assert.equal(result.headers.get('set-cookie'), null);
  });

  it('refuses an agency or an environment the client does not hold, naming it', async () => {
    assertProblem(
      await http('POST', `${base}/console/api/session`, { body: integrator({ agency: 'agency-3' }) }),
      403,
      'Forbidden',
      'The token service refused: intermediary_id "agency-3" is not an intermediary this client may act for',
    );
    const sandboxOnly = await makeClient(fixture.server.pool, ['agency-1'], ['leads:*'], ['sandbox']);
    assertProblem(
      await http('POST', `${base}/console/api/session`, {
        body: { ...integrator(), clientId: sandboxOnly.clientId, clientSecret: sandboxOnly.secret, environment: 'production' },
      }),
      403,
      'Forbidden',
      'The token service refused: this client may get tokens for the sandbox environment only, not production',
    );
  });

  it('names each member a sign-in lacks or should not have', async () => {
    assertProblem(
      await http('POST', `${base}/console/api/session`, { body: { kind: 'integrator', clientId: client.clientId, adminToken: 'x' } }),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [
          { name: '/clientSecret', reason: 'is required to sign in as an integrator.' },
          { name: '/agency', reason: 'is required to sign in as an integrator.' },
          { name: '/environment', reason: 'is required to sign in as an integrator.' },
          { name: '/adminToken', reason: "is not a member of an integrator's sign-in." },
        ],
        errorSource: 'body',
      },
    );
    assertProblem(
      await http('POST', `${base}/console/api/session`, { body: { kind: 'visitor', password: 'x' } }),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [
          { name: '/password', reason: 'must NOT have additional properties: password.' },
          { name: '/kind', reason: 'must be equal to one of the allowed values: integrator, operator.' },
        ],
        errorSource: 'body',
      },
    );
  });
});

describe('the session cookie behind https', () => {
  it('is Secure when PUBLIC_URL is https', async () => {
    // The same database served again as if behind a TLS proxy: PUBLIC_URL names https, the test speaks http to it.
    const behindTls = await startTestServer(fixture.database, { env: { PUBLIC_URL: 'https://immogate.example' } });
    try {
      const result = await http('POST', `http://127.0.0.1:${behindTls.config.port}/console/api/session`, { body: integrator() });
      assert.equal(result.status, 200, result.text);
      assert.match(result.headers.get('set-cookie') ?? '', /; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await behindTls.close();
    }
  });
});

describe('the session', () => {
  it('is needed for every console API route: 401 without it, or with a forged cookie', async () => {
    for (const cookie of [undefined, 'immogate_console=forged']) {
      const headers: Record<string, string> = cookie ? { cookie } : {};
      for (const path of ['/session', '/tokens', '/caas/summaries', '/leads/webhook/subscriptions', '/admin/clients']) {
        assertProblem(await http('GET', `${base}/console/api${path}`, { headers }), 401, 'Unauthorized', 'Sign in to the console first');
      }
    }
  });

  it('refuses an unsafe request without its CSRF token, and takes it with the token', async () => {
    const session = await ConsoleSession.signIn(base, integrator());
    const classified = minimalClassified();
    classified.data.metaData.source.offererEstateId = 'csrf-1';
    assertProblem(
      await session.request('POST', '/caas/classifieds', { body: classified, csrf: false }),
      403,
      'Forbidden',
      'The x-csrf-token header must carry the csrfToken of the session',
    );
    assertProblem(
      await session.request('POST', '/caas/classifieds', { body: classified, headers: { 'x-csrf-token': 'guessed' }, csrf: false }),
      403,
      'Forbidden',
      'The x-csrf-token header must carry the csrfToken of the session',
    );
    const accepted = await session.request('POST', '/caas/classifieds', { body: classified });
    assert.equal(accepted.status, 202, accepted.text);
  });

  it('ends with DELETE /session: the cookie is cleared and opens nothing any more', async () => {
    const session = await ConsoleSession.signIn(base, integrator());
    const out = await session.request('DELETE', '/session');
    assert.equal(out.status, 204, out.text);
    assert.equal(out.headers.get('set-cookie'), 'immogate_console=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict');
    assertProblem(await session.request('GET', '/session'), 401, 'Unauthorized', 'Sign in to the console first');
  });
});

describe('the APIs through the console', () => {
  it('act exactly as the client token would: what the console writes, the API root reads back, and the other way round', async () => {
    const session = await ConsoleSession.signIn(base, integrator());
    const classified = minimalClassified();
    classified.data.metaData.source.offererEstateId = 'through-console';
    // No User-Agent of three parts: a browser cannot send one.
    const ack = await session.request('POST', '/caas/classifieds', { body: classified, headers: { 'user-agent': 'Mozilla/5.0' } });
    assert.equal(ack.status, 202, ack.text);
    const { classifiedId } = ack.body as { classifiedId: string };
    assert.deepEqual(ack.body, { classifiedId, links: [{ statuses: `/classifieds/${classifiedId}/statuses` }] });

    const token = await getToken(fixture.server, client, { root: '/sandbox/caas/v4', intermediary: 'agency-1' });
    const direct = await http('GET', `${base}/sandbox/caas/v4/classifieds/${classifiedId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const viaConsole = await session.request('GET', `/caas/classifieds/${classifiedId}`);
    assert.equal(direct.status, 200, direct.text);
    assert.equal(viaConsole.status, 200, viaConsole.text);
    assert.equal(viaConsole.text, direct.text);
    assert.equal(viaConsole.headers.get('etag'), '"1"');
  });

  it('confine the session to its agency and environment: another agency’s classified is a 404', async () => {
    const other = await ConsoleSession.signIn(base, integrator({ agency: 'agency-2' }));
    const classified = minimalClassified();
    classified.data.metaData.source.offererEstateId = 'agency-2-only';
    const ack = await other.request('POST', '/caas/classifieds', { body: classified });
    assert.equal(ack.status, 202, ack.text);
    const { classifiedId } = ack.body as { classifiedId: string };
    const mine = await ConsoleSession.signIn(base, integrator());
    assertProblem(await mine.request('GET', `/caas/classifieds/${classifiedId}`), 404, 'Not found', `No classified ${classifiedId}`);
    const production = await ConsoleSession.signIn(base, integrator({ agency: 'agency-2', environment: 'production' }));
    assertProblem(await production.request('GET', `/caas/classifieds/${classifiedId}`), 404, 'Not found', `No classified ${classifiedId}`);
  });

  it('hold the client to its scopes, and to the APIs it holds scopes of', async () => {
    const reader = await makeClient(fixture.server.pool, ['agency-1'], ['caas:classifieds:read'], ['sandbox']);
    const session = await ConsoleSession.asClient(base, reader, 'agency-1');
    const refused = await session.request('POST', '/caas/classifieds', { body: minimalClassified() });
    assertProblem(refused, 403, 'Forbidden', 'The access token lacks the scope caas:classifieds:create');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="caas:classifieds:create"');
    const read = await session.request('GET', '/caas/summaries');
    assert.equal(read.status, 200, read.text);
    assertProblem(
      await session.request('GET', '/leads/webhook/subscriptions'),
      403,
      'Forbidden',
      'The client holds no scope of the Lead API',
    );
  });
});

describe('the operator', () => {
  it('signs in with ADMIN_TOKEN, and a wrong one is refused', async () => {
    const session = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const body = session.signedIn.body as Record<string, unknown>;
    assert.deepEqual(body, { kind: 'operator', apis: [], csrfToken: body.csrfToken, expiresAt: body.expiresAt });
    assertProblem(
      await http('POST', `${base}/console/api/session`, { body: { kind: 'operator', adminToken: 'guess' } }),
      401,
      'Unauthorized',
      'The admin token is wrong',
    );
  });

  it('manages clients through the /admin routes, the same under /admin with the token', async () => {
    const session = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const created = await session.request('POST', '/admin/clients', { body: { name: 'Acme CRM', intermediaries: ['acme-1'] } });
    assert.equal(created.status, 201, created.text);
    const { client: made, clientSecret } = created.body as { client: Record<string, unknown>; clientSecret: string };
    assert.match(clientSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(made, {
      clientId: made.clientId,
      name: 'Acme CRM',
      intermediaries: ['acme-1'],
      scopes: ['caas:*', 'clim:*', 'leads:*'],
      environments: ['sandbox'],
      createdAt: made.createdAt,
      secretRotatedAt: null,
      disabledAt: null,
    });
    // The new client works: it signs in to the console itself.
    await ConsoleSession.asClient(base, { clientId: String(made.clientId), secret: clientSecret }, 'acme-1');

    const environments = await session.request('PUT', `/admin/clients/${made.clientId}/environments`, {
      body: { environments: ['sandbox', 'production'] },
    });
    assert.equal(environments.status, 200, environments.text);
    assert.deepEqual((environments.body as Record<string, unknown>).environments, ['sandbox', 'production']);
    const rotated = await session.request('POST', `/admin/clients/${made.clientId}/secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual((rotated.body as { clientSecret: string }).clientSecret, clientSecret);
    const disabled = await session.request('POST', `/admin/clients/${made.clientId}/disable`);
    assert.equal(disabled.status, 200, disabled.text);
    assert.match(String((disabled.body as Record<string, unknown>).disabledAt), ISO);

    const viaConsole = await session.request('GET', '/admin/clients?limit=100');
    const viaAdmin = await http('GET', `${base}/admin/clients?limit=100`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(viaConsole.status, 200, viaConsole.text);
    assert.equal(viaConsole.text, viaAdmin.text);
    assert.ok((viaConsole.body as { items: { clientId: string }[] }).items.some((item) => item.clientId === made.clientId));

    assertProblem(await session.request('POST', '/admin/clients/ig_nobody/disable'), 404, 'Not found', 'No client ig_nobody');
  });

  it('pages the clients, newest first', async () => {
    const session = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await session.request('GET', `/admin/clients?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      const body = page.body as { items: { clientId: string }[]; nextCursor?: string };
      assert.ok(body.items.length <= 2);
      seen.push(...body.items.map((item) => item.clientId));
      cursor = body.nextCursor;
    } while (cursor);
    const { rows } = await fixture.server.pool.query<{ client_id: string }>(
      'SELECT client_id FROM clients ORDER BY created_at DESC, client_id DESC',
    );
    assert.deepEqual(
      seen,
      rows.map((row) => row.client_id),
    );
  });

  it('sees the pipeline and the token report; an integrator is kept out of both, an operator out of the APIs', async () => {
    const operator = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const pipeline = await operator.request('GET', '/admin/pipeline');
    assert.equal(pipeline.status, 200, pipeline.text);
    const body = pipeline.body as { streams: { name: string }[]; deliveries: Record<string, unknown> };
    assert.deepEqual(
      body.streams.map((stream) => stream.name),
      ['caas:processing', 'clim:openimmo', 'platform:webhooks'],
    );
    assert.deepEqual(Object.keys(body.deliveries), ['pending', 'oldestPendingAt', 'failed', 'deliveredToday']);
    const report = await operator.request('GET', '/admin/tokens/report');
    assert.equal(report.status, 200, report.text);
    assert.equal((report.body as { days: number }).days, 7);

    const integratorSession = await ConsoleSession.signIn(base, integrator());
    assertProblem(
      await integratorSession.request('GET', '/admin/pipeline'),
      403,
      'Forbidden',
      'The operator pages need an operator session (sign in with the admin token)',
    );
    assertProblem(
      await operator.request('GET', '/caas/summaries'),
      403,
      'Forbidden',
      'Operators do not act for an agency: sign in with a client to use the APIs',
    );
  });
});

describe('the client’s token usage', () => {
  it('shows its tokens per day and what the review says', async () => {
    const own = await makeClient(fixture.server.pool, ['agency-1'], ['leads:*'], ['sandbox']);
    const session = await ConsoleSession.asClient(base, own, 'agency-1');
    const usage = await session.request('GET', '/tokens');
    assert.equal(usage.status, 200, usage.text);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(usage.body, {
      clientId: own.clientId,
      days: 7,
      threshold: 5,
      rows: [
        {
          clientId: own.clientId,
          name: 'test client',
          day: today,
          tokens: 1,
          targets: 1,
          maxPerTarget: 1,
          reusesTokens: true,
          failedAuthentications: 0,
        },
      ],
      verdict: 'Tokens are reused: no day with more than 5 tokens for one API and agency.',
    });
    // A client asking for a token per call is flagged.
    for (let i = 0; i < 6; i++) await getToken(fixture.server, own, { root: '/sandbox/seeker-leads/v1', intermediary: 'agency-1' });
    const flagged = await session.request('GET', '/tokens');
    assert.equal(
      (flagged.body as { verdict: string }).verdict,
      `Not reusing tokens on ${today} (7 for one API and agency): cache each token for its 24 hours; the review refuses production access to clients that ask for one per call.`,
    );
  });
});
