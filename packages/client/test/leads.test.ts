/*
 * The lead API through the client: leads submitted, searched page by page (links.next) and read,
 * the notification subscriptions and their pages, and its real rate limit (10 calls per 200 ms)
 * waited out by the retries as its Retry-After says, or thrown when retries are off.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { leadRequest } from '../../../test/fixtures/leads.js';
import { TRACEPARENT, useServer } from '../../../test/helpers.js';
import { type ImmogateClient, type Lead, type NewLead, ProblemError, type RetryInfo } from '../src/index.js';
import { clientOf } from './helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-search', 'agency-burst'], scopes: ['leads:*'] } });
let client: ImmogateClient;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

before(async () => {
  await fixture.ready();
  client = clientOf(fixture, 'agency-1');
});

/** The root fixtures' lead body, typed as the client types it. */
function lead(overrides: Record<string, unknown> = {}): NewLead {
  return leadRequest(overrides) as NewLead;
}

/** An hour either side of now: the leads of the test are in it. */
function period(): { minDate: Date; maxDate: Date } {
  return { minDate: new Date(Date.now() - 3_600_000), maxDate: new Date(Date.now() + 3_600_000) };
}

describe('leads', () => {
  it('submits a lead and reads it back', async () => {
    const submitted = await client.leads.create(lead({ email: 'reader@example.org' }));
    assert.match(submitted.requestId, UUID);
    assert.equal(submitted.title, 'Lead submitted');
    const [found] = await client.leads.search(period()).toArray();
    assert.ok(found);
    assert.equal(found.metadata.requestId, submitted.requestId);
    assert.deepEqual(found.contactRequest, {
      firstName: 'Anna',
      lastName: 'Schmidt',
      name: 'Anna Schmidt',
      gender: null,
      email: 'reader@example.org',
      language: 'FR',
      phoneNumbers: [{ type: 'MOBILE', number: '+49 151 2345678' }],
      message: 'Is the flat still available?',
    });
    assert.deepEqual(await client.leads.get(found.metadata.leadId), found);
  });

  it('searches page by page, following links.next, in ingestion order', async () => {
    const searcher = clientOf(fixture, 'agency-search');
    const requestIds: string[] = [];
    for (let i = 0; i < 5; i++) requestIds.push((await searcher.leads.create(lead({ email: `seeker-${i}@example.org` }))).requestId);
    const pages: string[][] = [];
    for await (const page of searcher.leads.search({ ...period(), limit: 2 }).pages()) {
      pages.push(page.items.map((item) => item.metadata.requestId));
    }
    assert.deepEqual(pages, [requestIds.slice(0, 2), requestIds.slice(2, 4), requestIds.slice(4)]);
    const seconds = { minDate: Math.floor(Date.now() / 1000) - 60, maxDate: Math.floor(Date.now() / 1000) + 60 };
    assert.equal((await searcher.leads.search(seconds).toArray()).length, 5);
  });

  it('manages the notification subscriptions, and lists them page by page', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) {
      created.push(
        await client.leads.subscriptions.create({ url: `https://crm.example.org/leads/${i}`, apiKey: `a-long-random-key-${i}-0123456789` }),
      );
    }
    const [first] = created;
    assert.ok(first);
    assert.match(first.subscriptionId, UUID);
    assert.deepEqual(first, {
      subscriptionId: first.subscriptionId,
      url: 'https://crm.example.org/leads/0',
      status: 'ACTIVE',
      createdAt: first.createdAt,
      updatedAt: first.updatedAt,
    });
    const pages: number[] = [];
    for await (const page of client.leads.subscriptions.list({ limit: 2 }).pages()) pages.push(page.items.length);
    assert.deepEqual(pages, [2, 1]);
    const listed = await client.leads.subscriptions.list({ limit: 2 }).toArray();
    assert.deepEqual(listed.map((item) => item.subscriptionId).sort(), created.map((item) => item.subscriptionId).sort());

    const paused = await client.leads.subscriptions.update(first.subscriptionId, { status: 'INACTIVE' });
    assert.equal(paused.status, 'INACTIVE');
    const audit = await client.leads.subscriptions.audit(first.subscriptionId, { limit: 5 });
    assert.deepEqual({ ...audit, updatedAt: '' }, { ...paused, updatedAt: '', lastSuccessTimestamp: null, recentEvents: [] });
    const deleted = await client.leads.subscriptions.delete(first.subscriptionId);
    assert.deepEqual(deleted, { ...paused, message: deleted.message });
    const error = await client.leads.subscriptions.audit(first.subscriptionId).catch((caught: unknown) => caught);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 404);
  });

  it('waits out the rate limit as Retry-After says, so a burst of reads all succeed', async () => {
    const retries: RetryInfo[] = [];
    const burst = clientOf(fixture, 'agency-burst', { retry: { onRetry: (info) => retries.push(info) } });
    await burst.leads.create(lead());
    const [one] = await burst.leads.search(period()).toArray();
    assert.ok(one);
    // Bursts until one is refused: a loaded machine may spread a burst over several 200 ms windows.
    const leadId = one.metadata.leadId;
    const expected: Lead[] = Array.from({ length: 25 }, () => one);
    for (let round = 0; round < 10 && retries.length === 0; round++) {
      const reads: Lead[] = await Promise.all(Array.from({ length: 25 }, () => burst.leads.get(leadId)));
      assert.deepEqual(reads, expected);
    }
    assert.ok(retries.length > 0, 'no call was refused');
    for (const retry of retries) {
      assert.deepEqual(
        { method: retry.method, url: retry.url, status: retry.status, delayMs: retry.delayMs },
        { method: 'GET', url: `${fixture.server.base}/seeker-leads/v1/leads/${leadId}`, status: 429, delayMs: 1000 },
      );
    }
  });

  it('throws the 429 as a ProblemError with its Retry-After when retries are off', async () => {
    const burst = clientOf(fixture, 'agency-burst', { retry: false });
    const refused: unknown[] = [];
    for (let round = 0; round < 10 && refused.length === 0; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: 25 }, () =>
          burst.leads.subscriptions.create({ url: 'https://crm.example.org/burst', apiKey: 'a-long-random-key-burst-0123' }),
        ),
      );
      refused.push(...results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])));
    }
    assert.ok(refused.length > 0, 'no call was refused');
    for (const error of refused) {
      assert.ok(error instanceof ProblemError);
      assert.match(error.instance ?? '', TRACEPARENT);
      assert.deepEqual(error.problem, {
        type: '/problems/too-many-requests',
        title: 'Too many requests',
        status: 429,
        detail: 'At most 10 requests per 200 ms are allowed for this caller; retry later',
        instance: error.instance,
      });
      assert.equal(error.retryAfterMs, 1000);
    }
  });
});
