/*
 * The docs page (/docs) and what its three documents say: every operation with its operationId,
 * summary, description and tags, the sandbox first, the token service's client-credentials flow,
 * the User-Agent rule where it applies and the webhooks' requests, which real deliveries to a
 * receiver on loopback are held to (headers, body, the signature checked as documented). Then the page in Chromium: each
 * document loads without a console error, Authorize gets a token from the token service, and Try
 * it out on the lead API answers 200 (on the classifieds API, the documented 400 of the browser's
 * User-Agent).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { leadsApi } from '../../src/apis/leads/index.js';
import { Lead } from '../../src/apis/leads/model/lead.js';
import { APIS, rootPath, type ApiDescriptor } from '../../src/platform/catalogue.js';
import { WEBHOOK_USER_AGENT } from '../../src/platform/delivery/deliveryStream.js';
import { BROWSER_MISSING, useBrowser, type WatchedPage } from '../fixtures/browser.js';
import { minimalClassified } from '../fixtures/classifieds.js';
import { readAsIntended } from '../fixtures/contract.js';
import { leadRequest } from '../fixtures/leads.js';
import { Receiver, type Received } from '../fixtures/receiver.js';
import { http, type TestServer, USER_AGENT, useServer, waitFor } from '../helpers.js';

type Node = Record<string, any>;

const AGENCY = 'agency-docs';
const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true' },
  client: { intermediaries: [AGENCY], scopes: ['caas:*', 'clim:*', 'leads:*'] },
});
let server: TestServer;
let receiver: Receiver;
const documents: Record<string, Node> = {};

before(async () => {
  receiver = await Receiver.start({ otherwise: 201 });
  await fixture.ready();
  server = fixture.server;
  for (const api of APIS) {
    const result = await http('GET', `${server.base}${rootPath(api, 'production')}/openapi.json`);
    assert.equal(result.status, 200, result.text);
    documents[api.id] = result.body as Node;
  }
});

const TAGS: Record<ApiDescriptor['id'], Record<string, string[]>> = {
  caas: {
    Classifieds: ['createClassified', 'getClassifieds', 'GetClassified', 'updateClassified', 'deleteClassified', 'validateClassified'],
    Statuses: ['getClassifiedStatuses'],
    Webhooks: ['createSubscriptionToWebhook', 'deleteSubscriptionToWebhook', 'sendWebhookTestEvent'],
    Events: ['listClassifiedEvents'],
  },
  clim: {
    Listings: ['createListing', 'getListings', 'getListing', 'updateListing', 'deleteListing', 'validateListing'],
    Media: ['createMedia'],
    OpenImmo: ['createOpenImmoImport', 'listOpenImmoImports', 'getOpenImmoImport'],
    Health: ['getHealth'],
    Events: ['listListingEvents'],
  },
  leads: {
    Leads: ['createLead', 'getLeads', 'getLead', 'getLeadOpenImmoFeedback'],
    Subscriptions: [
      'createWebhookSubscription',
      'getWebhookSubscriptions',
      'updateWebhookSubscription',
      'deleteWebhookSubscription',
      'getWebhookSubscriptionAudit',
      'sendWebhookSubscriptionTestEvent',
    ],
    Events: ['listLeadEvents'],
  },
};

const USER_AGENT_NOTES: Record<ApiDescriptor['id'], string | undefined> = {
  caas:
    'User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends ' +
    'its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.',
  clim: 'User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.',
  leads: undefined,
};

/** The operations of each path item; its other members (the mark of an item of immogate's own) are not operations. */
function operations(document: Node): Node[] {
  return Object.values(document.paths as Node).flatMap((methods: Node) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([, operation]) => operation),
  );
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

