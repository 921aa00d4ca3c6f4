/*
 * Inputs are canonical before they are used (issue 34, section 2):
 * - a UUID is exactly 8-4-4-4-12 hexadecimal digits: `urn:uuid:<uuid>` (which ajv-formats took and
 *   PostgreSQL does not: 500) and other spellings are 400 naming the parameter, on every route
 *   that takes an id; upper case is the same id (lower-cased before any key, lookup or SQL);
 * - the per-subscription test-event limit counts the id, not its spelling;
 * - a cursor whose numbers lie past PostgreSQL's types is 400, not a 500 from the cast;
 * - a classified validate accepts is one POST stores: a 9,000-character media URL is refused by both.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { ALL_SCOPES } from '../../src/platform/catalogue.js';
import { encodeToken } from '../../src/platform/http/cursors.js';
import { realisticClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { assertProblem, http, type HttpResult, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const CAAS = '/sandbox/caas/v4';
const LEADS = '/sandbox/seeker-leads/v1';
const KEY = 'receiver-api-key-0123456789';

const fixture = useServer({
  env: { ADMIN_TOKEN, TEST_EVENTS_PER_MINUTE: '10' },
  client: { intermediaries: ['agency-1'], scopes: [...ALL_SCOPES] },
});
const tokens: Record<string, string> = {};

before(async () => {
  await fixture.ready();
  for (const root of [CAAS, LEADS]) tokens[root] = await fixture.token({ root, intermediary: 'agency-1' });
});

function call(method: string, root: string, path: string, body?: unknown): Promise<HttpResult> {
  const authorization = root === '' ? `Bearer ${ADMIN_TOKEN}` : `Bearer ${tokens[root]}`;
  return http(method, `${fixture.server.base}${root}${path}`, { headers: { authorization }, body });
}

function parameterProblem(result: HttpResult, name: string, reason: string): void {
  assertProblem(result, 400, 'Bad request', 'Your request has not been validated', {
    errors: [{ name, reason }],
    errorSource: 'requestParameter',
  });
}

/** Flips the letter case of every other letter: one id, another spelling. */
function respelled(id: string, variant: number): string {
  let letter = 0;
  return [...id]
    .map((character) => {
      if (!/[a-f]/.test(character)) return character;
      letter += 1;
      return (variant >> (letter % 16)) & 1 ? character.toUpperCase() : character;
    })
    .join('');
}

