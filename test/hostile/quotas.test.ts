/*
 * Quotas (QUOTA_WRITES_PER_SECOND, QUOTA_READS_PER_SECOND) and the cap on requests in flight
 * (HTTP_MAX_IN_FLIGHT): each client, per agency, within its rates, announced on every answer by
 * RateLimit-Policy and RateLimit; past them 429 with Retry-After; writes and reads counted apart,
 * other agencies and clients untouched, the console's copy of a route counted with the API's, the
 * count shared by two server processes on one database. Each limit is paired with its mutation
 * check: the same requests with the limit switched off all go through.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { heldRoute } from '../fixtures/heldRoute.js';
import { leadRequest } from '../fixtures/leads.js';
import {
  assertProblem,
  getToken,
  http,
  type HttpResult,
  makeClient,
  startTestServer,
  type TestClient,
  type TestServer,
  useServer,
} from '../helpers.js';

const WRITES = 5;
const READS = 10;
const QUOTAS = { QUOTA_WRITES_PER_SECOND: String(WRITES), QUOTA_READS_PER_SECOND: String(READS) };
const SCOPES = ['caas:*', 'leads:*'];
const limited = useServer({ env: QUOTAS, client: { intermediaries: ['agency-1', 'agency-2'], scopes: SCOPES } });
const unlimited = useServer({
  env: { QUOTA_WRITES_PER_SECOND: '0', QUOTA_READS_PER_SECOND: '0' },
  client: { intermediaries: ['agency-1'], scopes: SCOPES },
});

before(async () => {
  await limited.ready();
  await unlimited.ready();
});

async function token(server: TestServer, client: TestClient, agency: string, root = '/seeker-leads/v1'): Promise<string> {
  return getToken(server, client, { root, intermediary: agency });
}

/** `n` reads of the lead API at once, by one token (a route the lead API's own rate limit does not cover). */
function reads(server: TestServer, bearer: string, n: number): Promise<HttpResult[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      http('GET', `${server.base}/seeker-leads/v1/webhook/subscriptions`, { headers: { authorization: `Bearer ${bearer}` } }),
    ),
  );
}

const statuses = (results: HttpResult[]) => results.map((result) => result.status).sort();
const count = (results: HttpResult[], status: number) => results.filter((result) => result.status === status).length;

/** `burst` and the seconds it took. */
async function timed(burst: () => Promise<HttpResult[]>): Promise<{ answers: HttpResult[]; seconds: number }> {
  const started = performance.now();
  const answers = await burst();
  return { answers, seconds: (performance.now() - started) / 1000 };
}

/**
 * A burst against a bucket of `quota` a second passed its quota, and no more than refilled while it
 * was sent (`spare`: tokens a process may hold besides), each of the rest refused with 429.
 */
function assertQuotaHeld(answers: HttpResult[], quota: number, seconds: number, spare = 0): void {
  const passed = count(answers, 200);
  const refilled = Math.ceil(seconds * quota);
  assert.ok(passed >= quota && passed <= quota + refilled + spare, `${statuses(answers).join(' ')} in ${seconds.toFixed(2)} s`);
  assert.equal(passed + count(answers, 429), answers.length, statuses(answers).join(' '));
}

/** Waits until a whole second of quota has come back. */
const refill = () => sleep(1_100);

