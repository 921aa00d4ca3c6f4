/*
 * The request pool, all of it taken: two tables locked from outside, a lead and a classified
 * waiting on them hold both connections of a pool of two (each API's share is one), and a third
 * request, of another API, finds the pool taken: 503 at its checkout deadline, and /ready says the
 * pool is exhausted (within a second, on the probe's own connection). The two waiting requests
 * outlive the connection's idle timeout and are answered all the same once the lock goes: the idle
 * clock stops while a request is handled.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import pg from 'pg';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { assertProblem, http, tokensOfEachApi, useServer, waitFor } from '../helpers.js';

const IDLE_SECONDS = 1;
const fixture = useServer({
  env: {
    DATABASE_POOL_SIZE: '2',
    DATABASE_CHECKOUT_TIMEOUT_MS: '1000',
    DATABASE_LOCK_TIMEOUT_MS: '4000',
    HTTP_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
  },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'clim:*', 'leads:*'] },
});

const tokens: Record<string, string> = {};

before(async () => {
  await fixture.ready();
  Object.assign(tokens, await tokensOfEachApi(fixture.server, fixture.client, 'agency-1'));
});

describe('a request pool all of whose connections wait on a lock', () => {
  it('answers another API 503 at its checkout deadline, says so at /ready, and answers the waiting requests past the idle timeout', async () => {
    const base = fixture.server.base;
    // Ready before: the probe's connection is its own.
    assert.equal((await http('GET', `${base}/ready`)).status, 200);
    const holder = new pg.Client({ connectionString: fixture.database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE leads, classifieds IN ACCESS EXCLUSIVE MODE');
    const body = minimalClassified();
    body.data.metaData.source.offererEstateId = 'POOL-1';
    const lead = http('POST', `${base}/seeker-leads/v1/leads`, {
      headers: { authorization: `Bearer ${tokens.leads}` },
      body: leadRequest(),
    });
    const classified = http('POST', `${base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${tokens.caas}` }, body });
    // Both have their connection and wait on the lock.
    await sleep(500);
    const started = performance.now();
    const listing = await http('GET', `${base}/import-listings/v1/listings/L-1`, { headers: { authorization: `Bearer ${tokens.clim}` } });
    const waitedMs = performance.now() - started;
    assertProblem(listing, 503, 'Service unavailable', 'The server is busy: no database connection became free in time; retry later');
    assert.equal(listing.headers.get('retry-after'), '1');
    // The checkout's deadline is 1 s; the bound leaves room for a busy machine.
    assert.ok(waitedMs >= 900 && waitedMs < 2_500, `refused after ${Math.round(waitedMs)} ms`);
    const readyStarted = performance.now();
    const ready = await http('GET', `${base}/ready`);
    assert.ok(performance.now() - readyStarted < 1_000);
    assertProblem(
      ready,
      503,
      'Service unavailable',
      'The request pool is exhausted: every connection is in use and requests found none free in time (DATABASE_POOL_SIZE)',
    );
    // Held past the connections' idle timeout (1 s) by now: their sockets stay open while handled.
    await sleep(1_000);
    await holder.query('ROLLBACK');
    await holder.end();
    assert.equal((await lead).status, 200);
    assert.equal((await classified).status, 202);
    await waitFor(
      '/ready to answer 200 again',
      async () => (await http('GET', `${base}/ready`)).status,
      (status) => status === 200,
      100,
      100,
    );
  });
});
