/*
 * Issue 23, item 5: a receiver answering 410 on a backlog ends its subscriptions, without a
 * deadlock. One agency's lead webhook subscription and its classifieds' status webhook point at
 * one receiver, down (503) for 15 s while 20 leads and 20 classifieds a second come in, so both
 * pile up deliveries that retry every half second; then it answers 410 to everything. Every
 * in-flight attempt's outcome then ends the same subscription and cancels the same pending
 * deliveries at once, while renewals, claims and new deliveries run beside them: the
 * transactions the lock order of platform/db/locks.ts is there for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { Receiver } from '../fixtures/receiver.js';
import { retryingConflicts } from '../../src/platform/db/locks.js';
import { inTransaction } from '../../src/platform/db/pool.js';
import {
  CapturedLogs,
  USER_AGENT,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';

const LEADS = '/seeker-leads/v1';
const CAAS = '/caas/v4';
const AGENCY = 'agency-gone';
const DOWN_MS = 15_000;
const PER_SECOND = 20;

/** Every half second, for far longer than the test: the backlog stays pending until the 410. */
const RETRIES = Array.from({ length: 120 }, () => '0.5').join(',');

let mode: 'down' | 'gone' = 'down';
let receiver: Receiver;
let database: TestDatabase;
let server: TestServer;
const logs = new CapturedLogs();

before(async () => {
  receiver = await Receiver.start({ otherwise: () => (mode === 'down' ? 503 : 410) });
  database = await createTestDatabase();
  server = await startTestServer(database, {
    worker: true,
    logTo: logs.stream,
    env: { LOG_LEVEL: 'warn', ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: RETRIES, SHUTDOWN_GRACE_SECONDS: '0' },
  });
});

after(async () => {
  receiver.closeConnections();
  await server?.close();
  await database?.drop();
  await receiver.close();
});

/** Calls `send` PER_SECOND times a second until `until` resolves true, at most 8 at once; each answer is checked by `send`. */
async function produce(send: (n: number) => Promise<void>, stopped: () => boolean): Promise<number> {
  let n = 0;
  let running = 0;
  const pending = new Set<Promise<void>>();
  const started = Date.now();
  while (!stopped()) {
    if (running < 8) {
      running += 1;
      const call = send(n++).finally(() => {
        running -= 1;
        pending.delete(call);
      });
      pending.add(call);
    }
    const next = started + (n * 1000) / PER_SECOND;
    await sleep(Math.max(0, next - Date.now()));
  }
  await Promise.all(pending);
  return n;
}

function deadlockLines(): Record<string, unknown>[] {
  return logs.lines.filter((line) => JSON.stringify(line).includes('deadlock detected'));
}

