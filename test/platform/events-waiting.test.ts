/*
 * Long polls of the event feed while they wait, through real HTTP: a waiter answers soon after a
 * commit of its tenant and not after another tenant's; an event held back by an older transaction
 * is answered once that one ends, with no re-read per waiter meanwhile; 1000 idle waiters run no
 * query and slow neither another agency's requests nor /ready; and past the cap of a client, or of
 * the server, a long poll is answered 429.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { decodeCursor, type FeedEvent } from '../../src/platform/events/feed.js';
import { feedCaughtUp } from '../fixtures/feed.js';
import { leadRequest } from '../fixtures/leads.js';
import { transactionsDuring } from '../fixtures/transactions.js';
import {
  assertProblem,
  http,
  type HttpResult,
  makeClient,
  type ServerFixture,
  type TestClient,
  USER_AGENT,
  useServer,
  getToken,
  waitFor,
} from '../helpers.js';

const LEADS = '/seeker-leads/v1';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['leads:*'] } });
// One client may hold as many long polls as the whole server (1000, the default): the idle test's.
const crowded = useServer({
  env: { EVENT_WAITERS_PER_CLIENT: '1000' },
  client: { intermediaries: ['agency-1'], scopes: ['leads:*'] },
});

/** A lead API token of `client` (a new client of its own unless given) for `agency`. */
async function tokenOf(on: ServerFixture, agency: string, client?: TestClient): Promise<string> {
  const own = client ?? (await makeClient(on.server.pool, [agency], ['leads:*']));
  return getToken(on.server, own, { root: LEADS, intermediary: agency });
}

/** A GET of the lead API, through fetch itself so that a long poll can be aborted (the client going away). */
function get(on: ServerFixture, path: string, token: string, signal?: AbortSignal): Promise<HttpResult> {
  return fetch(`${on.server.base}${LEADS}${path}`, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT },
    signal,
  }).then(async (response) => {
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) };
  });
}

/** Submits a lead of the token's agency; its leadId. */
async function postLead(on: ServerFixture, token: string, classifiedId: string): Promise<string> {
  const result = await http('POST', `${on.server.base}${LEADS}/leads`, {
    headers: { authorization: `Bearer ${token}` },
    body: leadRequest({ classifiedId }),
  });
  assert.equal(result.status, 200, result.text);
  const { rows } = await on.server.pool.query('SELECT id FROM leads WHERE request_id = $1', [
    (result.body as { requestId: string }).requestId,
  ]);
  return rows[0].id;
}

/** The cursor after every event of the token's feed so far. */
async function latest(on: ServerFixture, token: string): Promise<string> {
  await feedCaughtUp(on.server.pool);
  let after = '';
  for (;;) {
    const page = await get(on, `/events?limit=100${after ? `&after=${after}` : ''}`, token);
    assert.equal(page.status, 200, page.text);
    const body = page.body as { events: FeedEvent[]; next: string };
    after = body.next;
    if (body.events.length === 0) return after;
  }
}

/** Asserts the whole answer of a long poll that saw one lead.received: its event, and next its cursor. */
function assertLeadPage(result: HttpResult, leadId: string, classifiedId: string): void {
  assert.equal(result.status, 200, result.text);
  const body = result.body as { events: FeedEvent[] };
  const event = body.events[0];
  assert.ok(event, result.text);
  assert.match(event.createdAt, ISO);
  assert.ok(decodeCursor(event.cursor), `${event.cursor} is a cursor`);
  assert.deepEqual(result.body, {
    events: [
      {
        id: leadId,
        type: 'lead.received',
        createdAt: event.createdAt,
        subject: leadId,
        data: { leadId, category: 'CLASSIFIED', classifiedId, submittedAt: '2026-11-22T08:00:00.000Z' },
        cursor: event.cursor,
      },
    ],
    next: event.cursor,
  });
}

