/*
 * Idempotency-Key from the client: every POST carries one (generated, or the caller's), the same
 * on each retry, so a POST whose answer a proxy dropped after immogate processed it is retried
 * and creates exactly one object; the call resolves with the object.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useServer } from '../../../test/helpers.js';
import type { ImmogateClient, RetryInfo } from '../src/index.js';
import { ScriptedProxy } from './fixtures/proxy.js';
import { clientOf, rental } from './helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'leads:*'] } });
const CLASSIFIEDS = '/caas/v4/classifieds';
const LEADS = '/seeker-leads/v1/leads';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let counter = 0;

before(() => fixture.ready());

async function throughProxy(): Promise<{ proxy: ScriptedProxy; client: ImmogateClient; retries: RetryInfo[] }> {
  const proxy = await ScriptedProxy.start(fixture.server.base);
  const retries: RetryInfo[] = [];
  const client = clientOf(fixture, 'agency-1', {
    apis: {
      classifieds: { baseUrl: `${proxy.base}/caas/v4`, audience: `${fixture.server.base}/caas/v4` },
      leads: { baseUrl: `${proxy.base}/seeker-leads/v1`, audience: `${fixture.server.base}/seeker-leads/v1` },
    },
    retry: { baseDelayMs: 10, onRetry: (info) => retries.push(info) },
  });
  return { proxy, client, retries };
}

async function count(query: string, values: unknown[]): Promise<number> {
  const { rows } = await fixture.server.pool.query<{ n: number }>(query, values);
  return rows[0]?.n ?? 0;
}

function leadOf(firstName: string, message: string) {
  return {
    firstName,
    lastName: 'Schmidt',
    email: 'lead@example.org',
    phoneNumbers: [{ type: 'MOBILE' as const, number: '+49 151 2345678' }],
    message,
    classifiedId: '12ABCDEFGHJK',
    submittedDate: '2026-11-22T08:00:00Z',
  };
}

function keysSent(proxy: ScriptedProxy, path: string): (string | string[] | undefined)[] {
  return proxy.requests('POST', path).map((request) => request.headers['idempotency-key']);
}

describe('Idempotency-Key', () => {
  it('retries a POST /classifieds whose answers were dropped with one generated key: one classified, and its acknowledgement', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('POST', CLASSIFIEDS, 'drop-answer', 'drop-answer');
      const estate = `IDEM-${++counter}`;
      const { classifiedId } = await client.classifieds.create(rental(estate));
      const keys = keysSent(proxy, CLASSIFIEDS);
      assert.equal(keys.length, 3);
      assert.match(String(keys[0]), UUID);
      assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
      assert.deepEqual(
        retries.map(({ attempt, status }) => ({ attempt, status })),
        [
          { attempt: 1, status: undefined },
          { attempt: 2, status: undefined },
        ],
      );
      const { rows } = await fixture.server.pool.query('SELECT id FROM classifieds WHERE offerer_estate_id = $1', [estate]);
      assert.deepEqual(rows, [{ id: classifiedId }]);
    } finally {
      await proxy.close();
    }
  });

  it('retries a POST /leads whose answer was dropped: one lead; another call gets another key', async () => {
    const { proxy, client } = await throughProxy();
    try {
      proxy.script('POST', LEADS, 'drop-answer');
      const message = `Idempotent lead ${++counter}`;
      const lead = leadOf('Anna', message);
      const before = await count('SELECT count(*)::int AS n FROM leads', []);
      const submitted = await client.leads.create(lead);
      assert.equal(submitted.title, 'Lead submitted');
      assert.equal(await count('SELECT count(*)::int AS n FROM leads', []), before + 1);
      await client.leads.create(lead);
      assert.equal(await count('SELECT count(*)::int AS n FROM leads', []), before + 2);
      const keys = keysSent(proxy, LEADS);
      assert.equal(keys.length, 3);
      assert.equal(keys[0], keys[1]);
      assert.notEqual(keys[2], keys[0]);
    } finally {
      await proxy.close();
    }
  });

  it('waits out a 409 with Retry-After (the first attempt with the key still runs) and retries with the same key', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      const inUse = { type: '/problems/idempotency-key-in-use', title: 'Conflict', status: 409, detail: 'still running' };
      proxy.script('POST', LEADS, { status: 409, headers: { 'retry-after': '1' }, body: inUse });
      const before = await count('SELECT count(*)::int AS n FROM leads', []);
      const submitted = await client.leads.create(leadOf('Cleo', `In flight ${++counter}`));
      assert.equal(submitted.title, 'Lead submitted');
      assert.deepEqual(
        retries.map(({ attempt, status, delayMs }) => ({ attempt, status, delayMs })),
        [{ attempt: 1, status: 409, delayMs: 1000 }],
      );
      const keys = keysSent(proxy, LEADS);
      assert.deepEqual(keys, [keys[0], keys[0]]);
      assert.equal(await count('SELECT count(*)::int AS n FROM leads', []), before + 1);
    } finally {
      await proxy.close();
    }
  });

  it("sends the caller's own key: the same key again gets the first answer, nothing written twice", async () => {
    const { proxy, client } = await throughProxy();
    try {
      const lead = leadOf('Ben', `Own key ${++counter}`);
      const before = await count('SELECT count(*)::int AS n FROM leads', []);
      const idempotencyKey = `crm-lead-${counter}`;
      const first = await client.leads.create(lead, { idempotencyKey });
      const again = await client.leads.create(lead, { idempotencyKey });
      assert.deepEqual(again, first);
      assert.deepEqual(keysSent(proxy, LEADS), [idempotencyKey, idempotencyKey]);
      assert.equal(await count('SELECT count(*)::int AS n FROM leads', []), before + 1);
    } finally {
      await proxy.close();
    }
  });
});
