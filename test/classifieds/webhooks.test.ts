/*
 * Status webhooks of the classifieds API: PUT /webhooks subscribes, each new status is POSTed
 * (signed with Standard Webhooks headers, retried) to {url}/classifieds/{id}/statuses, DELETE
 * /webhooks stops it. Receivers are real HTTP servers on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { minimalClassified } from '../fixtures/classifieds.js';
import {
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type HttpResult,
  type TestServer,
  useServer,
} from '../helpers.js';

type Body = Record<string, any>;

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver that records every request and answers with the status `answer` picks. */
class Receiver {
  readonly requests: Received[] = [];
  answer: (request: Received, index: number) => number = () => 201;
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() };
        this.requests.push(received);
        response.writeHead(this.answer(received, this.requests.length - 1)).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Waits (bounded) until `predicate` holds for the requests received so far. */
  async waitFor(what: string, predicate: (requests: Received[]) => boolean): Promise<Received[]> {
    for (let i = 0; i < 400; i++) {
      if (predicate(this.requests)) return this.requests;
      await sleep(25);
    }
    throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.requests.map((r) => [r.path, r.body]))}`);
  }
}

const SECRET = 'a-receiver-secret-of-some-length';
const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1,0.2,0.4' },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*'] },
});
let server: TestServer;
let token: string;
let readOnly: string;
let counter = 0;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  token = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1' });
  readOnly = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1', scope: 'caas:classifieds:read' });
});

function call(method: string, path: string, body?: unknown, bearer = token): Promise<HttpResult> {
  return http(method, `${server.base}/caas/v4${path}`, { headers: { authorization: `Bearer ${bearer}` }, body });
}

function classified(): Body {
  const body = minimalClassified();
  body.portals = ['SL'];
  body.data.metaData.source.offererEstateId = `H-${++counter}`;
  return body;
}

async function post(): Promise<string> {
  const result = await call('POST', '/classifieds', classified());
  assert.equal(result.status, 202, result.text);
  return (result.body as { classifiedId: string }).classifiedId;
}

function statusesOf(requests: Received[], id: string): string[] {
  return requests.filter((r) => r.path === `/hooks/classifieds/${id}/statuses`).map((r) => JSON.parse(r.body).status as string);
}

describe('PUT /webhooks and the status deliveries', () => {
  it('delivers every status of a new classified, signed so that the standardwebhooks package verifies it', async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const put = await call('PUT', '/webhooks', { url: `${receiver.base}/hooks/`, secret: SECRET });
      assert.equal(put.status, 200);
      assert.equal(put.text, '"success"');
      const id = await post();
      const requests = await receiver.waitFor('three statuses', (all) => statusesOf(all, id).length === 3);
      assert.deepEqual(statusesOf(requests, id).sort(), ['CREATED', 'CREATING', 'RECEIVED']);
      const verifier = new Webhook(Buffer.from(SECRET).toString('base64'));
      for (const request of requests) {
        const payload = verifier.verify(request.body, {
          'webhook-id': request.headers['webhook-id'] as string,
          'webhook-timestamp': request.headers['webhook-timestamp'] as string,
          'webhook-signature': request.headers['webhook-signature'] as string,
        }) as Body;
        assert.equal(request.headers['content-type'], 'application/json');
        assert.equal(payload.classifiedId, id);
        assert.equal(payload.customerId, 'agency-1');
        assert.deepEqual(payload.portals, ['SL']);
      }
      const created = JSON.parse(requests.find((r) => JSON.parse(r.body).status === 'CREATED')!.body);
      assert.deepEqual(Object.keys(created).sort(), [
        'classifiedId',
        'creationDate',
        'customerId',
        'mediaStatuses',
        'message',
        'portals',
        'revision',
        'stage',
        'status',
        'statusDate',
        'statusId',
      ]);
      assert.deepEqual([created.revision, created.stage, created.message, created.mediaStatuses], [1, 'accepted', 'Accepted on SL', []]);
    } finally {
      await call('DELETE', '/webhooks');
      await receiver.stop();
    }
  });

  it('sends only the statuses asked for; CREATED includes CREATED_WITH_MEDIA_ERROR', async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      assert.equal((await call('PUT', '/webhooks', { url: `${receiver.base}/hooks`, statuses: ['CREATED'] })).status, 200);
      const plain = await post();
      const withBadMedia = classified();
      withBadMedia.media = [{ url: `${receiver.base}/no-such-picture.jpg`, mediaType: 'PICTURE' }];
      const result = await call('POST', '/classifieds', withBadMedia);
      const broken = (result.body as { classifiedId: string }).classifiedId;
      const requests = await receiver.waitFor(
        'two outcomes',
        (all) => statusesOf(all, plain).length + statusesOf(all, broken).length === 2,
      );
      assert.deepEqual(statusesOf(requests, plain), ['CREATED']);
      assert.deepEqual(statusesOf(requests, broken), ['CREATED_WITH_MEDIA_ERROR']);
    } finally {
      await call('DELETE', '/webhooks');
      await receiver.stop();
    }
  });

  it('retries a receiver that fails twice, then delivers; every attempt is recorded with one webhook-id', async () => {
    const receiver = new Receiver();
    await receiver.start();
    let failuresLeft = 2;
    receiver.answer = () => (failuresLeft-- > 0 ? 503 : 201);
    try {
      assert.equal((await call('PUT', '/webhooks', { url: `${receiver.base}/hooks`, statuses: ['RECEIVED'] })).status, 200);
      const id = await post();
      const requests = await receiver.waitFor('three attempts', (all) => statusesOf(all, id).length === 3);
      assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1);
      // The third attempt's outcome is recorded just after the receiver answered it.
      const rows = await waitFor(
        'the delivery to be recorded as delivered',
        async () =>
          (
            await server.pool.query(
              `SELECT a.attempt, a.status_code, a.error IS NULL AS ok, d.state
                 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                WHERE d.event_id = $1 ORDER BY a.attempt`,
              [requests[0]!.headers['webhook-id']],
            )
          ).rows,
        (attempts) => attempts.at(-1)?.state === 'DELIVERED',
      );
      assert.deepEqual(rows, [
        { attempt: 1, status_code: 503, ok: false, state: 'DELIVERED' },
        { attempt: 2, status_code: 503, ok: false, state: 'DELIVERED' },
        { attempt: 3, status_code: 201, ok: true, state: 'DELIVERED' },
      ]);
    } finally {
      await call('DELETE', '/webhooks');
      await receiver.stop();
    }
  });

  it('DELETE /webhooks stops the deliveries; a second DELETE finds nothing (404)', async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      assert.equal((await call('PUT', '/webhooks', { url: `${receiver.base}/hooks`, statuses: ['RECEIVED'] })).status, 200);
      const first = await post();
      await receiver.waitFor('the first RECEIVED', (all) => statusesOf(all, first).length === 1);
      const deleted = await call('DELETE', '/webhooks');
      assert.deepEqual([deleted.status, deleted.text], [200, '"success"']);
      const second = await post();
      const { rows } = await server.pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE payload ->> 'classifiedId' = $1", [
        second,
      ]);
      assert.deepEqual(rows, [{ n: 0 }]);
      const again = await call('DELETE', '/webhooks');
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, {
        type: '/problems/not-found',
        title: 'Not found',
        status: 404,
        detail: 'This client has no webhook subscription here',
        instance: again.headers.get('traceparent'),
      });
    } finally {
      await receiver.stop();
    }
  });

  it('a receiver answering 410 Gone loses its subscription', async () => {
    const receiver = new Receiver();
    await receiver.start();
    receiver.answer = () => 410;
    try {
      assert.equal((await call('PUT', '/webhooks', { url: `${receiver.base}/hooks`, statuses: ['RECEIVED'] })).status, 200);
      await post();
      await receiver.waitFor('the delivery', (all) => all.length === 1);
      await waitFor(
        'the subscription to be removed',
        async () => (await server.pool.query('SELECT count(*)::int AS n FROM caas_webhook_subscriptions')).rows[0].n,
        (n) => n === 0,
      );
      assert.equal((await call('DELETE', '/webhooks')).status, 404);
    } finally {
      await receiver.stop();
    }
  });

  it('accepts repeated statuses (the contract has no uniqueness rule) and stores each once', async () => {
    const result = await call('PUT', '/webhooks', {
      url: 'https://hooks.example.org/repeats',
      statuses: ['CREATED', 'DELETED', 'CREATED'],
    });
    assert.equal(result.status, 200, result.text);
    const { rows } = await server.pool.query(
      "SELECT statuses FROM caas_webhook_subscriptions WHERE url = 'https://hooks.example.org/repeats'",
    );
    assert.deepEqual(rows, [{ statuses: ['CREATED', 'DELETED'] }]);
  });

  it('accepts members the contract does not name (its Webhook is an open object) and ignores them', async () => {
    const result = await call('PUT', '/webhooks', { url: 'https://hooks.example.org/open', statuses: ['CREATED'], colour: 'red' });
    assert.equal(result.status, 200, result.text);
    assert.equal(result.body, 'success');
    const { rows } = await server.pool.query(
      "SELECT url, statuses FROM caas_webhook_subscriptions WHERE url = 'https://hooks.example.org/open'",
    );
    assert.deepEqual(rows, [{ url: 'https://hooks.example.org/open', statuses: ['CREATED'] }]);
  });

  it('refuses a bad status and needs caas:classifieds:* (or caas:*)', async () => {
    const bad = await call('PUT', '/webhooks', { url: 'https://hooks.example.org/x', statuses: ['SHIPPED'] });
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.body as Body).errors, [
      {
        name: '/statuses/0',
        reason:
          'must be equal to one of the allowed values: RECEIVING, RECEIVED, RECEIVING_FAILED, CREATING, CREATED, CREATED_WITH_MEDIA_ERROR, CREATING_FAILED, UPDATING, UPDATED, UPDATED_WITH_MEDIA_ERROR, UPDATING_FAILED, DELETING, DELETED, DELETING_FAILED.',
      },
    ]);
    const forbidden = await call('PUT', '/webhooks', { url: 'https://hooks.example.org/x' }, readOnly);
    assert.equal(forbidden.status, 403);
    assert.equal((forbidden.body as Body).detail, 'The access token lacks the scope caas:classifieds:*');
  });
});

describe('webhook address policy', () => {
  it('refuses a private or loopback URL unless ALLOW_PRIVATE_TARGETS is set', async () => {
    const strictDatabase = await createTestDatabase();
    const strict = await startTestServer(strictDatabase);
    try {
      const client = await makeClient(strict.pool, ['agency-1'], ['caas:*']);
      const strictToken = await getToken(strict, client, { root: '/caas/v4', intermediary: 'agency-1' });
      const result = await http('PUT', `${strict.base}/caas/v4/webhooks`, {
        headers: { authorization: `Bearer ${strictToken}` },
        body: { url: 'http://127.0.0.1:9/hooks' },
      });
      assert.equal(result.status, 400);
      assert.deepEqual((result.body as Body).errors, [
        {
          name: '/url',
          reason:
            'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.',
        },
      ]);
    } finally {
      await strict.close();
      await strictDatabase.drop();
    }
  });
});