describe('the read and write quotas of a client and agency', () => {
  it('announces the quota on every answer, and its standing', async () => {
    const bearer = await token(limited.server, limited.client, 'agency-1');
    const [first] = await reads(limited.server, bearer, 1);
    assert.ok(first);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('ratelimit-policy'), `"reads";q=${READS};w=1`);
    assert.equal(first.headers.get('ratelimit'), `"reads";r=${READS - 1};t=1`);
    await refill();
  });

  it('refuses reads past the quota with 429, Retry-After and the RateLimit fields, then serves again', async () => {
    const bearer = await token(limited.server, limited.client, 'agency-1');
    // The bucket refills a token every 100 ms while the burst is sent: as many more may pass.
    const { answers: burst, seconds } = await timed(() => reads(limited.server, bearer, READS + 5));
    assertQuotaHeld(burst, READS, seconds);
    const refused = burst.find((result) => result.status === 429);
    assert.ok(refused);
    assertProblem(
      refused,
      429,
      'Too many requests',
      `At most ${READS} reads a second are allowed for this client and agency; retry in 1 s`,
    );
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('ratelimit-policy'), `"reads";q=${READS};w=1`);
    assert.equal(refused.headers.get('ratelimit'), `"reads";r=0;t=1`);
    await sleep(1_000 * Number(refused.headers.get('retry-after')));
    const [again] = await reads(limited.server, bearer, 1);
    assert.equal(again?.status, 200, again?.text);
    await refill();
  });

  it('counts writes apart from reads, each agency and each client apart, and the console with the API', async () => {
    const server = limited.server;
    const bearer = await token(server, limited.client, 'agency-1');
    assert.ok(count(await reads(server, bearer, READS + 3), 429) > 0);
    // The reads are spent; a write is not a read.
    const caas = await token(server, limited.client, 'agency-1', '/caas/v4');
    const body = minimalClassified();
    body.data.metaData.source.offererEstateId = 'QUOTA-WRITE-1';
    const write = await http('POST', `${server.base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${caas}` }, body });
    assert.equal(write.status, 202, write.text);
    assert.equal(write.headers.get('ratelimit-policy'), `"writes";q=${WRITES};w=1`);
    // Another agency of the same client, and another client of the same agency, have their own.
    const otherAgency = await reads(server, await token(server, limited.client, 'agency-2'), READS);
    assert.deepEqual(statuses(otherAgency), Array(READS).fill(200));
    const otherClient = await makeClient(server.pool, ['agency-1'], SCOPES);
    assert.deepEqual(statuses(await reads(server, await token(server, otherClient, 'agency-1'), READS)), Array(READS).fill(200));
    // The console's copy of the route counts against the client's reads of the agency: spent above.
    const console_ = await ConsoleSession.asClient(server.base, limited.client, 'agency-1', 'production');
    await refill();
    // Both at once: a console read sent after the API's burst would find the tokens refilled
    // meanwhile (one every 100 ms) on a busy machine. Apart, each side would pass READS.
    const [api, viaConsole] = await Promise.all([
      reads(server, bearer, READS),
      Promise.all(Array.from({ length: READS }, () => console_.request('GET', '/leads/webhook/subscriptions'))),
    ]);
    const passed = count(api, 200) + viaConsole.filter((answer) => answer.status === 200).length;
    assert.ok(
      passed < 2 * READS - 2,
      `${passed} of ${2 * READS} passed: ${statuses(api).join(' ')} / ${viaConsole.map((a) => a.status).join(' ')}`,
    );
    const refused = viaConsole.find((answer) => answer.status === 429) ?? api.find((answer) => answer.status === 429);
    assert.equal(refused?.status, 429);
    await refill();
  });

  it('counts POST /leads as a write, as every other', async () => {
    const bearer = await token(limited.server, limited.client, 'agency-2');
    const { answers: burst, seconds } = await timed(() =>
      Promise.all(
        Array.from({ length: WRITES + 5 }, () =>
          http('POST', `${limited.server.base}/seeker-leads/v1/leads`, {
            headers: { authorization: `Bearer ${bearer}` },
            body: leadRequest(),
          }),
        ),
      ),
    );
    assertQuotaHeld(burst, WRITES, seconds);
    const refused = burst.find((result) => result.status === 429);
    assert.equal(refused?.headers.get('ratelimit-policy'), `"writes";q=${WRITES};w=1`);
    await refill();
  });

  it('holds one quota across two server processes on one database', async () => {
    // A second process of the same deployment: the same PUBLIC_URL (so the same token audiences), another port.
    const second = await startTestServer(limited.database, { env: { ...QUOTAS, PUBLIC_URL: limited.server.base } });
    try {
      const bearer = await token(limited.server, limited.client, 'agency-1');
      const address = second.services.address;
      assert.ok(address);
      const { answers, seconds } = await timed(async () =>
        (await Promise.all([reads(limited.server, bearer, READS), reads({ ...second, base: address }, bearer, READS)])).flat(),
      );
      // One bucket: READS in all (and what refilled meanwhile, and what each process took and did not spend).
      assertQuotaHeld(answers, READS, seconds, 2);
    } finally {
      await second.close();
    }
    await refill();
  });

  it('switched off (0): the same burst all goes through, and no RateLimit field is sent', async () => {
    const bearer = await token(unlimited.server, unlimited.client, 'agency-1');
    const burst = await reads(unlimited.server, bearer, READS + 5);
    assert.deepEqual(statuses(burst), Array(READS + 5).fill(200));
    for (const result of burst) {
      assert.equal(result.headers.get('ratelimit'), null);
      assert.equal(result.headers.get('ratelimit-policy'), null);
    }
  });
});

describe('the requests in flight of one server process (HTTP_MAX_IN_FLIGHT)', () => {
  const held = heldRoute();
  let server: TestServer;

  before(async () => {
    server = await startTestServer(limited.database, { env: { HTTP_MAX_IN_FLIGHT: '1' }, apis: [held.module] });
  });
  after(async () => {
    held.release();
    await server?.close();
  });

  it('answers 503 with Retry-After at once past the cap, and still answers /ready', async () => {
    const { inFlight, token: bearer } = await held.hold(server);
    const started = performance.now();
    const refused = await http('GET', `${server.base}/seeker-leads/v1/slow`, { headers: { authorization: `Bearer ${bearer}` } });
    const ms = performance.now() - started;
    assertProblem(refused, 503, 'Service unavailable', 'The server is handling as many requests as it takes (1); retry in a second');
    assert.equal(refused.headers.get('retry-after'), '1');
    // At once: no queue in front of a full server (the bound leaves room for a busy machine).
    assert.ok(ms < 500, `refused after ${Math.round(ms)} ms`);
    const ready = await http('GET', `${server.base}/ready`);
    assert.equal(ready.status, 200, ready.text);
    const metrics = await http('GET', `${server.base}/metrics`);
    assert.match(metrics.text, /immogate_requests_refused_total\{reason="overloaded"\} 1/);
    held.release();
    assert.equal((await inFlight).status, 200);
    // Its place is free again.
    const next = await http('GET', `${server.base}/seeker-leads/v1/slow`, { headers: { authorization: `Bearer ${bearer}` } });
    assert.equal(next.status, 200, next.text);
  });
});