/** What `promise` settled with within `ms` (a status and body, or an error), or undefined while it is still unsettled. */
async function answerWithin(promise: Promise<HttpResult>, ms: number): Promise<string | undefined> {
  const waiting = Symbol('waiting');
  const settled = await Promise.race([
    promise.then(
      (answer) => `${answer.status} ${answer.text}`,
      (error: unknown) => `failed: ${String(error)}`,
    ),
    sleep(ms, waiting),
  ]);
  return settled === waiting ? undefined : (settled as string);
}

/** A long poll's answer with the time it came. */
function timed(result: Promise<HttpResult>): Promise<HttpResult & { at: number }> {
  return result.then((answer) => ({ ...answer, at: Date.now() }));
}

/**
 * `count` long polls of one token, kept waiting: one refused because a probe (full()) held its
 * slot meanwhile is sent again. Any other answer before close() is kept in `answered`: none should come.
 */
class Crowd {
  readonly answered: HttpResult[] = [];
  private readonly aborted = new AbortController();

  constructor(
    private readonly on: ServerFixture,
    private readonly token: string,
    private readonly after: string,
    count: number,
  ) {
    for (let n = 0; n < count; n++) this.send();
  }

  private send(): void {
    get(this.on, `/events?wait=30&after=${this.after}`, this.token, this.aborted.signal).then(
      async (result) => {
        if (result.status !== 429) this.answered.push(result);
        else if (!this.aborted.signal.aborted) {
          await sleep(100);
          this.send();
        }
      },
      () => undefined, // aborted by close()
    );
  }

  /**
   * Resolves once all of them wait: a further long poll of the same token is refused by its
   * client's cap (the answer). One admitted instead waits a second, then answers empty.
   */
  async full(): Promise<HttpResult> {
    for (let tries = 0; tries < 60; tries++) {
      // Longer than a refused poll takes to come back: it finds the slot a probe held free.
      await sleep(300);
      const probe = await get(this.on, `/events?wait=1&after=${this.after}`, this.token);
      if (probe.status === 429) return probe;
      assert.deepEqual([probe.status, probe.body], [200, { events: [], next: this.after }], probe.text);
    }
    throw new Error('the long polls never all waited');
  }

  close(): void {
    this.aborted.abort();
  }
}

const PER_CLIENT_DETAIL = 'Too many long polls of this client are waiting: at most 100 per client on this server; retry in a second.';

describe('a waiting long poll', () => {
  let mine: string;
  let otherAgency: string;
  before(async () => {
    await fixture.ready();
    mine = await tokenOf(fixture, 'agency-1', fixture.client);
    otherAgency = await tokenOf(fixture, 'agency-2', fixture.client);
  });

  it('answers soon after a commit of its tenant, and not after another tenant’s', async () => {
    const after = await latest(fixture, mine);
    const polling = timed(get(fixture, `/events?wait=20&after=${after}`, mine));
    await sleep(300);
    await postLead(fixture, otherAgency, '12ABCDEFGHW1');
    const anotherTenant = await answerWithin(polling, 1000);
    assert.equal(anotherTenant, undefined, `no answer after another agency’s lead; got ${anotherTenant}`);
    const leadId = await postLead(fixture, mine, '12ABCDEFGHW2');
    const committed = Date.now();
    const answer = await polling;
    assertLeadPage(answer, leadId, '12ABCDEFGHW2');
    console.log(`long poll answered ${answer.at - committed} ms after its tenant's lead was committed`);
    // Milliseconds when notified; a transaction of another test file running meanwhile may hold the event
    // back a little (the horizon is the cluster's), and the horizon watch then answers once it ends.
    assert.ok(answer.at - committed < 2000, `answered ${answer.at - committed} ms after the commit`);
  });
});

