/*
 * Lead notifications as the console shows them, through real HTTP with a real worker and a
 * receiver on loopback: every delivery with every attempt (the headers sent, the apiKey masked,
 * the answer received, cut at 4 KiB), Redeliver, Send test event; and the operator's view of
 * every agency's deliveries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ConsoleSession } from '../fixtures/console.js';
import { leadRequest } from '../fixtures/leads.js';
import { Receiver } from '../fixtures/receiver.js';
import { assertProblem, freePort, useServer, waitFor } from '../helpers.js';

type Body = Record<string, any>;

const ADMIN_TOKEN = 'operator-token-leads-console-0123';
const API_KEY = 'lead-api-key-0123456789abcdef';
const LONG_ANSWER = 'x'.repeat(5000);
const VALIDATION = 'Your request has not been validated';

const fixture = useServer({
  worker: true,
  env: { ADMIN_TOKEN, ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1' },
  client: { intermediaries: ['agency-1', 'agency-2', 'agency-3'], scopes: ['leads:*'] },
});

let receiver: Receiver;
let session: ConsoleSession;

before(async () => {
  await fixture.ready();
  receiver = await Receiver.start({ body: (status) => (status === 503 ? LONG_ANSWER : 'thanks') });
  session = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-1');
});

after(async () => {
  await receiver.close();
});

async function subscribe(path: string): Promise<string> {
  const created = await session.request('POST', '/leads/webhook/subscriptions', { body: { url: receiver.script(path), apiKey: API_KEY } });
  assert.equal(created.status, 201, created.text);
  return (created.body as { subscriptionId: string }).subscriptionId;
}

function delivery(id: string): Promise<Body> {
  return session.request('GET', `/leads/deliveries/${id}`).then((result) => {
    assert.equal(result.status, 200, result.text);
    return result.body as Body;
  });
}

describe('lead deliveries in the console', () => {
  it('show every attempt with what was sent and what came back; Redeliver makes another one', async () => {
    const subscriptionId = await subscribe('/crm/leads');
    receiver.script('/crm/leads', 503);
    const lead = await session.request('POST', '/leads/leads', { body: leadRequest() });
    assert.equal(lead.status, 200, lead.text);

    const page = await waitFor(
      'the lead delivered',
      () => session.request('GET', `/leads/deliveries?subscriptionId=${subscriptionId}`),
      (result) => (result.body as { items: Body[] }).items[0]?.state === 'DELIVERED',
    );
    const [summary] = (page.body as { items: Body[] }).items;
    assert.deepEqual(summary, {
      id: summary?.id,
      // The lead.received event of the feed, whose id (the lead's) is the webhook-id.
      eventId: summary?.event?.subjectId,
      source: 'leads',
      environment: 'sandbox',
      agency: 'agency-1',
      subscriptionId,
      url: `${receiver.base}/crm/leads`,
      state: 'DELIVERED',
      attempts: 2,
      test: false,
      createdAt: summary?.createdAt,
      deliveredAt: summary?.deliveredAt,
      nextAttemptAt: null,
      lastStatusCode: 200,
      lastError: null,
      event: { name: 'lead', subjectType: 'lead', subjectId: summary?.event?.subjectId },
    });

    const found = await delivery(String(summary?.id));
    assert.equal(summary?.event?.subjectId, JSON.parse(found.request.body).metadata.leadId);
    const [failed, delivered] = found.attemptList as Body[];
    assert.equal(failed?.statusCode, 503);
    assert.equal(failed?.error, 'receiver answered HTTP 503');
    assert.equal(failed?.responseBody, LONG_ANSWER.slice(0, 4096));
    assert.equal(failed?.responseTruncated, true);
    assert.equal(delivered?.statusCode, 200);
    assert.equal(delivered?.responseBody, 'thanks');
    assert.equal(delivered?.responseTruncated, false);
    assert.equal(typeof delivered?.latencyMs, 'number');
    // The apiKey is never shown: its last four characters identify which one went.
    assert.equal(delivered?.requestHeaders['x-api-key'], '****cdef');
    const sent = receiver.requestsTo('/crm/leads');
    assert.equal(sent[1]?.headers['x-api-key'], API_KEY);
    assert.equal(delivered?.requestHeaders['webhook-signature'], sent[1]?.headers['webhook-signature']);
    assert.equal(found.request.body, sent[1]?.body);
    assert.deepEqual(found.request.headers, delivered?.requestHeaders);

    const again = await session.request('POST', `/leads/deliveries/${summary?.id}/redeliveries`);
    assert.deepEqual(again.body, { redelivered: [summary?.id], skipped: [] });
    const redelivered = await waitFor(
      'the third attempt',
      () => delivery(String(summary?.id)),
      (body) => body.attemptList.length === 3 && body.state === 'DELIVERED',
    );
    assert.equal(redelivered.attemptList[2].statusCode, 200);
    assert.equal(receiver.requestsTo('/crm/leads').length, 3);
    assert.equal(receiver.requestsTo('/crm/leads')[2]?.headers['webhook-id'], summary?.eventId);
  });

  it('send a test event: a realistic lead, signed with the apiKey, marked as a test', async () => {
    const subscriptionId = await subscribe('/crm/test');
    const sent = await session.request('POST', `/leads/webhook/subscriptions/${subscriptionId}/test-events`);
    assert.equal(sent.status, 202, sent.text);
    const test = sent.body as Body;
    assert.equal(test.test, true);
    assert.equal(test.subscriptionId, subscriptionId);
    await waitFor(
      'the test event',
      async () => receiver.requestsTo('/crm/test').length,
      (count) => count === 1,
    );
    const [received] = receiver.requestsTo('/crm/test');
    const lead = new Webhook(API_KEY, { format: 'raw' }).verify(received?.body ?? '', {
      'webhook-id': String(received?.headers['webhook-id']),
      'webhook-timestamp': String(received?.headers['webhook-timestamp']),
      'webhook-signature': String(received?.headers['webhook-signature']),
    }) as Body;
    assert.equal(received?.headers['webhook-id'], test.id);
    assert.equal(lead.contactRequest.name, 'Erika Mustermann');
    assert.equal(lead.metadata.agencyId, 'agency-1');
    assert.deepEqual(Object.keys(lead).sort(), ['contactRequest', 'metadata', 'property']);

    const unknown = '00000000-0000-4000-8000-000000000000';
    assertProblem(
      await session.request('POST', `/leads/webhook/subscriptions/${unknown}/test-events`),
      404,
      'Not found',
      `No webhook subscription ${unknown}`,
    );
  });

  it('are the tenant’s own; the operator sees every agency’s, filtered', async () => {
    const other = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-2');
    const theirs = await other.request('GET', '/leads/deliveries');
    assert.deepEqual(theirs.body, { items: [] });

    const operator = await ConsoleSession.signIn(fixture.server.base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    const all = await operator.request('GET', '/admin/deliveries?agency=agency-1&source=leads&state=DELIVERED&limit=1');
    assert.equal(all.status, 200, all.text);
    const body = all.body as { items: Body[]; nextCursor: string };
    assert.equal(body.items.length, 1);
    assert.equal(body.items[0]?.agency, 'agency-1');
    const next = await operator.request(
      'GET',
      `/admin/deliveries?agency=agency-1&source=leads&state=DELIVERED&limit=1&cursor=${body.nextCursor}`,
    );
    assert.notEqual((next.body as { items: Body[] }).items[0]?.id, body.items[0]?.id);
    const one = await operator.request('GET', `/admin/deliveries/${body.items[0]?.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal((one.body as Body).attemptList.length > 0, true);
  });
});

describe('the console’s own lists of the lead API, newest first', () => {
  let other: ConsoleSession;
  let refusing: string;
  let port: number;
  const leadIds: string[] = [];

  before(async () => {
    other = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-3');
    port = await freePort();
    const created = await other.request('POST', '/leads/webhook/subscriptions', {
      body: { url: `http://127.0.0.1:${port}/crm`, apiKey: API_KEY },
    });
    assert.equal(created.status, 201, created.text);
    refusing = (created.body as { subscriptionId: string }).subscriptionId;
  });

  it('GET /console/api/leads/recent-subscriptions: the subscriptions newest first, in the API’s page shape', async () => {
    const inactive = await other.request('POST', '/leads/webhook/subscriptions', {
      body: { url: receiver.script('/crm/off'), apiKey: API_KEY, status: 'INACTIVE' },
    });
    assert.equal(inactive.status, 201, inactive.text);
    const api = await other.request('GET', '/leads/webhook/subscriptions');
    const listed = await other.request('GET', '/leads/recent-subscriptions');
    assert.equal(listed.status, 200, listed.text);
    const items = (api.body as { items: Body[] }).items;
    assert.deepEqual(
      items.map((item) => item.subscriptionId),
      [refusing, (inactive.body as Body).subscriptionId],
    );
    assert.deepEqual(listed.body, { metadata: { count: 2, limit: 100 }, items: [...items].reverse() });

    const first = await other.request('GET', '/leads/recent-subscriptions?limit=1');
    const { nextToken } = (first.body as { metadata: { nextToken: string } }).metadata;
    const second = await other.request('GET', `/leads/recent-subscriptions?limit=1&nextToken=${nextToken}`);
    assert.deepEqual(second.body, { metadata: { count: 1, limit: 1 }, items: [items[0]] });
  });

  it('GET /console/api/leads/recent-leads: the period’s leads newest first, continued by nextCursor', async () => {
    for (const firstName of ['Ines', 'Jonas']) {
      const made = await other.request('POST', '/leads/leads', { body: leadRequest({ firstName }) });
      assert.equal(made.status, 200, made.text);
    }
    const now = Math.floor(Date.now() / 1000);
    const period = `minDate=${now - 3600}&maxDate=${now + 60}`;
    const api = await other.request('GET', `/leads/leads?${period}`);
    const oldestFirst = (api.body as { items: Body[] }).items;
    assert.deepEqual(
      oldestFirst.map((lead) => lead.contactRequest.firstName),
      ['Ines', 'Jonas'],
    );
    leadIds.push(...oldestFirst.map((lead) => String(lead.metadata.leadId)));

    const listed = await other.request('GET', `/leads/recent-leads?${period}`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, { items: [...oldestFirst].reverse() });
    const first = await other.request('GET', `/leads/recent-leads?${period}&limit=1`);
    assert.deepEqual(first.body, { items: [oldestFirst[1]], nextCursor: leadIds[1] });
    const next = await other.request('GET', `/leads/recent-leads?${period}&limit=1&start=${leadIds[1]}`);
    assert.deepEqual(next.body, { items: [oldestFirst[0]] });

    const reason = 'must be at most 7 days (604800 seconds) apart from the other bound.';
    assertProblem(
      await other.request('GET', `/leads/recent-leads?minDate=${now - 8 * 86400}&maxDate=${now}`),
      400,
      'Bad request',
      VALIDATION,
      {
        errors: [
          { name: 'minDate', reason },
          { name: 'maxDate', reason },
        ],
        errorSource: 'requestParameter',
      },
    );
  });

  it('GET /console/api/deliveries: every webhook’s deliveries newest first, each naming its event, the test marked, a refused connection’s reason', async () => {
    const test = await other.request('POST', `/leads/webhook/subscriptions/${refusing}/test-events`);
    assert.equal(test.status, 202, test.text);
    const testLead = JSON.parse((test.body as Body).request.body).metadata.leadId;
    const listed = await waitFor(
      'the three deliveries to fail',
      () => other.request('GET', '/deliveries'),
      (result) => (result.body as { items: Body[] }).items.filter((item) => item.state === 'FAILED').length === 3,
    );
    assert.equal(listed.status, 200, listed.text);
    const items = (listed.body as { items: Body[] }).items;
    const expected = (item: Body | undefined, leadId: string | undefined, isTest: boolean) => ({
      id: item?.id,
      // A lead's notification announces its lead.received event (the lead's id); a test event announces none.
      eventId: isTest ? null : leadId,
      source: 'leads',
      environment: 'sandbox',
      agency: 'agency-3',
      subscriptionId: refusing,
      url: `http://127.0.0.1:${port}/crm`,
      state: 'FAILED',
      attempts: 2,
      test: isTest,
      createdAt: item?.createdAt,
      deliveredAt: null,
      nextAttemptAt: null,
      lastStatusCode: null,
      lastError: `connection refused by 127.0.0.1:${port}`,
      event: { name: 'lead', subjectType: 'lead', subjectId: leadId },
    });
    assert.deepEqual(listed.body, {
      items: [expected(items[0], testLead, true), expected(items[1], leadIds[1], false), expected(items[2], leadIds[0], false)],
    });
    assert.equal(items[0]?.id, (test.body as Body).id);
    const times = items.map((item) => Date.parse(String(item.createdAt)));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );

    // The same rows as the lead API's own list; paged by the same cursors.
    const own = await other.request('GET', '/leads/deliveries');
    assert.deepEqual(own.body, listed.body);
    const first = await other.request('GET', '/deliveries?limit=2&state=FAILED');
    const { nextCursor } = first.body as { nextCursor: string };
    const rest = await other.request('GET', `/deliveries?limit=2&state=FAILED&cursor=${nextCursor}`);
    assert.deepEqual(rest.body, { items: [items[2]] });
    assertProblem(await other.request('GET', '/deliveries?cursor=nonsense'), 400, 'Bad request', VALIDATION, {
      errors: [{ name: 'cursor', reason: 'is not a cursor of this list' }],
      errorSource: 'requestParameter',
    });
  });

  it('GET /console/api/deliveries is an integrator’s: an operator is refused', async () => {
    const operator = await ConsoleSession.signIn(fixture.server.base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    assertProblem(
      await operator.request('GET', '/deliveries'),
      403,
      'Forbidden',
      'Operators do not act for an agency: sign in with a client to use the APIs',
    );
  });
});