describe('a receiver answering 410 on a backlog', () => {
  it('ends both subscriptions within 30 s, gets nothing after, and no transaction deadlocks', async (t) => {
    const client = await makeClient(server.pool, [AGENCY], ['leads:*', 'caas:*']);
    const leadsToken = await getToken(server, client, { root: LEADS, intermediary: AGENCY });
    const caasToken = await getToken(server, client, { root: CAAS, intermediary: AGENCY });

    const created = await http('POST', `${server.base}${LEADS}/webhook/subscriptions`, {
      headers: { authorization: `Bearer ${leadsToken}` },
      body: { url: `${receiver.base}/leads`, apiKey: 'key-of-the-agency-0123456789', status: 'ACTIVE' },
    });
    assert.equal(created.status, 201, created.text);
    const subscription = created.body as { subscriptionId: string; url: string; status: string; createdAt: string; updatedAt: string };
    const put = await http('PUT', `${server.base}${CAAS}/webhooks`, {
      headers: { authorization: `Bearer ${caasToken}`, 'user-agent': USER_AGENT },
      body: { url: `${receiver.base}/caas`, secret: 'a-status-webhook-secret-0123456789' },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body, 'success');

    let producing = true;
    const leads = produce(
      async (n) => {
        const result = await http('POST', `${server.base}${LEADS}/leads`, {
          headers: { authorization: `Bearer ${leadsToken}` },
          body: leadRequest({ lastName: `backlog-${n}` }),
        });
        assert.equal(result.status, 200, result.text);
      },
      () => !producing,
    );
    const classifieds = produce(
      async (n) => {
        const body = minimalClassified();
        body.data.metaData.source.offererEstateId = `backlog-${n}`;
        const result = await http('POST', `${server.base}${CAAS}/classifieds`, {
          headers: { authorization: `Bearer ${caasToken}`, 'user-agent': USER_AGENT },
          body,
        });
        assert.equal(result.status, 202, result.text);
      },
      () => !producing,
    );

    await sleep(DOWN_MS);
    const { rows: backlog } = await server.pool.query<{ source: string; n: number }>(
      "SELECT source, count(*)::int AS n FROM webhook_deliveries WHERE state = 'PENDING' GROUP BY source ORDER BY source",
    );
    mode = 'gone';
    const gone = Date.now();
    producing = false;
    const [leadCount, classifiedCount] = await Promise.all([leads, classifieds]);

    // Ended: the lead subscription INACTIVE, the status webhook's subscription removed.
    const ended = async () => {
      const list = await http('GET', `${server.base}${LEADS}/webhook/subscriptions`, {
        headers: { authorization: `Bearer ${leadsToken}` },
      });
      assert.equal(list.status, 200, list.text);
      const { items } = list.body as { items: (typeof subscription)[] };
      assert.equal(items.length, 1, list.text);
      const { rows } = await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM caas_webhook_subscriptions');
      return { lead: items[0] as typeof subscription, caas: rows[0]?.n ?? -1 };
    };
    let state = await ended();
    while ((state.lead.status !== 'INACTIVE' || state.caas !== 0) && Date.now() - gone < 30_000) {
      await sleep(100);
      state = await ended();
    }
    const endedAfterMs = Date.now() - gone;
    assert.deepEqual(state.lead, { ...subscription, status: 'INACTIVE', updatedAt: state.lead.updatedAt });
    assert.equal(state.caas, 0, 'the status webhook subscription is removed');

    // What was in flight at the end has answered within a second; nothing is attempted after it.
    await sleep(1_000);
    const settled = receiver.received.length;
    await sleep(3_000);
    assert.equal(receiver.received.length, settled, 'no attempt after the subscriptions ended');
    const { rows: left } = await server.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'PENDING'",
    );
    assert.deepEqual(left, [{ n: 0 }]);
    const { rows: interrupted } = await server.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_attempts WHERE error LIKE 'interrupted%'",
    );

    t.diagnostic(
      `${leadCount} leads, ${classifiedCount} classifieds in ${DOWN_MS / 1000} s; pending at the switch: ${JSON.stringify(backlog)}; ` +
        `ended ${endedAfterMs} ms after the first 410; ${receiver.received.length} requests in all; ` +
        `${deadlockLines().length} deadlocks logged; ${interrupted[0]?.n} attempts interrupted`,
    );
    assert.deepEqual(deadlockLines(), []);
    assert.deepEqual(interrupted, [{ n: 0 }]);
  });
});

describe('a deadlock that still happens', () => {
  it('is retried whole after a jittered pause: both transactions commit, the loser at its second try', async () => {
    await server.pool.query('CREATE TABLE deadlock_probe (id integer PRIMARY KEY, n integer NOT NULL)');
    await server.pool.query('INSERT INTO deadlock_probe VALUES (1, 0), (2, 0)');
    // Each holds its first row until the other holds its own: then each wants the other's, once.
    let holding = 0;
    const bothHold = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (holding === 2) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const retried: string[] = [];
    const crossing = (first: number, second: number) =>
      retryingConflicts(
        () =>
          inTransaction(server.pool, async (client) => {
            await client.query('UPDATE deadlock_probe SET n = n + 1 WHERE id = $1', [first]);
            holding += 1;
            await bothHold;
            await client.query('UPDATE deadlock_probe SET n = n + 1 WHERE id = $1', [second]);
          }),
        { onRetry: (error) => retried.push((error as { code: string }).code) },
      );
    await Promise.all([crossing(1, 2), crossing(2, 1)]);
    assert.deepEqual(retried, ['40P01']);
    const { rows } = await server.pool.query('SELECT id, n FROM deadlock_probe ORDER BY id');
    assert.deepEqual(rows, [
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