describe('UUIDs: one spelling, refused otherwise', () => {
  const some = randomUUID();
  const UUID_REASON = 'must match format "uuid".';
  const idRoutes: Array<{ method: string; root: string; path: (id: string) => string; name: string; body?: unknown }> = [
    { method: 'GET', root: CAAS, path: (id) => `/classifieds/${id}`, name: 'classifiedId' },
    { method: 'GET', root: CAAS, path: (id) => `/classifieds/${id}/statuses`, name: 'classifiedId' },
    { method: 'GET', root: LEADS, path: (id) => `/leads/${id}`, name: 'leadId' },
    { method: 'GET', root: LEADS, path: (id) => `/leads?minDate=1700000000&maxDate=1700086400&start=${id}`, name: 'start' },
    { method: 'PUT', root: LEADS, path: (id) => `/webhook/subscriptions/${id}`, name: 'id', body: { status: 'INACTIVE' } },
    { method: 'DELETE', root: LEADS, path: (id) => `/webhook/subscriptions/${id}`, name: 'id' },
    { method: 'GET', root: LEADS, path: (id) => `/webhook/subscriptions/${id}/audit`, name: 'id' },
    { method: 'POST', root: LEADS, path: (id) => `/webhook/subscriptions/${id}/test-events`, name: 'id' },
    { method: 'GET', root: '', path: (id) => `/admin/deliveries/${id}`, name: 'id' },
  ];

  for (const route of idRoutes) {
    it(`${route.method} ${route.root}${route.path('{id}')}: urn:uuid:, braces and no dashes are 400 naming ${route.name}`, async () => {
      for (const spelling of [`urn:uuid:${some}`, `{${some}}`, some.replace(/-/g, ''), `URN:UUID:${some.toUpperCase()}`]) {
        parameterProblem(
          await call(route.method, route.root, route.path(encodeURIComponent(spelling)), route.body),
          route.name,
          UUID_REASON,
        );
      }
    });
  }

  it('an upper-case id finds the same classified, its statuses, lead and subscription', async () => {
    const created = await call('POST', CAAS, '/classifieds', realisticClassified());
    assert.equal(created.status, 202, created.text);
    const classifiedId = (created.body as { classifiedId: string }).classifiedId;
    const lower = await call('GET', CAAS, `/classifieds/${classifiedId}`);
    const upper = await call('GET', CAAS, `/classifieds/${classifiedId.toUpperCase()}`);
    assert.equal(lower.status, 200, lower.text);
    assert.equal(upper.status, 200, upper.text);
    assert.deepEqual(upper.body, lower.body);
    const statuses = await call('GET', CAAS, `/classifieds/${classifiedId.toUpperCase()}/statuses`);
    assert.equal(statuses.status, 200, statuses.text);
    assert.deepEqual(statuses.body, (await call('GET', CAAS, `/classifieds/${classifiedId}/statuses`)).body);

    const submitted = await call('POST', LEADS, '/leads', leadRequest());
    assert.equal(submitted.status, 200, submitted.text);
    const now = Math.floor(Date.now() / 1000);
    const listed = await call('GET', LEADS, `/leads?minDate=${now - 600}&maxDate=${now + 600}`);
    assert.equal(listed.status, 200, listed.text);
    const leadId = (listed.body as { items: Array<{ metadata: { leadId: string } }> }).items[0]?.metadata.leadId ?? '';
    const lead = await call('GET', LEADS, `/leads/${leadId.toUpperCase()}`);
    assert.equal(lead.status, 200, lead.text);
    assert.deepEqual(lead.body, (await call('GET', LEADS, `/leads/${leadId}`)).body);

    const subscription = await call('POST', LEADS, '/webhook/subscriptions', { url: 'https://hooks.example.org/upper', apiKey: KEY });
    assert.equal(subscription.status, 201, subscription.text);
    const subscriptionId = (subscription.body as { subscriptionId: string }).subscriptionId;
    const audit = await call('GET', LEADS, `/webhook/subscriptions/${subscriptionId.toUpperCase()}/audit`);
    assert.equal(audit.status, 200, audit.text);
    assert.equal((audit.body as { subscriptionId: string }).subscriptionId, subscriptionId);
    const put = await call('PUT', LEADS, `/webhook/subscriptions/${subscriptionId.toUpperCase()}`, { status: 'INACTIVE' });
    assert.equal(put.status, 200, put.text);
    assert.equal((put.body as { status: string }).status, 'INACTIVE');
    const deleted = await call('DELETE', LEADS, `/webhook/subscriptions/${subscriptionId.toUpperCase()}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await call('GET', LEADS, `/webhook/subscriptions/${subscriptionId}/audit`)).status, 404);
  });

  it('the test-event limit counts a subscription once however its id is spelled', async () => {
    const subscription = await call('POST', LEADS, '/webhook/subscriptions', { url: 'https://hooks.example.org/limit', apiKey: KEY });
    assert.equal(subscription.status, 201, subscription.text);
    const id = (subscription.body as { subscriptionId: string }).subscriptionId;
    const statuses: number[] = [];
    for (let variant = 0; variant < 20; variant += 1) {
      statuses.push((await call('POST', LEADS, `/webhook/subscriptions/${respelled(id, variant * 2654435761)}/test-events`)).status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(202), ...Array(10).fill(429)]);
  });
});

describe('idempotency keys', () => {
  it('a retry naming the same id in another letter case is a replay of the first, not another request', async () => {
    const subscription = await call('POST', LEADS, '/webhook/subscriptions', { url: 'https://hooks.example.org/retry', apiKey: KEY });
    assert.equal(subscription.status, 201, subscription.text);
    const id = (subscription.body as { subscriptionId: string }).subscriptionId;
    const send = (spelling: string) =>
      http('POST', `${fixture.server.base}${LEADS}/webhook/subscriptions/${spelling}/test-events`, {
        headers: { authorization: `Bearer ${tokens[LEADS]}`, 'idempotency-key': `retry-${id}` },
      });
    const first = await send(id);
    assert.equal(first.status, 202, first.text);
    const again = await send(id.toUpperCase());
    assert.equal(again.status, 202, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
  });
});

describe('cursors past the database types', () => {
  it('a feed cursor whose position or transaction lies past bigint or xid8 is 400, not 500', async () => {
    // This database's epoch, from a cursor it gave: a cursor of another epoch is answered 410 before any cast.
    const page = await call('GET', CAAS, '/events');
    assert.equal(page.status, 200, page.text);
    const epoch = Buffer.from((page.body as { next: string }).next, 'base64url')
      .toString()
      .split(':')[1];
    assert.match(epoch ?? '', /^[0-9a-f]{1,12}$/);
    for (const numbers of ['0:9999999999999999999', '99999999999999999999:0', '0:9223372036854775808', '18446744073709551616:1']) {
      const text = `e1:${epoch}:${numbers}`;
      parameterProblem(await call('GET', CAAS, `/events?after=${encodeToken(text)}`), 'after', 'is not a cursor this feed returned.');
    }
  });
});

describe('what validate accepts, POST stores', () => {
  it('a media URL of 9,000 characters is refused by validate and by POST, naming the field', async () => {
    const classified = realisticClassified();
    const media = [{ mediaType: 'PICTURE', url: `https://cdn.example.org/${'a'.repeat(9000 - 24)}.jpg` }];
    // An offerer estate id of its own: the rules would refuse another classified's before any write.
    classified.data.metaData.source.offererEstateId = `long-media-url-${randomUUID()}`;
    const body = { ...classified, media };
    // Refused for its length alone: what its format would say of it is moot.
    const errors = [{ name: '/media/0/url', reason: 'must NOT have more than 2048 characters.' }];
    const validated = await call('POST', CAAS, '/classifieds/validate', body);
    assert.equal(validated.status, 200, validated.text);
    assert.deepEqual(validated.body, { valid: false, errors, rulesChecked: false, portals: [] });
    assertProblem(await call('POST', CAAS, '/classifieds', body), 400, 'Bad request', 'Your request has not been validated', {
      errors,
      errorSource: 'body',
    });
  });
});
