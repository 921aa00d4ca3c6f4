/*
 * One agency's hanging receiver, or slow media host, delays only that agency: what another agency
 * sees meanwhile, measured from outside (its lead webhooks, its classified's processing), against
 * the bounds of issue 22: B's lead webhook within 1 s (p99 over 100 leads) while A's receiver
 * hangs on 200 leads; B's classified terminal within 2 s while 400 of A's wait on a 3-second
 * media host.
 *
 * Each share is also shown to be what holds the bound: the same scenario with that one limit
 * switched off (set as large as the worker's slots) fails it. A's receivers count what reaches
 * them at once, which is the share itself.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { InFlight, Receiver } from '../fixtures/receiver.js';
import {
  USER_AGENT,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type TestClient,
  type TestServer,
} from '../helpers.js';

const LEADS = '/seeker-leads/v1';
const CAAS = '/caas/v4';
/** What a worker has: every share switched off is this large. */
const SLOTS = '64';

interface Scene {
  server: TestServer;
  clients: TestClient[];
  close(): Promise<void>;
}

const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

async function receiver(
  answer: 'hang' | number | { status: number; headers?: Record<string, string>; delayMs?: number },
  tally?: InFlight,
): Promise<Receiver> {
  const started = await Receiver.start({ otherwise: () => answer, tally });
  receivers.push(started);
  return started;
}

/**
 * immogate with a worker on a database of its own, the shares of `env`, and `callers` clients of
 * the agencies (each client is a caller of its own for the lead API's rate limits).
 */
async function scene(env: Record<string, string>, agencies: string[], callers = 1): Promise<Scene> {
  const database = await createTestDatabase();
  const server = await startTestServer(database, {
    worker: true,
    // No grace on stop: the attempts left hanging are cut at once rather than waited for.
    env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CONCURRENCY: SLOTS, WORKER_CONCURRENCY: SLOTS, SHUTDOWN_GRACE_SECONDS: '0', ...env },
  });
  const clients: TestClient[] = [];
  for (let i = 0; i < callers; i++) clients.push(await makeClient(server.pool, agencies, ['leads:*', 'caas:*']));
  return {
    server,
    clients,
    async close() {
      // Hanging calls are cut first, so the worker's stop need not wait its grace period for them.
      for (const started of receivers) started.closeConnections();
      await server.close();
      await database.drop();
    },
  };
}

const tokens = new Map<string, Promise<string>>();
function tokenOf(scene: Scene, root: string, agency: string, caller = 0): Promise<string> {
  const key = `${scene.server.base}|${root}|${agency}|${caller}`;
  let token = tokens.get(key);
  if (token === undefined) {
    token = getToken(scene.server, scene.clients[caller] ?? scene.clients[0]!, { root, intermediary: agency });
    tokens.set(key, token);
  }
  return token;
}

async function subscribe(scene: Scene, agency: string, url: string): Promise<void> {
  const result = await http('POST', `${scene.server.base}${LEADS}/webhook/subscriptions`, {
    headers: { authorization: `Bearer ${await tokenOf(scene, LEADS, agency)}` },
    body: { url, apiKey: `key-of-${agency}-0123456789`, status: 'ACTIVE' },
  });
  assert.equal(result.status, 201, result.text);
}

/** POSTs a lead of `agency` named `lastName`; resolves to when its 200 came. */
async function postLead(scene: Scene, agency: string, lastName: string, caller = 0): Promise<number> {
  const result = await http('POST', `${scene.server.base}${LEADS}/leads`, {
    headers: { authorization: `Bearer ${await tokenOf(scene, LEADS, agency, caller)}` },
    body: leadRequest({ lastName }),
  });
  assert.equal(result.status, 200, result.text);
  return Date.now();
}

/** `count` leads of `agency`, spread over the scene's callers, `perCaller` at once each. */
async function flood(scene: Scene, agency: string, count: number, perCaller = 5): Promise<void> {
  const lanes = scene.clients.length * perCaller;
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (next < count) {
        const n = next++;
        await postLead(scene, agency, `flood-${agency}-${n}`, lane % scene.clients.length);
      }
    }),
  );
}

