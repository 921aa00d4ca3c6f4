/*
 * `immogate start --dev`: the sandbox's webhooks may reach a receiver on loopback and production's
 * may not; logs for people with a line naming the console and the documents.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { addressPolicy } from '../src/platform/delivery/index.js';
import { Receiver } from './fixtures/receiver.js';
import { leadRequest } from './fixtures/leads.js';
import {
  assertProblem,
  cachedTokens,
  REPO_ROOT,
  createTestDatabase,
  freePort,
  http,
  type TestServer,
  useServer,
  waitFor,
} from './helpers.js';
import { killLaunched, launch, stop, waitReady } from './processes.js';

const fixture = useServer({ worker: true, config: { dev: true }, client: { intermediaries: ['agency-d'], scopes: ['caas:*', 'leads:*'] } });
let server: TestServer;
let receiver: Receiver;
const leadTokens = cachedTokens('/seeker-leads/v1', () => fixture);
const caasTokens = cachedTokens('/caas/v4', () => fixture);

before(async () => {
  await fixture.ready();
  server = fixture.server;
  receiver = await Receiver.start({ otherwise: 204 });
});

after(async () => {
  await receiver.close();
  await killLaunched();
});

const REFUSED =
  'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true.';

describe('the address policy per environment', () => {
  it('dev mode opens the sandbox only; ALLOW_PRIVATE_TARGETS both', () => {
    const policy = (env: Record<string, string>, dev: boolean) =>
      [addressPolicy(loadConfig(env, { dev }), 'sandbox'), addressPolicy(loadConfig(env, { dev }), 'production')].map(
        (p) => p.allowPrivateTargets,
      );
    assert.deepEqual(policy({}, false), [false, false]);
    assert.deepEqual(policy({}, true), [true, false]);
    assert.deepEqual(policy({ ALLOW_PRIVATE_TARGETS: 'true' }, false), [true, true]);
    assert.deepEqual(policy({ ALLOW_PRIVATE_TARGETS: 'true' }, true), [true, true]);
    assert.equal(loadConfig({}).dev, false);
  });
});

describe('dev mode: webhooks to a receiver on loopback', () => {
  it('a sandbox lead subscription to loopback is taken and its lead delivered', async () => {
    const headers = { authorization: `Bearer ${await leadTokens('agency-d', 'sandbox')}` };
    const root = `${server.base}/sandbox/seeker-leads/v1`;
    const url = receiver.script('/leads');
    const subscribed = await http('POST', `${root}/webhook/subscriptions`, {
      headers,
      body: { url, apiKey: 'a-long-random-key-0123456789' },
    });
    assert.equal(subscribed.status, 201, subscribed.text);
    assert.equal((subscribed.body as { url: string }).url, url);
    const lead = await http('POST', `${root}/leads`, { headers, body: leadRequest() });
    assert.equal(lead.status, 200, lead.text);
    const [delivered] = await waitFor(
      'the lead at the receiver',
      async () => receiver.requestsTo('/leads'),
      (requests) => requests.length > 0,
    );
    assert.equal(delivered?.headers['x-api-key'], 'a-long-random-key-0123456789');
    assert.equal(JSON.parse(delivered?.body ?? '{}').contactRequest.firstName, 'Anna');
  });

  it('a production lead subscription to loopback is refused', async () => {
    const headers = { authorization: `Bearer ${await leadTokens('agency-d', 'production')}` };
    const refused = await http('POST', `${server.base}/seeker-leads/v1/webhook/subscriptions`, {
      headers,
      body: { url: receiver.script('/production-leads'), apiKey: 'a-long-random-key-0123456789' },
    });
    assertProblem(refused, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: '/url', reason: REFUSED }],
      errorSource: 'body',
    });
  });

  it('the classifieds status webhook: the sandbox posts to loopback, production refuses it', async () => {
    const sandbox = { authorization: `Bearer ${await caasTokens('agency-d', 'sandbox')}` };
    const url = `${receiver.base}/caas`;
    const subscribed = await http('PUT', `${server.base}/sandbox/caas/v4/webhooks`, { headers: sandbox, body: { url } });
    assert.equal(subscribed.status, 200, subscribed.text);
    assert.equal(subscribed.body, 'success');
    const production = { authorization: `Bearer ${await caasTokens('agency-d', 'production')}` };
    assertProblem(
      await http('PUT', `${server.base}/caas/v4/webhooks`, { headers: production, body: { url } }),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [{ name: '/url', reason: REFUSED }],
        errorSource: 'body',
      },
    );
    const example = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', 'classified-created.json'), 'utf8'));
    const created = await http('POST', `${server.base}/sandbox/caas/v4/classifieds`, {
      headers: sandbox,
      body: { ...example, media: [] },
    });
    assert.equal(created.status, 202, created.text);
    const id = (created.body as { classifiedId: string }).classifiedId;
    const statusPath = `/caas/classifieds/${id}/statuses`;
    const statuses = await waitFor(
      'the CREATED status at the receiver',
      async () => receiver.requestsTo(statusPath).map((request) => JSON.parse(request.body).status as string),
      (seen) => seen.includes('CREATED'),
    );
    assert.deepEqual(statuses.slice(0, 1), ['RECEIVED']);
  });
});

describe('dev mode: media on loopback', () => {
  it('the sandbox downloads a picture from loopback, production refuses the same URL', async () => {
    const example = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', 'classified-created.json'), 'utf8'));
    const outcomes: unknown[] = [];
    for (const environment of ['sandbox', 'production'] as const) {
      const url = receiver.script(`/${environment}/picture.jpg`, { status: 200, headers: { 'content-type': 'image/jpeg' } });
      const headers = { authorization: `Bearer ${await caasTokens('agency-d', environment)}` };
      const root = `${server.base}${environment === 'sandbox' ? '/sandbox' : ''}/caas/v4`;
      example.data.metaData.source.offererEstateId = `D-M-${environment}`;
      const created = await http('POST', `${root}/classifieds`, { headers, body: { ...example, media: [{ url, mediaType: 'PICTURE' }] } });
      assert.equal(created.status, 202, created.text);
      const id = (created.body as { classifiedId: string }).classifiedId;
      const page = await waitFor(
        `the outcome in ${environment}`,
        async () =>
          (await http('GET', `${root}/classifieds/${id}/statuses?filter=latest&limit=1`, { headers })).body as {
            items: { stage: string; mediaStatuses: unknown }[];
          },
        (answer) => answer.items[0]?.stage === 'accepted',
      );
      outcomes.push(page.items[0]?.mediaStatuses);
    }
    assert.deepEqual(outcomes, [
      [{ url: `${receiver.base}/sandbox/picture.jpg`, status: 'CREATED' }],
      [{ url: `${receiver.base}/production/picture.jpg`, status: 'DOWNLOADING_FAILED', reason: REFUSED.slice(0, -1) }],
    ]);
  });
});

describe('immogate start --dev', () => {
  it('logs for people, with a line naming the console and the documents; without --dev, JSON lines', async () => {
    const database = await createTestDatabase();
    try {
      for (const dev of [true, false]) {
        const port = await freePort();
        const running = launch(dev ? ['start', '--dev'] : ['start'], port, { DATABASE_URL: database.url, LOG_LEVEL: 'info' });
        await waitReady(running);
        const base = `http://127.0.0.1:${port}`;
        const line = `dev mode: the console is at ${base}/console and the API documents at ${base}/docs; sandbox webhooks and media may reach loopback and private addresses, production's may not`;
        await waitFor(
          'the log lines',
          async () => running.stdout,
          (stdout) => stdout.includes('worker started'),
        );
        assert.equal((await stop(running)).code, 0);
        const logLines = running.stdout.split('\n').filter((text) => /^\[|^\{/.test(text));
        assert.ok(logLines.length > 3, running.stdout);
        if (dev) {
          assert.match(
            running.stdout,
            new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] INFO: ${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'),
          );
          assert.ok(
            logLines.every((text) => text.startsWith('[')),
            running.stdout,
          );
        } else {
          assert.ok(
            logLines.every((text) => JSON.parse(text).service === 'immogate'),
            running.stdout,
          );
          assert.doesNotMatch(running.stdout, /dev mode/);
        }
      }
    } finally {
      await database.drop();
    }
  });
});
