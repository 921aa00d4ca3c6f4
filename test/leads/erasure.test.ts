/*
 * GDPR erasure of a lead author, through the operator endpoint POST /admin/leads/erasures (behind
 * ADMIN_TOKEN) and through eraseAuthor (what the CLI calls): the author's leads in every agency and
 * environment lose their personal data but stay listable and readable, the stored webhook
 * notifications of those leads are scrubbed the same way, and other authors are left alone.
 * No worker runs: the notifications stay stored, pending, as a receiver that is down would leave them.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { eraseAuthor } from '../../src/apis/leads/services/erasure.js';
import { assertProblem as problem, http, startTestServer, type HttpResult, type TestServer, useServer } from '../helpers.js';

type Body = Record<string, any>;

const ROOT = '/seeker-leads/v1';
const SANDBOX = '/sandbox/seeker-leads/v1';
const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const ERASURES = '/admin/leads/erasures';

const fixture = useServer({ env: { ADMIN_TOKEN }, client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['leads:*'] } });
let server: TestServer;
/** The same database served without ADMIN_TOKEN. */
let bare: TestServer;
/** Bearer tokens by tenant. */
let tokens: Record<'agency1' | 'agency2' | 'sandbox', { bearer: string; root: string }>;
let since: number;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  since = Math.floor(Date.now() / 1000) - 1;
  bare = await startTestServer(fixture.database);
  tokens = {
    agency1: { bearer: await fixture.token({ root: ROOT, intermediary: 'agency-1' }), root: ROOT },
    agency2: { bearer: await fixture.token({ root: ROOT, intermediary: 'agency-2' }), root: ROOT },
    sandbox: { bearer: await fixture.token({ root: SANDBOX, intermediary: 'agency-1' }), root: SANDBOX },
  };
  // A subscription per tenant, so every lead below is stored as a notification too.
  for (const [name, tenant] of Object.entries(tokens)) {
    const result = await call('POST', tenant, '/webhook/subscriptions', {
      url: `https://crm.example.com/${name}/leads`,
      apiKey: `key-of-${name}-0123456789`,
    });
    assert.equal(result.status, 201, result.text);
  }
});

after(async () => {
  await bare.close();
});