/** Milliseconds from each of `agency`'s leads answered to its webhook at `at`, `count` leads one every `everyMs`. */
async function leadLatencies(
  scene: Scene,
  agency: string,
  at: Receiver,
  count: number,
  everyMs: number,
  waitMs: number,
): Promise<number[]> {
  const answered = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const name = `probe-${agency}-${i}`;
    answered.set(name, await postLead(scene, agency, name));
    await sleep(everyMs);
  }
  const arrivals = () =>
    new Map(
      at.received
        .map((request) => [JSON.parse(request.body).contactRequest.lastName as string, request.at] as const)
        .filter(([name]) => answered.has(name)),
    );
  const until = Date.now() + waitMs;
  while (arrivals().size < count && Date.now() < until) await sleep(20);
  const arrived = arrivals();
  return [...answered].map(([name, sent]) => (arrived.has(name) ? (arrived.get(name) ?? 0) - sent : Number.POSITIVE_INFINITY));
}

/** The p-th percentile (nearest rank) of `values`. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * B's lead webhooks, to a receiver that answers at once, while `inFlight` counts A's attempts at its
 * hanging receivers: with every share on, A holds `held` attempts and B's p99 is within 1 s; with
 * one share off (`off`), A holds every slot and B's p99 is beyond it. B sends `probes` leads.
 */
async function besideHanging(
  t: { diagnostic(message: string): void },
  s: Scene,
  inFlight: InFlight,
  fast: Receiver,
  expected: { held: number; off: boolean; probes: number },
): Promise<void> {
  await waitFor(
    'A’s attempts under way',
    async () => inFlight.now,
    (n) => n === (expected.off ? Number(SLOTS) : expected.held),
  );
  const latencies = await leadLatencies(s, 'agency-b', fast, expected.off ? 10 : expected.probes, 20, expected.off ? 2_000 : 5_000);
  const p99 = percentile(latencies, 99);
  t.diagnostic(`B's lead webhooks: p50 ${percentile(latencies, 50)} ms, p99 ${p99} ms; A's attempts at once: at most ${inFlight.max}`);
  if (expected.off) assert.ok(p99 > 1_000, `B's p99 was ${p99} ms`);
  else {
    assert.ok(p99 <= 1_000, `B's p99 was ${p99} ms (${JSON.stringify(latencies)})`);
    assert.equal(inFlight.max, expected.held);
  }
}

const SHARES_OFF = {
  WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: SLOTS,
  WEBHOOK_CONCURRENCY_PER_AGENCY: SLOTS,
  WEBHOOK_CONCURRENCY_PER_AGENCY_HOST: SLOTS,
  WEBHOOK_CONCURRENCY_PER_HOST: SLOTS,
};

