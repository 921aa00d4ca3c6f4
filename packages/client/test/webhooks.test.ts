/*
 * verifyWebhook on what immogate really sends: the classified status webhooks and the lead
 * notifications of subscriptions made through the client, received on loopback, verified and
 * typed; then the same deliveries altered, stale, or checked with another key, refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { leadRequest } from '../../../test/fixtures/leads.js';
import { type Received, Receiver } from '../../../test/fixtures/receiver.js';
import { useServer, waitFor } from '../../../test/helpers.js';
import { type ImmogateClient, type NewLead, verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../src/index.js';
import { clientOf, rental } from './helpers.js';

const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1,0.2,0.4' },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'leads:*'] },
});
const SECRET = 'a-status-webhook-secret-of-some-length';
const API_KEY = 'a-lead-api-key-0123456789-abcdefghij';
let client: ImmogateClient;
let receiver: Receiver;
let statusDelivery: Received;
let leadDelivery: Received;

before(async () => {
  await fixture.ready();
  client = clientOf(fixture, 'agency-1');
  receiver = await Receiver.start();
});

after(() => receiver.close());

function arrived(path: string, count: number): Promise<Received[]> {
  return waitFor(
    `${count} deliveries to ${path}`,
    async () => receiver.requestsTo(path),
    (requests) => requests.length >= count,
  );
}

function refusal(work: () => unknown, message: string): void {
  assert.throws(work, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError);
    assert.equal(error.message, message);
    return true;
  });
}

describe('verifyWebhook', () => {
  it('verifies and types every status webhook of a classified', async () => {
    await client.classifieds.webhooks.subscribe({ url: `${receiver.base}/hooks`, secret: SECRET });
    const { classifiedId } = await client.classifieds.create(rental('W-1'));
    const deliveries = await arrived(`/hooks/classifieds/${classifiedId}/statuses`, 3);
    const events = deliveries.map((delivery) => verifyWebhook(delivery.body, delivery.headers, SECRET));
    const statuses = await client.classifieds.statuses(classifiedId).toArray();
    const byId = (a: { statusId: string }, b: { statusId: string }) => a.statusId.localeCompare(b.statusId);
    const delivered = events.flatMap((event) => (event.type === 'classified.status' ? [event.data] : []));
    assert.equal(delivered.length, 3);
    assert.deepEqual(delivered.sort(byId), [...statuses].sort(byId));
    for (const [i, event] of events.entries()) {
      assert.equal(event.webhookId, deliveries[i]?.headers['webhook-id']);
      assert.equal(event.timestamp.getTime(), Number(deliveries[i]?.headers['webhook-timestamp']) * 1000);
    }
    statusDelivery = deliveries[0] ?? assert.fail('no delivery');
  });

  it('verifies and types a lead notification, signed with the apiKey', async () => {
    await client.leads.subscriptions.create({ url: `${receiver.base}/leads`, apiKey: API_KEY });
    await client.leads.create(leadRequest() as NewLead);
    const [delivery] = await arrived('/leads', 1);
    leadDelivery = delivery ?? assert.fail('no delivery');
    assert.equal(leadDelivery.headers['x-api-key'], API_KEY);
    const event: WebhookEvent = verifyWebhook(Buffer.from(leadDelivery.body), leadDelivery.headers, API_KEY);
    assert.equal(event.type, 'lead.created');
    if (event.type !== 'lead.created') return;
    assert.deepEqual(event.data, await client.leads.get(event.data.metadata.leadId));
    assert.equal(event.data.contactRequest.email, 'anna@example.org');
  });

  it('takes the headers as a Headers object, several signatures in one header, and several secrets while a key changes', () => {
    const { body, headers } = statusDelivery;
    const fetchHeaders = new Headers();
    for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') fetchHeaders.set(name, value);
    assert.equal(verifyWebhook(body, fetchHeaders, SECRET).type, 'classified.status');
    const several = {
      ...headers,
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} v2,whatever ${headers['webhook-signature']}`,
    };
    assert.equal(verifyWebhook(body, several, SECRET).type, 'classified.status');
    assert.equal(verifyWebhook(body, headers, ['the-previous-secret-of-some-length', SECRET]).type, 'classified.status');
  });

  it('refuses a webhook whose body, signature, key or timestamp does not hold up', () => {
    const { body, headers } = statusDelivery;
    const noMatch = 'no webhook-signature matches the secret';
    refusal(() => verifyWebhook(body.replace('"SL"', '"BD"'), headers, SECRET), noMatch);
    refusal(() => verifyWebhook(body, headers, 'another-secret-of-some-length'), noMatch);
    refusal(() => verifyWebhook(body, { ...headers, 'webhook-id': 'another-id' }, SECRET), noMatch);
    refusal(
      () => verifyWebhook(body, { ...headers, 'webhook-signature': String(headers['webhook-signature']).replace('v1,', 'v2,') }, SECRET),
      noMatch,
    );
    const { 'webhook-signature': _, ...unsigned } = headers;
    refusal(() => verifyWebhook(body, unsigned, SECRET), 'no webhook-signature header');
    refusal(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': '12ab' }, SECRET), 'webhook-timestamp is not Unix seconds: 12ab');
    const sent = Number(headers['webhook-timestamp']);
    const later = new Date((sent + 301) * 1000);
    refusal(
      () => verifyWebhook(body, headers, SECRET, { now: later }),
      `webhook-timestamp ${sent} is more than 300 s from now (${sent + 301})`,
    );
    assert.equal(verifyWebhook(body, headers, SECRET, { now: later, toleranceSeconds: 600 }).type, 'classified.status');
  });

  it('refuses a lead notification whose X-Api-Key is not the key it was verified with', () => {
    const { body, headers } = leadDelivery;
    refusal(
      () => verifyWebhook(body, { ...headers, 'x-api-key': 'someone-else' }, API_KEY),
      'X-Api-Key is not the secret the signature was checked with',
    );
  });
});