describe('a long poll whose event is held back by an older transaction', () => {
  let poster: string;
  let waiter: string;
  before(async () => {
    await fixture.ready();
    poster = await tokenOf(fixture, 'agency-1', fixture.client);
    waiter = await tokenOf(fixture, 'agency-1');
  });

  /** A transaction of another connection that has taken a transaction id, older than the lead's to come. */
  async function olderTransaction(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: fixture.database.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    return client;
  }

  for (const end of ['COMMIT', 'ROLLBACK'] as const) {
    it(`answers once that one ends (${end}), its 100 waiters costing one horizon query a tick meanwhile`, async () => {
      const after = await latest(fixture, waiter);
      const polls = Array.from({ length: 100 }, () => timed(get(fixture, `/events?wait=20&after=${after}`, waiter)));
      await sleep(500);
      // The horizon is the whole cluster's: the other test files' feeds wait for this one too, so it is kept short.
      const older = await olderTransaction();
      try {
        const classifiedId = end === 'COMMIT' ? '12ABCDEFGHW3' : '12ABCDEFGHW4';
        const leadId = await postLead(fixture, poster, classifiedId);
        // Committed and notified: every waiter read again, found it held back, and waits for the horizon.
        const heldBack = await answerWithin(Promise.race(polls), 1000);
        assert.equal(heldBack, undefined, `no answer while the older transaction is open; got ${heldBack}`);
        const transactions = await transactionsDuring(fixture.database.url, () => sleep(1500));
        const stillHeldBack = await answerWithin(Promise.race(polls), 0);
        assert.equal(stillHeldBack, undefined, `still no answer; got ${stillHeldBack}`);
        await older.query(end);
        const ended = Date.now();
        const answers = await Promise.all(polls);
        for (const answer of answers) assertLeadPage(answer, leadId, classifiedId);
        const last = Math.max(...answers.map((answer) => answer.at)) - ended;
        console.log(
          `held back (${end}): ${transactions} transactions in 1.5 s while 100 polls waited; the last answered ${last} ms after the older transaction ended`,
        );
        // The watch's query is one a tick (150 ms): 10 in 1.5 s. A re-read per waiter, even every 2 s, would be 75.
        assert.ok(transactions <= 30, `${transactions} transactions in 1.5 s`);
        assert.ok(last < 1500, `the last answered ${last} ms after the older transaction ended`);
      } finally {
        await older.end();
      }
    });
  }
});

describe('the cap on long polls of one client', () => {
  it('answers the 101st waiting poll of a client 429 with Retry-After, while another client’s poll still waits', async () => {
    await fixture.ready();
    const greedy = await tokenOf(fixture, 'agency-2');
    const other = await tokenOf(fixture, 'agency-2');
    const after = await latest(fixture, greedy);
    const crowd = new Crowd(fixture, greedy, after, 100);
    try {
      const refused = await crowd.full();
      assertProblem(refused, 429, 'Too many requests', PER_CLIENT_DETAIL);
      assert.equal(refused.headers.get('retry-after'), '1');
      const asked = Date.now();
      const waited = await get(fixture, `/events?wait=2&after=${after}`, other);
      assert.deepEqual([waited.status, waited.body], [200, { events: [], next: after }], waited.text);
      assert.ok(Date.now() - asked >= 1900, `the other client's poll waited ${Date.now() - asked} ms`);
    } finally {
      crowd.close();
    }
    assert.deepEqual(crowd.answered, []);
    // A client that goes away frees its places (once the server saw the connections close): the same client waits again.
    const again = await waitFor(
      'the closed polls to free their places',
      () => get(fixture, `/events?wait=1&after=${after}`, greedy),
      (result) => result.status !== 429,
      20,
      100,
    );
    assert.deepEqual([again.status, again.body], [200, { events: [], next: after }], again.text);
  });
});