describe('a hanging receiver holds only its share of the webhook attempts', () => {
  for (const [name, off] of [
    ['B gets its 100 lead webhooks within 1 s (p99) while A hangs on 200 leads, A holding at most 8 attempts', undefined],
    ['without the share per subscription, A’s 200 take every slot and B waits for their timeouts', SHARES_OFF],
  ] as const) {
    it(name, async (t) => {
      const hanging = await receiver('hang');
      const fast = await receiver(204);
      const s = await scene(off ?? {}, ['agency-a', 'agency-b'], 4);
      try {
        await subscribe(s, 'agency-a', `${hanging.base}/a`);
        await subscribe(s, 'agency-b', `${fast.base}/b`);
        await flood(s, 'agency-a', 200);
        await besideHanging(t, s, hanging.inFlight, fast, { held: 8, off: off !== undefined, probes: 100 });
      } finally {
        await s.close();
      }
    });
  }

  for (const [name, cap] of [
    ['its share per agency holds A to 16 attempts', undefined],
    ['without the share per agency, its subscriptions take every slot', SLOTS],
  ] as const) {
    it(`A with 8 subscriptions to 8 hanging receivers: ${name}`, async (t) => {
      const tally = new InFlight();
      const hanging = await Promise.all(Array.from({ length: 8 }, () => receiver('hang', tally)));
      const fast = await receiver(204);
      const s = await scene(cap === undefined ? {} : { WEBHOOK_CONCURRENCY_PER_AGENCY: cap }, ['agency-a', 'agency-b'], 2);
      try {
        for (const [i, at] of hanging.entries()) await subscribe(s, 'agency-a', `${at.base}/a${i}`);
        await subscribe(s, 'agency-b', `${fast.base}/b`);
        await flood(s, 'agency-a', 25);
        await besideHanging(t, s, tally, fast, { held: 16, off: cap !== undefined, probes: 10 });
      } finally {
        await s.close();
      }
    });
  }

  for (const [name, cap] of [
    ['its share of the host holds A to 8 attempts there, and B’s webhooks go through', undefined],
    ['without it (the host’s whole share for each agency), A takes every attempt the host gets and B waits', '16'],
  ] as const) {
    it(`A’s two subscriptions hang on the host B’s receiver shares: ${name}`, async (t) => {
      // One host for both: its paths of A never answer, B's at once.
      const tally = new InFlight();
      const shared = await Receiver.start({ otherwise: (path) => (path.startsWith('/a') ? 'hang' : 204), tally });
      receivers.push(shared);
      // The host gets 16 attempts at once, an agency 8 of them; switched off, an agency all 16.
      const s = await scene(cap === undefined ? {} : { WEBHOOK_CONCURRENCY_PER_AGENCY_HOST: cap }, ['agency-a', 'agency-b'], 2);
      try {
        await subscribe(s, 'agency-a', `${shared.base}/a/1`);
        await subscribe(s, 'agency-a', `${shared.base}/a/2`);
        await subscribe(s, 'agency-b', `${shared.base}/b`);
        await flood(s, 'agency-a', 30);
        const expectedHeld = cap === undefined ? 8 : 16;
        await waitFor(
          'A’s attempts under way',
          async () => tally.now,
          (n) => n === expectedHeld,
        );
        const latencies = await leadLatencies(s, 'agency-b', shared, 10, 20, cap === undefined ? 5_000 : 2_000);
        const p99 = percentile(latencies, 99);
        t.diagnostic(`B's lead webhooks: p50 ${percentile(latencies, 50)} ms, p99 ${p99} ms; A's attempts at once: at most ${tally.max}`);
        if (cap === undefined) {
          assert.ok(p99 <= 1_000, `B's p99 was ${p99} ms (${JSON.stringify(latencies)})`);
          // A's attempts all hang (none has timed out yet, 10 s): each one received is one still held.
          assert.equal(shared.received.filter((request) => request.path.startsWith('/a')).length, 8);
        } else assert.ok(p99 > 1_000, `B's p99 was ${p99} ms`);
      } finally {
        await s.close();
      }
    });
  }

  for (const [name, cap] of [
    ['its share per host holds them to 16 attempts', undefined],
    ['without the share per host (nor an agency’s part of it), they take every slot', SLOTS],
  ] as const) {
    it(`4 agencies with 2 subscriptions each to one hanging host: ${name}`, async (t) => {
      const hanging = await receiver('hang');
      const fast = await receiver(204);
      const agencies = ['agency-a1', 'agency-a2', 'agency-a3', 'agency-a4'];
      const s = await scene(
        cap === undefined ? {} : { WEBHOOK_CONCURRENCY_PER_HOST: cap, WEBHOOK_CONCURRENCY_PER_AGENCY_HOST: cap },
        [...agencies, 'agency-b'],
        1,
      );
      try {
        for (const agency of agencies) {
          await subscribe(s, agency, `${hanging.base}/${agency}/1`);
          await subscribe(s, agency, `${hanging.base}/${agency}/2`);
        }
        await subscribe(s, 'agency-b', `${fast.base}/b`);
        for (const agency of agencies) await flood(s, agency, 12);
        await besideHanging(t, s, hanging.inFlight, fast, { held: 16, off: cap !== undefined, probes: 10 });
      } finally {
        await s.close();
      }
    });
  }
});

// ---- processing ----

const TERMINAL = new Set(['CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED']);

/** A classified of `agency` that BUCOM accepts, whose one picture is `pictureUrl`; answers its id once the 202 came. */
async function postClassified(s: Scene, agency: string, pictureUrl: string, n: number): Promise<string> {
  const body = minimalClassified();
  body.media = [{ url: pictureUrl, mediaType: 'PICTURE' }];
  body.data.metaData.source.offererEstateId = `${agency}-${n}`;
  const result = await http('POST', `${s.server.base}${CAAS}/classifieds`, {
    headers: { authorization: `Bearer ${await tokenOf(s, CAAS, agency)}`, 'user-agent': USER_AGENT },
    body,
  });
  assert.equal(result.status, 202, result.text);
  return (result.body as { classifiedId: string }).classifiedId;
}

async function postMany(s: Scene, agency: string, count: number, url: (n: number) => string): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const n = next++;
        await postClassified(s, agency, url(n), n);
      }
    }),
  );
}

