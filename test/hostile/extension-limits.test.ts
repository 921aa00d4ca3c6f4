/*
 * The expensive extension routes are rate-limited, with their defaults: the validations
 * (VALIDATIONS_PER_MINUTE, 60 per client and environment), the test events (TEST_EVENTS_PER_MINUTE,
 * 10 per subscription), the redeliveries (REDELIVERIES_PER_MINUTE, 30 per client, or per operator).
 * The console's copy of each route counts against the same budget as the API's. Past it: 429
 * problem+json with Retry-After. Each limit is paired with its mutation check: the same requests on
 * a server whose limits are switched off by configuration all go through, so the 429s come from
 * the limit and from nothing else.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { assertProblem, getToken, http, makeClient, type HttpResult, type ServerFixture, type TestClient, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'extension-limits-operator-token-0123';
const AGENCY = 'agency-x';
const SCOPES = ['caas:*', 'clim:*', 'leads:*'];
const ROOTS = { caas: '/caas/v4', clim: '/import-listings/v1', leads: '/seeker-leads/v1' } as const;
type Api = keyof typeof ROOTS;

// No worker: test events and redeliveries are queued, never sent (the address is only checked, hence its policy opened).
const SERVER_ENV = { ADMIN_TOKEN, ALLOW_PRIVATE_TARGETS: 'true' };
const limited = useServer({ env: SERVER_ENV });
const unlimited = useServer({
  env: { ...SERVER_ENV, VALIDATIONS_PER_MINUTE: '1000000', TEST_EVENTS_PER_MINUTE: '1000000', REDELIVERIES_PER_MINUTE: '1000000' },
});

before(async () => {
  await limited.ready();
  await unlimited.ready();
});

/** A client of its own (its own budgets), its production tokens, and its console session in production. */
class Caller {
  private readonly tokens = new Map<string, string>();
  private constructor(
    private readonly fixture: ServerFixture,
    readonly client: TestClient,
    readonly console: ConsoleSession,
  ) {}

  static async make(fixture: ServerFixture): Promise<Caller> {
    const client = await makeClient(fixture.server.pool, [AGENCY], SCOPES);
    return new Caller(fixture, client, await ConsoleSession.asClient(fixture.server.base, client, AGENCY, 'production'));
  }

  async api(api: Api, method: string, path: string, body?: unknown, environment: 'production' | 'sandbox' = 'production') {
    const root = `${environment === 'sandbox' ? '/sandbox' : ''}${ROOTS[api]}`;
    const key = `${api}|${environment}`;
    let token = this.tokens.get(key);
    if (token === undefined) {
      token = await getToken(this.fixture.server, this.client, { root, intermediary: AGENCY });
      this.tokens.set(key, token);
    }
    return http(method, `${this.fixture.server.base}${root}${path}`, { headers: { authorization: `Bearer ${token}` }, body });
  }
}

/**
 * Waits for a fresh window when the current one (aligned to the minute on the database clock)
 * has less than 15 seconds left, so a run of requests that must meet the limit exactly is
 * counted in one window.
 */
async function inFreshWindow(fixture: ServerFixture): Promise<void> {
  const { rows } = await fixture.server.pool.query<{ ms: string }>(
    'SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms',
  );
  const left = 60_000 - (Number(rows[0]?.ms) % 60_000);
  if (left < 15_000) await sleep(left + 200);
}

/** Sends `count` requests, each of which must be answered `status`. */
async function allAnswered(count: number, status: number, send: (i: number) => Promise<HttpResult>): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = await send(i);
    assert.equal(result.status, status, `request ${i + 1}: ${result.text}`);
  }
}

