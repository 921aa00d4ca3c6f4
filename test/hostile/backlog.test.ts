/*
 * The backlog bounds: an agency's unfinished work in each stream, webhook deliveries not yet
 * delivered and classifieds waiting to be processed, is bounded in all (MAX_BACKLOG_PER_AGENCY)
 * and in what waits for a worker, due and not taken (MAX_WAITING_PER_AGENCY); a write that
 * would add to a stream past a bound is refused with 429 and Retry-After, nothing of it written;
 * another agency writes on. No worker runs here, so nothing leaves the queues. Paired with their
 * mutation check: the same writes with the bounds switched off all go through.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import pg from 'pg';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { assertProblem, http, type ServerFixture, useServer } from '../helpers.js';

const BOUND = 5;
const SERVER_ENV = { ALLOW_PRIVATE_TARGETS: 'true' };
const CLIENT = { intermediaries: ['agency-1', 'agency-2', 'agency-3'], scopes: ['caas:*', 'leads:*'] };
const WAITING = 3;
const bounded = useServer({ env: { ...SERVER_ENV, MAX_BACKLOG_PER_AGENCY: String(BOUND) }, client: CLIENT });
const waitBounded = useServer({ env: { ...SERVER_ENV, MAX_WAITING_PER_AGENCY: String(WAITING) }, client: CLIENT });
const unbounded = useServer({ env: { ...SERVER_ENV, MAX_BACKLOG_PER_AGENCY: '0', MAX_WAITING_PER_AGENCY: '0' }, client: CLIENT });

before(async () => {
  await bounded.ready();
  await waitBounded.ready();
  await unbounded.ready();
});

/** The count is read at most once a second per process: a write after that sees the writes before it. */
const countAgain = () => sleep(1_100);

async function caller(fixture: ServerFixture, agency: string) {
  const leads = await fixture.token({ root: '/seeker-leads/v1', intermediary: agency });
  const caas = await fixture.token({ root: '/caas/v4', intermediary: agency });
  const base = fixture.server.base;
  let n = 0;
  return {
    subscribe: () =>
      http('POST', `${base}/seeker-leads/v1/webhook/subscriptions`, {
        headers: { authorization: `Bearer ${leads}` },
        body: { url: 'http://127.0.0.1:9/leads', apiKey: 'backlog-test-api-key' },
      }),
    lead: (lastName: string) =>
      http('POST', `${base}/seeker-leads/v1/leads`, { headers: { authorization: `Bearer ${leads}` }, body: leadRequest({ lastName }) }),
    classified: () => {
      const body = minimalClassified();
      body.data.metaData.source.offererEstateId = `BACKLOG-${agency}-${++n}`;
      return http('POST', `${base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${caas}` }, body });
    },
  };
}

async function storedLeads(fixture: ServerFixture, prefix: string): Promise<number> {
  const client = new pg.Client({ connectionString: fixture.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM leads WHERE last_name LIKE $1', [`${prefix}%`]);
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describe('the backlog bound of an agency', () => {
  it('refuses a lead once the agency has the most webhook deliveries waiting, writes nothing of it, and lets another agency write', async () => {
    const one = await caller(bounded, 'agency-1');
    assert.equal((await one.subscribe()).status, 201);
    for (let i = 1; i <= BOUND; i += 1) assert.equal((await one.lead(`Backlog-${i}`)).status, 200);
    await countAgain();
    const refused = await one.lead('Backlog-refused');
    assertProblem(
      refused,
      429,
      'Too many requests',
      `This agency has ${BOUND} webhook deliveries not yet delivered, the most this server keeps; retry once some are done`,
    );
    assert.equal(refused.headers.get('retry-after'), '10');
    assert.equal(await storedLeads(bounded, 'Backlog-'), BOUND);
    // Another agency's backlog is its own.
    const two = await caller(bounded, 'agency-2');
    assert.equal((await two.subscribe()).status, 201);
    assert.equal((await two.lead('Other-1')).status, 200);
  });

  it('refuses a classified once the agency has the most classifieds waiting to be processed', async () => {
    const two = await caller(bounded, 'agency-2');
    // agency-2's deliveries: one lead above; its classifieds: none yet.
    for (let i = 1; i <= BOUND; i += 1) assert.equal((await two.classified()).status, 202);
    await countAgain();
    const refused = await two.classified();
    assertProblem(
      refused,
      429,
      'Too many requests',
      `This agency has ${BOUND} classifieds waiting to be processed, the most this server keeps; retry once some are done`,
    );
    assert.equal(refused.headers.get('retry-after'), '10');
  });

  it('refuses a write once the agency has the most items waiting for a worker, and lets another agency write', async () => {
    const one = await caller(waitBounded, 'agency-1');
    assert.equal((await one.subscribe()).status, 201);
    for (let i = 1; i <= WAITING; i += 1) assert.equal((await one.lead(`Waiting-${i}`)).status, 200);
    await countAgain();
    const lead = await one.lead('Waiting-refused');
    assertProblem(
      lead,
      429,
      'Too many requests',
      `This agency has ${WAITING} webhook deliveries waiting to be sent, the most this server lets wait; retry in 2 s`,
    );
    assert.equal(lead.headers.get('retry-after'), '2');
    assert.equal(await storedLeads(waitBounded, 'Waiting-'), WAITING);
    // A classified adds to its processing, then to its status webhooks: agency-1's refuse it now.
    assert.equal((await one.classified()).status, 429);
    const two = await caller(waitBounded, 'agency-2');
    for (let i = 1; i <= WAITING; i += 1) assert.equal((await two.classified()).status, 202);
    await countAgain();
    const classified = await two.classified();
    assertProblem(
      classified,
      429,
      'Too many requests',
      `This agency has ${WAITING} classifieds waiting to be processed, the most this server lets wait; retry in 2 s`,
    );
    const three = await caller(waitBounded, 'agency-3');
    assert.equal((await three.classified()).status, 202);
  });

  it('switched off (0): the same writes all go through', async () => {
    const one = await caller(unbounded, 'agency-1');
    assert.equal((await one.subscribe()).status, 201);
    for (let i = 1; i <= BOUND; i += 1) assert.equal((await one.lead(`Unbounded-${i}`)).status, 200);
    await countAgain();
    assert.equal((await one.lead('Unbounded-more')).status, 200);
    for (let i = 1; i <= BOUND; i += 1) assert.equal((await one.classified()).status, 202);
    await countAgain();
    assert.equal((await one.classified()).status, 202);
  });
});