/** Milliseconds from B's classified acknowledged to its terminal status (Infinity if not within `waitMs`). */
async function timeToTerminal(s: Scene, agency: string, pictureUrl: string, waitMs: number): Promise<number> {
  const id = await postClassified(s, agency, pictureUrl, 0);
  const acknowledged = Date.now();
  const token = await tokenOf(s, CAAS, agency);
  while (Date.now() - acknowledged < waitMs) {
    const result = await http('GET', `${s.server.base}${CAAS}/classifieds/${id}/statuses?filter=latest`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(result.status, 200, result.text);
    const items = (result.body as { items: { status: string }[] }).items;
    if (items.some((item) => TERMINAL.has(item.status))) return Date.now() - acknowledged;
    await sleep(25);
  }
  return Number.POSITIVE_INFINITY;
}

const JPEG = { status: 200, headers: { 'content-type': 'image/jpeg' } };

describe('a slow media host holds only its agency’s share of the processing', () => {
  for (const [name, cap] of [
    ['B’s classified is terminal within 2 s while 400 of A’s wait on a 3-second media host, A holding 16 classifieds', undefined],
    ['without the share per agency, B’s waits until A’s downloads free a slot', SLOTS],
  ] as const) {
    it(name, async (t) => {
      const slow = await receiver({ ...JPEG, delayMs: 3_000 });
      const fast = await receiver(JPEG);
      const s = await scene(cap === undefined ? {} : { WORKER_CONCURRENCY_PER_AGENCY: cap, MEDIA_DOWNLOADS_PER_HOST: '1000' }, [
        'agency-a',
        'agency-b',
      ]);
      try {
        // B comes as soon as A's first downloads are under way, A still posting the rest of its 400.
        const posting = postMany(s, 'agency-a', 400, (n) => `${slow.base}/a/${n}.jpg`);
        await waitFor(
          'A’s downloads under way',
          async () => slow.inFlight.now,
          (n) => n === (cap === undefined ? 16 : 64),
        );
        const elapsed = await timeToTerminal(s, 'agency-b', `${fast.base}/b.jpg`, 5_000);
        const terminalAt = Date.now();
        t.diagnostic(`B's classified terminal after ${elapsed} ms; A's downloads at once: at most ${slow.inFlight.max}`);
        await posting;
        if (cap === undefined) {
          assert.ok(elapsed <= 2_000, `B's classified took ${elapsed} ms`);
          assert.equal(slow.inFlight.max, 16);
        } else {
          // Every slot is A's, so B's is claimed only when A's first download (3 s at the host) ends
          // and frees one: B's classified cannot be terminal before that. Measured against the first
          // download's arrival, not a fixed bound, since how long A took to fill the slots varies.
          const firstDownloadAt = Math.min(...slow.received.map((request) => request.at));
          assert.ok(
            terminalAt - firstDownloadAt >= 3_000,
            `B's classified was terminal ${terminalAt - firstDownloadAt} ms after A's first download began (${elapsed} ms after its 202)`,
          );
        }
      } finally {
        await s.close();
      }
    });
  }

  for (const [name, cap] of [
    ['the cap per media host holds A’s 16 classifieds to 8 downloads from it at once (MEDIA_DOWNLOADS_PER_HOST=8)', '8'],
    ['without the cap per media host, A’s 16 classifieds download from it all at once', '1000'],
  ] as const) {
    it(name, async () => {
      const slow = await receiver({ ...JPEG, delayMs: 1_000 });
      const s = await scene({ MEDIA_DOWNLOADS_PER_HOST: cap }, ['agency-a']);
      try {
        await postMany(s, 'agency-a', 40, (n) => `${slow.base}/a/${n}.jpg`);
        await waitFor(
          'A’s downloads under way',
          async () => slow.inFlight.now,
          (n) => n === (cap === '8' ? 8 : 16),
        );
        await sleep(500);
        assert.equal(slow.inFlight.max, cap === '8' ? 8 : 16);
      } finally {
        await s.close();
      }
    });
  }

  it('B’s downloads from a host where A is at its cap start at once: the cap counts per agency', async () => {
    const slow = await receiver({ ...JPEG, delayMs: 3_000 });
    const s = await scene({ MEDIA_DOWNLOADS_PER_HOST: '8' }, ['agency-a', 'agency-b']);
    try {
      await postMany(s, 'agency-a', 40, (n) => `${slow.base}/a/${n}.jpg`);
      await waitFor(
        'A’s downloads under way',
        async () => slow.inFlight.now,
        (n) => n === 8,
      );
      await postClassified(s, 'agency-b', `${slow.base}/b/0.jpg`, 0);
      const asked = Date.now();
      await waitFor(
        'B’s download at the host',
        async () => slow.requestsTo('/b/0.jpg').length,
        (n) => n === 1,
        20,
        50,
      );
      assert.ok(Date.now() - asked <= 1_000, `B's download started ${Date.now() - asked} ms after its classified was acknowledged`);
      assert.equal(slow.inFlight.max, 9);
    } finally {
      await s.close();
    }
  });
});