function call(method: string, tenant: { bearer: string; root: string }, path: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${tenant.root}${path}`, { headers: { authorization: `Bearer ${tenant.bearer}` }, body });
}

/** A GET waiting out the rate limit, which these tests do not exercise. */
async function read(tenant: { bearer: string; root: string }, path: string): Promise<HttpResult> {
  for (let i = 0; i < 50; i++) {
    const result = await call('GET', tenant, path);
    if (result.status !== 429) return result;
    await sleep(200);
  }
  throw new Error(`still rate limited: GET ${path}`);
}

function erase(email: unknown, target: TestServer = server, authorization: string | null = `Bearer ${ADMIN_TOKEN}`): Promise<HttpResult> {
  return http('POST', `${target.base}${ERASURES}`, { headers: authorization === null ? {} : { authorization }, body: { email } });
}

function contact(email: string, firstName: string): Body {
  return {
    firstName,
    lastName: 'Doe',
    gender: 'OTHER',
    email,
    language: 'DE',
    phoneNumbers: [
      { type: 'LANDLINE', number: '+49 30 123456' },
      { number: '0171 1234567', verified: true },
    ],
    message: `Hello, this is ${firstName}; please call me back.`,
    classifiedId: '42ABCDEFGHJK',
    submittedDate: '2024-06-01T08:30:00Z',
  };
}

/** Submits a lead and answers it as GET /leads/{leadId} returns it. */
async function submitLead(tenant: { bearer: string; root: string }, body: Body): Promise<Body> {
  const result = await call('POST', tenant, '/leads', body);
  assert.equal(result.status, 200, result.text);
  const { requestId } = result.body as Body;
  const page = await read(tenant, `/leads?minDate=${since}&maxDate=${since + 86400}`);
  assert.equal(page.status, 200, page.text);
  const listed = (page.body as Body).items.find((item: Body) => item.metadata.requestId === requestId);
  assert.ok(listed, `lead ${requestId} not listed`);
  return listed;
}

async function readLead(tenant: { bearer: string; root: string }, leadId: string): Promise<Body> {
  const result = await read(tenant, `/leads/${leadId}`);
  assert.equal(result.status, 200, result.text);
  return result.body as Body;
}

/** The stored notification payloads of a lead. */
async function notifications(leadId: string): Promise<Body[]> {
  const { rows } = await server.pool.query<{ payload: Body }>(
    `SELECT payload FROM webhook_deliveries WHERE source = 'leads' AND payload -> 'metadata' ->> 'leadId' = $1`,
    [leadId],
  );
  return rows.map((row) => row.payload);
}

function erased(lead: Body): Body {
  return {
    ...lead,
    contactRequest: {
      firstName: null,
      lastName: null,
      name: null,
      gender: null,
      email: lead.contactRequest.email,
      language: null,
      phoneNumbers: [],
      message: null,
    },
  };
}

describe('POST /admin/leads/erasures', () => {
  it('does not exist without ADMIN_TOKEN, and needs it when set', async () => {
    problem(await erase('alice@example.org', bare), 404, 'Not found', `No resource at POST ${ERASURES}`);
    const detail = 'The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>';
    const missing = await erase('alice@example.org', server, null);
    problem(missing, 401, 'Unauthorized', detail);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    problem(await erase('alice@example.org', server, 'Bearer not-the-operator-token-at-all'), 401, 'Unauthorized', detail);
    // A client's access token is no operator token.
    problem(await erase('alice@example.org', server, `Bearer ${tokens.agency1.bearer}`), 401, 'Unauthorized', detail);
  });

  it('validates its body', async () => {
    const invalid = (errors: { name: string; reason: string }[]) => ({ errors, errorSource: 'body' });
    problem(
      await erase('alice'),
      400,
      'Bad request',
      'Your request has not been validated',
      invalid([{ name: '/email', reason: 'must match format "email".' }]),
    );
    const extra = await http('POST', `${server.base}${ERASURES}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { email: 'alice@example.org', reason: 'asked' },
    });
    problem(
      extra,
      400,
      'Bad request',
      'Your request has not been validated',
      invalid([{ name: '/reason', reason: 'must NOT have additional properties: reason.' }]),
    );
  });

  it("erases the author's leads in every agency and environment, scrubs their notifications, leaves others alone", async () => {
    const alice = [
      { tenant: tokens.agency1, lead: await submitLead(tokens.agency1, contact('alice@example.org', 'Alice')) },
      { tenant: tokens.agency2, lead: await submitLead(tokens.agency2, contact('Alice@Example.ORG', 'Alice')) },
      { tenant: tokens.sandbox, lead: await submitLead(tokens.sandbox, contact('alice@example.org', 'Alicia')) },
    ];
    const bob = await submitLead(tokens.agency1, contact('bob@example.org', 'Bob'));
    for (const { lead } of alice) assert.deepEqual(await notifications(lead.metadata.leadId), [lead]);
    assert.deepEqual(await notifications(bob.metadata.leadId), [bob]);

    const result = await erase('ALICE@example.org');
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.body, { email: 'ALICE@example.org', leadsErased: 3, notificationsScrubbed: 3 });

    for (const { tenant, lead } of alice) {
      const now = await readLead(tenant, lead.metadata.leadId);
      assert.deepEqual(now, erased(lead));
      // Still listed where it was.
      const page = await read(tenant, `/leads?minDate=${since}&maxDate=${since + 86400}`);
      assert.deepEqual(
        (page.body as Body).items.find((item: Body) => item.metadata.leadId === lead.metadata.leadId),
        now,
      );
      // The stored notification now carries what the lead shows, nothing more.
      assert.deepEqual(await notifications(lead.metadata.leadId), [now]);
    }
    assert.deepEqual(await readLead(tokens.agency1, bob.metadata.leadId), bob);
    assert.deepEqual(await notifications(bob.metadata.leadId), [bob]);

    // Repeated: nothing left to erase.
    const again = await erase('alice@example.org');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, { email: 'alice@example.org', leadsErased: 0, notificationsScrubbed: 0 });
  });
});

describe('eraseAuthor (the CLI command)', () => {
  it('erases by address whatever its case and surrounding spaces, and counts nothing for an unknown author', async () => {
    const carol = await submitLead(tokens.agency2, contact('carol@example.org', 'Carol'));
    const dave = await submitLead(tokens.agency2, contact('dave@example.org', 'Dave'));
    assert.deepEqual(await eraseAuthor(server.pool, '  Carol@example.org '), {
      email: 'Carol@example.org',
      leadsErased: 1,
      notificationsScrubbed: 1,
    });
    const now = await readLead(tokens.agency2, carol.metadata.leadId);
    assert.deepEqual(now, erased(carol));
    assert.deepEqual(await notifications(carol.metadata.leadId), [now]);
    assert.deepEqual(await readLead(tokens.agency2, dave.metadata.leadId), dave);
    assert.deepEqual(await eraseAuthor(server.pool, 'nobody@example.org'), {
      email: 'nobody@example.org',
      leadsErased: 0,
      notificationsScrubbed: 0,
    });
  });

  it('scrubs a notification that still carries personal data of an author erased before', async () => {
    const erin = await submitLead(tokens.agency1, contact('erin@example.org', 'Erin'));
    assert.deepEqual(await eraseAuthor(server.pool, 'erin@example.org'), {
      email: 'erin@example.org',
      leadsErased: 1,
      notificationsScrubbed: 1,
    });
    // As if an earlier version had erased the lead only: its notification is put back as first sent.
    await server.pool.query(`UPDATE webhook_deliveries SET payload = $2::jsonb WHERE payload -> 'metadata' ->> 'leadId' = $1`, [
      erin.metadata.leadId,
      JSON.stringify(erin),
    ]);
    assert.deepEqual(await eraseAuthor(server.pool, 'erin@example.org'), {
      email: 'erin@example.org',
      leadsErased: 0,
      notificationsScrubbed: 1,
    });
    assert.deepEqual(await notifications(erin.metadata.leadId), [erased(erin)]);
  });
});