describe('the three documents', () => {
  for (const api of APIS) {
    it(`${api.id}: every operation has its operationId, summary, description and tags; the tags are listed with descriptions`, () => {
      const document = documents[api.id] as Node;
      const byTag: Record<string, string[]> = {};
      for (const operation of operations(document)) {
        assert.equal(typeof operation.summary, 'string', operation.operationId);
        assert.ok(operation.summary.length > 0, operation.operationId);
        assert.ok(typeof operation.description === 'string' && operation.description.length > 80, operation.operationId);
        assert.equal(operation.tags.length, 1, operation.operationId);
        const tag = operation.tags[0] as string;
        byTag[tag] = [...(byTag[tag] ?? []), operation.operationId];
      }
      assert.deepEqual(byTag, TAGS[api.id]);
      assert.deepEqual(
        document.tags.map((tag: Node) => tag.name),
        Object.keys(TAGS[api.id]),
      );
      for (const tag of document.tags) assert.ok(tag.description.length > 0, tag.name);
    });

    it(`${api.id}: the sandbox is the first server; Authorize is the token service's client-credentials flow`, () => {
      const document = documents[api.id] as Node;
      assert.deepEqual(document.servers, [
        { url: server.base + rootPath(api, 'sandbox'), description: 'sandbox' },
        { url: server.base + rootPath(api, 'production'), description: 'production' },
      ]);
      const oauth = document.components.securitySchemes.oauth2;
      assert.equal(oauth.type, 'oauth2');
      assert.deepEqual(Object.keys(oauth.flows), ['clientCredentials']);
      assert.equal(oauth.flows.clientCredentials.tokenUrl, `${server.base}/oauth/token`);
      assert.deepEqual(Object.keys(oauth.flows.clientCredentials.scopes), api.scopes);
      for (const [scope, grants] of Object.entries(oauth.flows.clientCredentials.scopes)) assert.ok(grants, scope);
      assert.match(oauth.description, /`audience`, the root URL of the server called/);
      assert.match(oauth.description, /`intermediary_id`, the agency/);
      assert.match(document.info.description, new RegExp(`Tokens come from \`POST ${server.base}/oauth/token\``));
      // Every operation that takes a token takes it from either scheme.
      for (const operation of operations(document)) {
        const security = operation.security ?? document.security;
        if (operation.operationId === 'getHealth') continue;
        assert.deepEqual(security.flatMap((requirement: Node) => Object.keys(requirement)).sort(), ['bearerAuth', 'oauth2']);
      }
    });

    it(`${api.id}: the User-Agent rule is stated in the document and on every operation it applies to`, () => {
      const document = documents[api.id] as Node;
      const note = USER_AGENT_NOTES[api.id];
      for (const operation of operations(document)) {
        if (note === undefined) assert.doesNotMatch(operation.description, /User-Agent/, operation.operationId);
        else assert.ok(operation.description.endsWith(`\n\n${note}`), operation.operationId);
      }
      const section = /## User-Agent\n\n([^#]*)/.exec(document.info.description)?.[1] ?? '';
      const expected = {
        caas: /three space-separated `name\/version` parts.*Try it out on the docs page \(`\/docs`\) gets that 400/s,
        clim: /refuses one without it with 403/,
        leads: /asks for no particular `User-Agent`/,
      }[api.id];
      assert.match(section, expected);
    });
  }

  it('leads: the notification is a callback of the subscription, with the lead, X-Api-Key, the signature headers and how to verify them', () => {
    const post = documents.leads?.paths['/webhook/subscriptions'].post;
    const notification = post.callbacks['New lead']['{$request.body#/url}'].post;
    assert.deepEqual(
      notification.parameters.map((parameter: Node) => [parameter.name, parameter.in, parameter.required]),
      [['X-Api-Key', 'header', true], ...SIGNATURE_HEADERS.map((name) => [name, 'header', true])],
    );
    assert.deepEqual(notification.requestBody, {
      required: true,
      content: { 'application/json': { schema: JSON.parse(JSON.stringify(Lead)) } },
    });
    // The same lead GET /leads/{leadId} answers.
    assert.deepEqual(
      notification.requestBody.content['application/json'].schema,
      documents.leads?.paths['/leads/{leadId}'].get.responses['200'].content['application/json'].schema,
    );
    assert.deepEqual(Object.keys(notification.responses).sort(), ['2XX', '410', 'default']);
    assert.match(notification.description, /Verifying a signature.*HMAC-SHA256, keyed with the UTF-8 bytes of the apiKey/s);
    assert.match(notification.description, /`\{webhook-id\}\.\{webhook-timestamp\}\.\{body\}`/);
  });

  it('caas: the real status callback keeps its facts and gains the signature headers, answers and how to verify them', () => {
    const put = documents.caas?.paths['/webhooks'].put;
    const callback = put.callbacks['New status']['{$request.body#/url}/classifieds/classifiedId/statuses'].post;
    assert.deepEqual(
      callback.parameters.map((parameter: Node) => [parameter.name, parameter.in, parameter['x-immogate-extension']]),
      [['classifiedId', 'path', undefined], ...SIGNATURE_HEADERS.map((name) => [name, 'header', true])],
    );
    assert.deepEqual(callback.requestBody, {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ClassifiedStatus' } } },
    });
    assert.deepEqual(Object.keys(callback.responses), ['201', '410', 'default']);
    assert.match(callback.description, /Verifying a signature.*keyed with the UTF-8 bytes of the `secret` of the subscription/s);
  });
});

after(() => receiver.close());

/**
 * Holds a delivered webhook to the callback that documents it: every documented header there
 * (matching its pattern), the body valid against the documented schema (`document` resolves its
 * $refs), the signature what the documented recipe computes with `key`.
 */