describe('1000 idle long polls of one client', () => {
  it('run no query, and slow neither another agency’s GET /leads nor /ready; the next poll is over the server’s cap', async () => {
    await crowded.ready();
    const holder = await tokenOf(crowded, 'agency-1', crowded.client);
    // Two callers of the other agency: GET /leads allows each 10 requests per 200 ms.
    const neighbours = [await tokenOf(crowded, 'agency-2'), await tokenOf(crowded, 'agency-2')] as const;
    for (const n of [1, 2, 3, 4, 5]) await postLead(crowded, neighbours[0], `12ABCDEFGHN${n}`);
    const after = await latest(crowded, holder);
    const neighbourAfter = await latest(crowded, neighbours[0]);

    /** Times `samples` GET /leads of the other agency, 12.5 ms apart (25 ms for each caller), and a /ready after every other. */
    async function measure(samples: number): Promise<{ leads: number[]; ready: number[] }> {
      const leads: number[] = [];
      const ready: number[] = [];
      for (let n = 0; n < samples; n++) {
        const started = performance.now();
        const page = await get(crowded, '/leads?minDate=1700000000&maxDate=1700086400', neighbours[n % 2] as string);
        leads.push(performance.now() - started);
        assert.equal(page.status, 200, page.text);
        if (n % 2 === 0) {
          const asked = performance.now();
          const result = await http('GET', `${crowded.server.base}/ready`);
          ready.push(performance.now() - asked);
          assert.deepEqual([result.status, result.body], [200, { status: 'ready', database: 'ok' }]);
        }
        await sleep(Math.max(0, 12.5 - (performance.now() - started)));
      }
      return { leads, ready };
    }
    const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.99) - 1] as number;
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const slowest = (times: number[]) =>
      [...times]
        .sort((a, b) => b - a)
        .slice(0, 4)
        .map(ms)
        .join(', ');

    await measure(20); // warm-up: the routes' first calls, the pool's connections
    const quiet = await measure(200);
    const quietTransactions = await transactionsDuring(crowded.database.url, () => sleep(3000));

    const crowd = new Crowd(crowded, holder, after, 1000);
    let loaded: { leads: number[]; ready: number[] };
    let transactions: number;
    try {
      const refused = await crowd.full();
      assertProblem(
        refused,
        429,
        'Too many requests',
        'Too many long polls of this client are waiting: at most 1000 per client on this server; retry in a second.',
      );
      loaded = await measure(200);
      transactions = await transactionsDuring(crowded.database.url, () => sleep(3000));
      // Another client: the server's cap (1000) is full.
      const overServer = await get(crowded, `/events?wait=30&after=${neighbourAfter}`, neighbours[0]);
      assertProblem(
        overServer,
        429,
        'Too many requests',
        'Too many long polls are waiting on this server: at most 1000; retry in a second.',
      );
      assert.equal(overServer.headers.get('retry-after'), '1');
    } finally {
      crowd.close();
    }
    assert.deepEqual(crowd.answered, []);
    // Quiet again: with the first quiet figures, what the machine's own noise is (a busy 2-core machine's).
    await sleep(500);
    const after1000 = await measure(200);
    const baseline = Math.max(p99(quiet.leads), p99(after1000.leads));
    console.log(
      `GET /leads p99: ${ms(p99(quiet.leads))} quiet, ${ms(p99(loaded.leads))} with 1000 waiting, ${ms(p99(after1000.leads))} quiet again ` +
        `(the slowest: ${slowest(quiet.leads)}; ${slowest(loaded.leads)}; ${slowest(after1000.leads)}); ` +
        `/ready max: ${ms(Math.max(...quiet.ready))} quiet, ${ms(Math.max(...loaded.ready))} with 1000 waiting; ` +
        `transactions in 3 s: ${quietTransactions} quiet, ${transactions} with 1000 waiting`,
    );
    // Before, each waiter read the feed every 2 s: 1500 transactions in 3 s, a p99 of 2 s and /ready up to 2.4 s.
    assert.ok(transactions <= 15, `${transactions} transactions in 3 s with 1000 polls waiting`);
    assert.ok(p99(loaded.leads) <= 2 * baseline, `p99 ${ms(p99(loaded.leads))} against ${ms(baseline)} quiet`);
    assert.ok(Math.max(...loaded.ready) <= 100, `/ready took up to ${ms(Math.max(...loaded.ready))}`);
  });
});
