/*
 * What the console shows of classifieds, through real HTTP with a real worker: summaries with
 * their latest status, revisions with the payload each sent and what changed between two, the
 * validation extension (schema, duplicates, every portal's rules), the status webhook
 * subscription, its test event and its deliveries with every attempt, and their redelivery.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { Receiver } from '../fixtures/receiver.js';
import { assertProblem, http, useServer, waitFor } from '../helpers.js';

type Body = Record<string, any>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = 'whsec-console-test-0123456789';

const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1' },
  client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*'] },
});

let session: ConsoleSession;
let media: Server;
let mediaBase: string;
let receiver: Receiver;
let counter = 0;

before(async () => {
  await fixture.ready();
  media = createServer((request, response) => {
    if ((request.url ?? '').startsWith('/ok/')) response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(1024, 1));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  // Each status path is answered 500 at first, then 201: the worker may send before a test could script a path it learns from the answer.
  receiver = await Receiver.start({
    otherwise: (_path, nth) => (nth === 1 ? 500 : 201),
    body: (status) => (status === 500 ? '<h1>Internal error: the CRM is down</h1>' : ''),
  });
  session = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-1');
});

after(async () => {
  await new Promise((resolve) => media.close(resolve));
  await receiver.close();
});

function classified(offererEstateId: string, mediaPaths: string[] = []): Body {
  const body = minimalClassified();
  body.data.metaData.source.offererEstateId = offererEstateId;
  if (mediaPaths.length > 0) body.media = mediaPaths.map((path) => ({ url: mediaBase + path, mediaType: 'PICTURE' }));
  return body;
}

async function post(body: Body): Promise<string> {
  const ack = await session.request('POST', '/caas/classifieds', { body });
  assert.equal(ack.status, 202, ack.text);
  return (ack.body as { classifiedId: string }).classifiedId;
}

async function latestStatus(id: string): Promise<string | undefined> {
  const page = await session.request('GET', `/caas/classifieds/${id}/statuses?filter=latest&limit=1`);
  return (page.body as { items: { status: string }[] }).items[0]?.status;
}

function terminal(id: string): Promise<string | undefined> {
  return waitFor(
    `classified ${id} processed`,
    () => latestStatus(id),
    (status) => status !== undefined && status !== 'RECEIVED' && status !== 'CREATING' && status !== 'UPDATING',
  );
}

describe('summaries', () => {
  it('list the classifieds newest first with their latest status, filtered by offererEstateId and by status, paged', async () => {
    const prefix = `S-${++counter}`;
    const ok = await post(classified(`${prefix}-ok`, [`/ok/${prefix}.jpg`]));
    const broken = await post(classified(`${prefix}-broken`, [`/missing/${prefix}.jpg`]));
    assert.equal(await terminal(ok), 'CREATED');
    assert.equal(await terminal(broken), 'CREATED_WITH_MEDIA_ERROR');

    const byId = await session.request('GET', `/caas/summaries?offererEstateId=${prefix}-broken`);
    assert.equal(byId.status, 200, byId.text);
    const [item] = (byId.body as { items: Body[] }).items;
    assert.match(item?.createdAt, ISO);
    assert.match(item?.latest?.statusDate, ISO);
    assert.deepEqual(byId.body, {
      items: [
        {
          classifiedId: broken,
          offererEstateId: `${prefix}-broken`,
          revision: 1,
          createdAt: item?.createdAt,
          updatedAt: item?.updatedAt,
          deleted: false,
          latest: { status: 'CREATED_WITH_MEDIA_ERROR', subStatus: null, stage: 'accepted', statusDate: item?.latest?.statusDate },
        },
      ],
    });

    const withErrors = await session.request('GET', '/caas/summaries?status=CREATED_WITH_MEDIA_ERROR&limit=100');
    const ids = (withErrors.body as { items: Body[] }).items.map((summary) => summary.classifiedId);
    assert.ok(ids.includes(broken));
    assert.ok(!ids.includes(ok));

    const first = await session.request('GET', '/caas/summaries?limit=1');
    const firstBody = first.body as { items: Body[]; nextCursor: string };
    assert.equal(firstBody.items[0]?.classifiedId, broken);
    const second = await session.request('GET', `/caas/summaries?limit=1&cursor=${firstBody.nextCursor}`);
    assert.equal((second.body as { items: Body[] }).items[0]?.classifiedId, ok);

    assertProblem(
      await session.request('GET', '/caas/summaries?cursor=garbled'),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [{ name: 'cursor', reason: 'is not a cursor this endpoint returned.' }],
        errorSource: 'requestParameter',
      },
    );
  });
});

describe('revisions', () => {
  it('list every write with the payload it sent, and what changed between two', async () => {
    const offererEstateId = `R-${++counter}`;
    const first = classified(offererEstateId);
    const id = await post(first);
    await terminal(id);
    const second = classified(offererEstateId);
    second.data.prices.rent.baseRent.amount = 2100;
    second.data.location.houseNumber = '14';
    delete second.data.estateSubType;
    const put = await session.request('PUT', `/caas/classifieds/${id}`, { body: second });
    assert.equal(put.status, 202, put.text);
    assert.equal(await terminal(id), 'UPDATED');
    const same = await session.request('PUT', `/caas/classifieds/${id}`, { body: second });
    assert.equal(same.status, 202, same.text);

    const list = await session.request('GET', `/caas/classifieds/${id}/revisions`);
    assert.equal(list.status, 200, list.text);
    const items = (list.body as { items: Body[] }).items;
    assert.deepEqual(
      items.map((revision) => [revision.revision, revision.operation, revision.unchanged]),
      [
        [3, 'PUT', true],
        [2, 'PUT', false],
        [1, 'POST', false],
      ],
    );
    for (const revision of items) assert.match(revision.receivedAt, ISO);

    const one = await session.request('GET', `/caas/classifieds/${id}/revisions/1`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual((one.body as Body).payload, first);
    assert.deepEqual(((await session.request('GET', `/caas/classifieds/${id}/revisions/2`)).body as Body).payload, second);
    // An unchanged PUT sent the payload it repeated.
    assert.deepEqual(((await session.request('GET', `/caas/classifieds/${id}/revisions/3`)).body as Body).payload, second);

    const changes = await session.request('GET', `/caas/classifieds/${id}/changes?from=1&to=2`);
    assert.equal(changes.status, 200, changes.text);
    assert.deepEqual(changes.body, {
      from: 1,
      to: 2,
      changes: [
        { path: '/data/estateSubType', change: 'removed', before: { trading: 'KIOSK' } },
        { path: '/data/location/houseNumber', change: 'changed', before: '12', after: '14' },
        { path: '/data/prices/rent/baseRent/amount', change: 'changed', before: 1900, after: 2100 },
      ],
    });
    assert.deepEqual((await session.request('GET', `/caas/classifieds/${id}/changes?from=2&to=3`)).body, { from: 2, to: 3, changes: [] });

    assertProblem(
      await session.request('GET', `/caas/classifieds/${id}/revisions/9`),
      404,
      'Not found',
      `Classified ${id} has no revision 9`,
    );
    const unknown = '00000000-0000-4000-8000-000000000000';
    assertProblem(await session.request('GET', `/caas/classifieds/${unknown}/revisions`), 404, 'Not found', `No classified ${unknown}`);
  });
});

describe('POST /classifieds/validate', () => {
  it('reports every schema error without applying the rules, and writes nothing', async () => {
    const body = classified(`V-${++counter}`);
    body.data.location.spaceship = 'yes';
    body.portals = ['BUCOM', 'NOWHERE'];
    const result = await session.request('POST', '/caas/classifieds/validate', { body });
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.body, {
      valid: false,
      errors: [
        { name: '/portals/1', reason: 'must be equal to one of the allowed values: SL, BUCOM, BD, SLC, SLN.' },
        { name: '/data/location/spaceship', reason: 'must NOT have additional properties: spaceship.' },
      ],
      rulesChecked: false,
      portals: [],
    });
    const { rows } = await fixture.server.pool.query('SELECT 1 FROM classifieds WHERE offerer_estate_id = $1', [
      body.data.metaData.source.offererEstateId,
    ]);
    assert.equal(rows.length, 0);
  });

  it('applies the rules of every portal and names the duplicates a POST would meet', async () => {
    const offererEstateId = `V-${++counter}`;
    const url = `${mediaBase}/ok/taken-${counter}.jpg`;
    const takenId = await post(classified(offererEstateId, [`/ok/taken-${counter}.jpg`]));
    const { rows } = await fixture.server.pool.query<{ media_id: string }>(
      'SELECT media_id FROM classified_media WHERE classified_id = $1',
      [takenId],
    );
    const body = classified(offererEstateId, [`/ok/taken-${counter}.jpg`]);
    body.portals = ['BUCOM', 'BD'];
    const result = await session.request('POST', '/caas/classifieds/validate', { body });
    assert.equal(result.status, 200, result.text);
    const report = result.body as Body;
    assert.equal(report.valid, false);
    assert.equal(report.rulesChecked, true);
    assert.deepEqual(report.errors, [
      {
        name: '/data/metaData/source/offererEstateId',
        reason: `A classified with offererEstateId "${offererEstateId}" already exists: classifiedId ${takenId}`,
      },
      {
        name: '/media/0/url',
        reason: `The media url "${url}" was already sent as mediaId ${rows[0]?.media_id} of classifiedId ${takenId}`,
      },
    ]);
    assert.deepEqual(report.portals, [
      { portal: 'SL', requested: false, accepted: true, violations: [] },
      { portal: 'BUCOM', requested: true, accepted: true, violations: [] },
      {
        portal: 'BD',
        requested: true,
        accepted: false,
        violations: [
          {
            rule: 'BD_DESCRIPTION_LENGTH',
            name: 'data.texts.description',
            reason: 'must have at least 160 characters in one language to publish on BD, got 0',
          },
        ],
      },
      { portal: 'SLC', requested: false, accepted: true, violations: [] },
      { portal: 'SLN', requested: false, accepted: true, violations: [] },
    ]);
  });
});

describe('the status webhook through the console', () => {
  it('shows the subscription, sends a signed test event, and shows its delivery with each attempt; Redeliver sends it again', async () => {
    // None set is an answer the page asks for on every view: 200 null, not a 404 in the browser's console.
    const none = await session.request('GET', '/caas/webhook');
    assert.equal(none.status, 200, none.text);
    assert.equal(none.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(none.text, 'null');
    const put = await session.request('PUT', '/caas/webhooks', { body: { url: `${receiver.base}/crm`, secret: SECRET } });
    assert.equal(put.status, 200, put.text);
    const view = await session.request('GET', '/caas/webhook');
    assert.equal(view.status, 200, view.text);
    assert.deepEqual(view.body, {
      url: `${receiver.base}/crm`,
      statuses: null,
      createdAt: (view.body as Body).createdAt,
      updatedAt: (view.body as Body).updatedAt,
    });

    const sent = await session.request('POST', '/caas/webhooks/test-events');
    assert.equal(sent.status, 202, sent.text);
    const test = sent.body as Body;
    const path = new URL(test.url).pathname;
    assert.match(path, /^\/crm\/classifieds\/[0-9a-f-]{36}\/statuses$/);
    assert.equal(test.test, true);
    assert.equal(test.state, 'PENDING');
    assert.deepEqual(test.attemptList, []);

    const failedOnce = await waitFor(
      'the test event delivered after a 500',
      () => session.request('GET', `/caas/deliveries/${test.id}`),
      (result) => (result.body as Body).state === 'DELIVERED',
    );
    const delivery = failedOnce.body as Body;
    assert.deepEqual(
      delivery.attemptList.map((attempt: Body) => [
        attempt.attempt,
        attempt.statusCode,
        attempt.error,
        attempt.responseBody,
        attempt.responseTruncated,
      ]),
      [
        [1, 500, 'receiver answered HTTP 500', '<h1>Internal error: the CRM is down</h1>', false],
        [2, 201, null, '', false],
      ],
    );
    const [firstAttempt] = delivery.attemptList as Body[];
    assert.deepEqual(Object.keys(firstAttempt?.requestHeaders).sort(), [
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    assert.equal(firstAttempt?.requestHeaders['webhook-id'], test.id);
    const received = receiver.requestsTo(path);
    assert.equal(delivery.request.body, received[0]?.body);
    const event = new Webhook(SECRET, { format: 'raw' }).verify(received[1]?.body ?? '', {
      'webhook-id': String(received[1]?.headers['webhook-id']),
      'webhook-timestamp': String(received[1]?.headers['webhook-timestamp']),
      'webhook-signature': String(received[1]?.headers['webhook-signature']),
    }) as Body;
    assert.equal(event.status, 'CREATED');
    assert.equal(event.customerId, 'agency-1');

    const list = await session.request('GET', '/caas/deliveries?limit=5');
    assert.equal(list.status, 200, list.text);
    assert.equal((list.body as { items: Body[] }).items[0]?.id, test.id);
    assert.equal((list.body as { items: Body[] }).items[0]?.lastStatusCode, 201);
    assert.equal((list.body as { items: Body[] }).items[0]?.lastError, null);
    assert.deepEqual((list.body as { items: Body[] }).items[0]?.event, {
      name: 'CREATED',
      subjectType: 'classified',
      subjectId: path.split('/')[3],
    });
    assert.deepEqual(test.event, (list.body as { items: Body[] }).items[0]?.event);
    // The console's list of every webhook has it too: this client holds no lead scope, so only the status webhook's.
    const all = await session.request('GET', '/deliveries?limit=5');
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body, list.body);

    const again = await session.request('POST', `/caas/deliveries/${test.id}/redeliveries`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, { redelivered: [test.id], skipped: [] });
    await waitFor(
      'the redelivery',
      async () => receiver.requestsTo(path).length,
      (count) => count === 3,
    );

    const other = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-2');
    assertProblem(await other.request('GET', `/caas/deliveries/${test.id}`), 404, 'Not found', `No delivery ${test.id}`);
    assertProblem(await other.request('POST', `/caas/deliveries/${test.id}/redeliveries`), 404, 'Not found', `No delivery ${test.id}`);
  });

  it('is an API extension too: POST {root}/webhooks/test-events with a token', async () => {
    const token = await fixture.token({ root: '/sandbox/caas/v4', intermediary: 'agency-2' });
    const result = await http('POST', `${fixture.server.base}/sandbox/caas/v4/webhooks/test-events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertProblem(result, 404, 'Not found', 'This client has no webhook subscription here: PUT /webhooks first');
  });
});