function assertLimited(result: HttpResult, max: number, per: 'client' | 'subscription' | 'operator'): void {
  const retryAfter = Number(result.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${result.headers.get('retry-after')}`);
  assertProblem(result, 429, 'Too many requests', `At most ${max} requests per minute are allowed for this ${per}; retry later`);
}

const validateClassified = (caller: Caller) => caller.api('caas', 'POST', '/classifieds/validate', minimalClassified());
const validateClassifiedInConsole = (caller: Caller) =>
  caller.console.request('POST', '/caas/classifieds/validate', { body: minimalClassified() });
const validateListing = (caller: Caller) => caller.api('clim', 'POST', '/listings/validate', berlinRentApartment());
const validateListingInConsole = (caller: Caller) =>
  caller.console.request('POST', '/clim/listings/validate', { body: berlinRentApartment() });

/** The classifieds status webhook of the caller (nothing is sent to it: the servers have no worker). */
async function statusWebhook(caller: Caller): Promise<void> {
  const result = await caller.api('caas', 'PUT', '/webhooks', { url: 'https://203.0.113.7/status', secret: 'a-secret-of-twenty-chars' });
  assert.equal(result.status, 200, result.text);
}

async function leadSubscription(caller: Caller): Promise<string> {
  const result = await caller.api('leads', 'POST', '/webhook/subscriptions', {
    url: 'https://203.0.113.7/leads',
    apiKey: 'an-api-key-of-twenty',
  });
  assert.equal(result.status, 201, result.text);
  return (result.body as { subscriptionId: string }).subscriptionId;
}

const caasTestEvent = (caller: Caller) => caller.api('caas', 'POST', '/webhooks/test-events');
const caasTestEventInConsole = (caller: Caller) => caller.console.request('POST', '/caas/webhooks/test-events');
const leadTestEvent = (caller: Caller, id: string) => caller.api('leads', 'POST', `/webhook/subscriptions/${id}/test-events`);
const leadTestEventInConsole = (caller: Caller, id: string) =>
  caller.console.request('POST', `/leads/webhook/subscriptions/${id}/test-events`);

/** A delivery of the caller's lead subscription to redeliver: its test event's. */
async function leadDelivery(caller: Caller): Promise<string> {
  const sent = await leadTestEvent(caller, await leadSubscription(caller));
  assert.equal(sent.status, 202, sent.text);
  return (sent.body as { id: string }).id;
}

const redeliverInConsole = (caller: Caller, id: string) => caller.console.request('POST', `/leads/deliveries/${id}/redeliveries`);

function adminRedeliver(fixture: ServerFixture, id: string): Promise<HttpResult> {
  return http('POST', `${fixture.server.base}/admin/deliveries/redeliveries`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { deliveryId: id },
  });
}

describe('POST {caas}/classifieds/validate: VALIDATIONS_PER_MINUTE (60) per client and environment', () => {
  it('limit holds: 30 through the API and 30 through the console pass, the 61st of either is a 429; other budgets are untouched', async () => {
    const caller = await Caller.make(limited);
    await inFreshWindow(limited);
    await allAnswered(30, 200, () => validateClassified(caller));
    await allAnswered(30, 200, () => validateClassifiedInConsole(caller));
    assertLimited(await validateClassified(caller), 60, 'client');
    assertLimited(await validateClassifiedInConsole(caller), 60, 'client');
    // Another client, and the same client's sandbox, count on their own.
    assert.equal((await validateClassified(await Caller.make(limited))).status, 200);
    assert.equal((await caller.api('caas', 'POST', '/classifieds/validate', minimalClassified(), 'sandbox')).status, 200);
  });

  it('mutation check, limit switched off (VALIDATIONS_PER_MINUTE=1000000): the 61st and 70th pass', async () => {
    const caller = await Caller.make(unlimited);
    await allAnswered(35, 200, () => validateClassified(caller));
    await allAnswered(35, 200, () => validateClassifiedInConsole(caller));
  });
});

describe('POST {clim}/listings/validate: VALIDATIONS_PER_MINUTE (60) per client and environment', () => {
  it('limit holds: 60 through the API pass, the 61st through the console is a 429, and through the API', async () => {
    const caller = await Caller.make(limited);
    await inFreshWindow(limited);
    await allAnswered(60, 200, () => validateListing(caller));
    assertLimited(await validateListingInConsole(caller), 60, 'client');
    assertLimited(await validateListing(caller), 60, 'client');
    // Its own budget, not the classifieds': the classifieds validation still passes.
    assert.equal((await validateClassified(caller)).status, 200);
  });

  it('mutation check, limit switched off (VALIDATIONS_PER_MINUTE=1000000): the 61st and 70th pass', async () => {
    const caller = await Caller.make(unlimited);
    await allAnswered(60, 200, () => validateListing(caller));
    await allAnswered(10, 200, () => validateListingInConsole(caller));
  });
});

describe('POST {caas}/webhooks/test-events: TEST_EVENTS_PER_MINUTE (10) per subscription', () => {
  it('limit holds: 5 through the API and 5 through the console are sent, the 11th is a 429', async () => {
    const caller = await Caller.make(limited);
    await statusWebhook(caller);
    await inFreshWindow(limited);
    await allAnswered(5, 202, () => caasTestEvent(caller));
    await allAnswered(5, 202, () => caasTestEventInConsole(caller));
    assertLimited(await caasTestEvent(caller), 10, 'subscription');
    assertLimited(await caasTestEventInConsole(caller), 10, 'subscription');
    const { rows } = await limited.server.pool.query(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE test AND source = 'caas' AND agency_id = $1",
      [AGENCY],
    );
    assert.ok((rows[0] as { n: number }).n >= 10);
  });

  it('mutation check, limit switched off (TEST_EVENTS_PER_MINUTE=1000000): the 11th and 20th are sent', async () => {
    const caller = await Caller.make(unlimited);
    await statusWebhook(caller);
    await allAnswered(10, 202, () => caasTestEvent(caller));
    await allAnswered(10, 202, () => caasTestEventInConsole(caller));
  });
});

describe('POST {leads}/webhook/subscriptions/{id}/test-events: TEST_EVENTS_PER_MINUTE (10) per subscription', () => {
  it("limit holds: the 11th for one subscription is a 429, through the API or the console; another subscription's are sent", async () => {
    const caller = await Caller.make(limited);
    const first = await leadSubscription(caller);
    const second = await leadSubscription(caller);
    await inFreshWindow(limited);
    await allAnswered(10, 202, () => leadTestEvent(caller, first));
    assertLimited(await leadTestEvent(caller, first), 10, 'subscription');
    assertLimited(await leadTestEventInConsole(caller, first), 10, 'subscription');
    assert.equal((await leadTestEvent(caller, second)).status, 202);
    assert.equal((await leadTestEventInConsole(caller, second)).status, 202);
  });

  it('mutation check, limit switched off (TEST_EVENTS_PER_MINUTE=1000000): the 11th and 20th for one subscription are sent', async () => {
    const caller = await Caller.make(unlimited);
    const first = await leadSubscription(caller);
    await allAnswered(15, 202, () => leadTestEvent(caller, first));
    await allAnswered(5, 202, () => leadTestEventInConsole(caller, first));
  });
});

describe("the console's redelivery (POST /console/api/{api}/deliveries/{id}/redeliveries): REDELIVERIES_PER_MINUTE (30) per client", () => {
  it('limit holds: 30 pass, the 31st is a 429', async () => {
    const caller = await Caller.make(limited);
    const id = await leadDelivery(caller);
    await inFreshWindow(limited);
    await allAnswered(30, 200, () => redeliverInConsole(caller, id));
    assertLimited(await redeliverInConsole(caller, id), 30, 'client');
  });

  it('mutation check, limit switched off (REDELIVERIES_PER_MINUTE=1000000): the 31st and 35th pass', async () => {
    const caller = await Caller.make(unlimited);
    const id = await leadDelivery(caller);
    await allAnswered(35, 200, () => redeliverInConsole(caller, id));
  });
});

describe("the operator's redelivery (POST /admin/deliveries/redeliveries): REDELIVERIES_PER_MINUTE (30) per operator", () => {
  it("limit holds: 15 on /admin and 15 from the console's operator pages pass, the 31st of either is a 429", async () => {
    const id = await leadDelivery(await Caller.make(limited));
    const operator = await ConsoleSession.signIn(limited.server.base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    await inFreshWindow(limited);
    await allAnswered(15, 200, () => adminRedeliver(limited, id));
    await allAnswered(15, 200, () => operator.request('POST', '/admin/deliveries/redeliveries', { body: { deliveryId: id } }));
    assertLimited(await adminRedeliver(limited, id), 30, 'operator');
    assertLimited(await operator.request('POST', '/admin/deliveries/redeliveries', { body: { deliveryId: id } }), 30, 'operator');
  });

  it('mutation check, limit switched off (REDELIVERIES_PER_MINUTE=1000000): the 31st and 35th pass', async () => {
    const id = await leadDelivery(await Caller.make(unlimited));
    await allAnswered(35, 200, () => adminRedeliver(unlimited, id));
  });
});