function assertAsDocumented(received: Received, callback: Node, document: Node, key: string): void {
  for (const parameter of callback.parameters.filter((candidate: Node) => candidate.in === 'header')) {
    const value = received.headers[parameter.name.toLowerCase()];
    assert.equal(typeof value, 'string', parameter.name);
    if (parameter.schema.pattern) assert.match(value as string, new RegExp(parameter.schema.pattern), parameter.name);
  }
  assert.equal(received.headers['content-type'], 'application/json');
  assert.equal(received.headers['user-agent'], WEBHOOK_USER_AGENT);
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  const base = 'https://immogate.test/served.json';
  ajv.addSchema(readAsIntended(structuredClone(document), base));
  const schema = callback.requestBody.content['application/json'].schema;
  const validate = ajv.compile(schema.$ref ? { $ref: `${base}${schema.$ref}` } : schema);
  assert.ok(validate(JSON.parse(received.body)), JSON.stringify(validate.errors));
  const id = received.headers['webhook-id'] as string;
  const timestamp = received.headers['webhook-timestamp'] as string;
  const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(`${id}.${timestamp}.${received.body}`).digest('base64');
  assert.equal(received.headers['webhook-signature'], `v1,${expected}`);
}

describe('the webhooks as their callbacks document them', () => {
  it('a new lead: the lead, X-Api-Key and a signature the apiKey verifies', async () => {
    const token = await fixture.token({ root: '/seeker-leads/v1', intermediary: AGENCY });
    const apiKey = 'documented-api-key-0123456789';
    const headers = { authorization: `Bearer ${token}` };
    const base = `${server.base}/seeker-leads/v1`;
    const subscribed = await http('POST', `${base}/webhook/subscriptions`, { headers, body: { url: receiver.script('/leads'), apiKey } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const created = await http('POST', `${base}/leads`, { headers, body: leadRequest() });
    assert.equal(created.status, 200, created.text);
    const [received] = await waitFor(
      'the lead notification',
      async () => receiver.requestsTo('/leads'),
      (list) => list.length > 0,
    );
    const document = documents.leads as Node;
    const callback = document.paths['/webhook/subscriptions'].post.callbacks['New lead']['{$request.body#/url}'].post;
    assertAsDocumented(received as Received, callback, document, apiKey);
    assert.equal(received?.headers['x-api-key'], apiKey);
  });

  it('a classified status: POSTed under {url}/classifieds/{classifiedId}/statuses, a status, a signature the secret verifies', async () => {
    const token = await fixture.token({ root: '/caas/v4', intermediary: AGENCY });
    const secret = 'documented-status-secret';
    const headers = { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT };
    const base = `${server.base}/caas/v4`;
    const subscribed = await http('PUT', `${base}/webhooks`, { headers, body: { url: `${receiver.base}/caas`, secret } });
    assert.equal(subscribed.status, 200, subscribed.text);
    const created = await http('POST', `${base}/classifieds`, { headers, body: minimalClassified() });
    assert.equal(created.status, 202, created.text);
    const path = `/caas/classifieds/${(created.body as Node).classifiedId}/statuses`;
    const [received] = await waitFor(
      'the status webhook',
      async () => receiver.requestsTo(path),
      (list) => list.length > 0,
    );
    const document = documents.caas as Node;
    const callback = document.paths['/webhooks'].put.callbacks['New status']['{$request.body#/url}/classifieds/classifiedId/statuses'].post;
    assertAsDocumented(received as Received, callback, document, secret);
  });
});

/** Swagger UI's live answer to the last Try it out of `operation`: its status and body. */
async function executed(watched: WatchedPage, operation: string): Promise<{ status: string; body: string }> {
  const block = watched.page.locator(`#${operation}`);
  const status = block.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor();
  return {
    status: ((await status.textContent()) ?? '').trim(),
    body: (await block.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '',
  };
}

/** Opens the document named `name` in the page's top bar, and waits for its operations. */
async function openDocument(watched: WatchedPage, name: string, firstOperation: string): Promise<void> {
  await watched.page.locator('.topbar select').selectOption({ label: name });
  await watched.page.locator(`#${firstOperation}`).waitFor();
}

describe('/docs in Chromium', { skip: BROWSER_MISSING }, () => {
  const browser = useBrowser();

  it('loads each document with its tags, operationIds and the sandbox selected, without a console error', async () => {
    const watched = await browser.newPage();
    const { page } = watched;
    await page.goto(`${server.base}/docs`);
    assert.equal(await page.title(), 'immogate API documentation');
    for (const api of APIS) {
      const [firstTag, firstOperations] = Object.entries(TAGS[api.id])[0] as [string, string[]];
      await openDocument(watched, `${api.title} ${api.version}`, `operations-${firstTag}-${firstOperations[0]}`);
      assert.ok(((await page.locator('.info .title').textContent()) ?? '').startsWith(api.title));
      assert.equal(await page.locator('.servers select').inputValue(), server.base + rootPath(api, 'sandbox'));
      const tags = await page
        .locator('.opblock-tag')
        .evaluateAll((elements) => elements.map((element) => element.getAttribute('data-tag')));
      assert.deepEqual(tags, Object.keys(TAGS[api.id]));
      const ids = await page.locator('.opblock-summary-operation-id').allTextContents();
      assert.deepEqual(ids, Object.values(TAGS[api.id]).flat());
      assert.equal(await page.locator('.opblock-summary-description').filter({ hasText: /\S/ }).count(), ids.length);
    }
    assert.deepEqual(watched.errors, []);
  });

  it('authorizes on the lead API with client id, secret and agency, then Try it out reads a lead: 200', async () => {
    const token = await fixture.token({ root: '/sandbox/seeker-leads/v1', intermediary: AGENCY });
    const created = await http('POST', `${server.base}/sandbox/seeker-leads/v1/leads`, {
      headers: { authorization: `Bearer ${token}` },
      body: leadRequest(),
    });
    assert.equal(created.status, 200, created.text);
    const listed = await http(
      'GET',
      `${server.base}/sandbox/seeker-leads/v1/leads?minDate=${Math.floor(Date.now() / 1000) - 60}&maxDate=${Math.floor(Date.now() / 1000) + 60}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const lead = (listed.body as { items: Node[] }).items[0] as Node;

    const watched = await browser.newPage();
    const { page } = watched;
    await page.goto(`${server.base}/docs`);
    await openDocument(watched, `${leadsApi.api.title} ${leadsApi.api.version}`, 'operations-Leads-getLead');

    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.immogate-client-credentials');
    await dialog.locator('#client_id_clientCredentials').fill(fixture.client.clientId);
    await dialog.locator('#client_secret_clientCredentials').fill(fixture.client.secret);
    assert.equal(await dialog.locator('.immogate-token-parameters code').textContent(), `${server.base}/sandbox/seeker-leads/v1`);
    await dialog.locator('#immogate_intermediary_id').fill(AGENCY);
    await dialog.locator('button.authorize').click();
    await dialog.locator('h6', { hasText: 'Authorized' }).waitFor();
    await dialog.locator('button.btn-done').click();

    const operation = page.locator('#operations-Leads-getLead');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('input[placeholder="leadId"]').fill(lead.metadata.leadId);
    await operation.locator('button.execute').click();
    const answer = await executed(watched, 'operations-Leads-getLead');
    assert.equal(answer.status, '200', answer.body);
    assert.deepEqual(JSON.parse(answer.body), lead);
    assert.deepEqual(watched.errors, []);
  });

  it('Authorize without an agency names what is missing instead of asking for a token', async () => {
    const watched = await browser.newPage();
    const { page } = watched;
    await page.goto(`${server.base}/docs`);
    await openDocument(watched, `${leadsApi.api.title} ${leadsApi.api.version}`, 'operations-Leads-getLead');
    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.immogate-client-credentials');
    await dialog.locator('#client_id_clientCredentials').fill(fixture.client.clientId);
    await dialog.locator('#client_secret_clientCredentials').fill(fixture.client.secret);
    await dialog.locator('button.authorize').click();
    assert.equal(await dialog.locator('.errors span').textContent(), 'intermediary_id is required: the agency you act for');
    assert.deepEqual(watched.errors, []);
  });

  it('Try it out on the classifieds API gets the 400 its document announces: the browser sends its own User-Agent', async () => {
    const watched = await browser.newPage();
    const { page } = watched;
    await page.goto(`${server.base}/docs`);
    const operation = page.locator('#operations-Classifieds-getClassifieds');
    await operation.waitFor();
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('tr[data-param-name="User-Agent"] input').fill('MyCrm/1.0.0 curl/7.52.1 debian/9');
    await operation.locator('button.execute').click();
    const answer = await executed(watched, 'operations-Classifieds-getClassifieds');
    assert.equal(answer.status, '400', answer.body);
    const problem = JSON.parse(answer.body) as Node;
    assert.deepEqual(problem.errors, [
      { name: 'User-Agent', reason: 'must be three space-separated name/version parts, e.g. "MyCrm/1.0.0 curl/7.52.1 debian/9".' },
    ]);
    assert.equal(problem.errorSource, 'header');
    // The page logs the failed request (its status is an error to Chromium); nothing else went wrong.
    assert.deepEqual(
      watched.errors.filter((error) => !error.includes('status of 400')),
      [],
    );
  });
});
