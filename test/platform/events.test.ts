/*
 * The event feed, GET {root}/events, through real HTTP on each API root: the events of statuses,
 * leads and listings with their exact bodies, scopes and tenancy, cursors and pages, the types
 * filter, 410 past retention, long polls woken by a commit (or ending empty), webhook-id equal to
 * the event id, and a property test: transactions committing out of order never make a follower
 * skip an event.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import pg from 'pg';
import { decodeCursor, readFeed, START, type Cursor, type FeedEvent } from '../../src/platform/events/feed.js';
import { EXPIRE_EVENTS } from '../../src/platform/events/retention.js';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { Receiver } from '../fixtures/receiver.js';
import { feedCaughtUp } from '../fixtures/feed.js';
import { assertProblem, http, type HttpResult, type TestServer, useServer, waitFor } from '../helpers.js';

type Body = Record<string, any>;

const CAAS = '/caas/v4';
const LEADS = '/seeker-leads/v1';
const CLIM = '/import-listings/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1,0.2,0.4' },
  client: { intermediaries: ['agency-1', 'agency-2', 'agency-prop'], scopes: ['caas:*', 'leads:*', 'clim:*'] },
});
let server: TestServer;
const tokens: Record<string, string> = {};

before(async () => {
  await fixture.ready();
  server = fixture.server;
  for (const [name, root, intermediary, scope] of [
    ['caas', CAAS, 'agency-1', undefined],
    ['leads', LEADS, 'agency-1', undefined],
    ['leads2', LEADS, 'agency-2', undefined],
    ['leadsSandbox', `/sandbox${LEADS}`, 'agency-1', undefined],
    ['leadsCreateOnly', LEADS, 'agency-1', 'leads:create'],
    ['leadsRead', LEADS, 'agency-1', 'leads:read'],
    ['clim', CLIM, 'agency-1', undefined],
  ] as const) {
    tokens[name] = await fixture.token({ root, intermediary, ...(scope ? { scope } : {}) });
  }
});

function call(method: string, url: string, token: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${url}`, { headers: { authorization: `Bearer ${token}` }, body });
}

function lead(classifiedId: string): Body {
  return {
    email: 'marie.curie@example.org',
    firstName: 'Marie',
    lastName: 'Curie',
    phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78', verified: true }],
    message: 'Is the flat still available?',
    classifiedId,
    submittedDate: '2024-05-01T10:00:00Z',
  };
}

/** Submits a lead; its leadId (the answer names the request only). */
async function postLead(token: string, classifiedId: string, root = LEADS): Promise<string> {
  const result = await call('POST', `${root}/leads`, token, lead(classifiedId));
  assert.equal(result.status, 200, result.text);
  const { rows } = await server.pool.query('SELECT id FROM leads WHERE request_id = $1', [
    (result.body as { requestId: string }).requestId,
  ]);
  return rows[0].id;
}

/** Every event of a feed from `after` on, page by page. */
async function drain(root: string, token: string, query = '', after?: string): Promise<{ events: FeedEvent[]; next: string }> {
  await feedCaughtUp(server.pool);
  const events: FeedEvent[] = [];
  let next = after;
  for (;;) {
    const page = await call('GET', `${root}/events?limit=100${query}${next ? `&after=${next}` : ''}`, token);
    assert.equal(page.status, 200, page.text);
    const body = page.body as { events: FeedEvent[]; next: string };
    events.push(...body.events);
    next = body.next;
    if (body.events.length === 0) return { events, next: body.next };
  }
}

function assertEventShape(event: FeedEvent): void {
  assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'cursor', 'data', 'id', 'subject', 'type']);
  assert.match(event.id, UUID);
  assert.match(event.createdAt, ISO);
  assert.ok(decodeCursor(event.cursor), `${event.cursor} is a cursor`);
}

describe('GET /events of the lead API', () => {
  it('lists each lead received as lead.received, with no personal data, in order, and pages by cursor', async () => {
    const start = (await drain(LEADS, tokens.leads!)).next;
    const ids = [
      await postLead(tokens.leads!, '12ABCDEFGHJ1'),
      await postLead(tokens.leads!, '12ABCDEFGHJ2'),
      await postLead(tokens.leads!, '12ABCDEFGHJ3'),
    ];
    await feedCaughtUp(server.pool);
    const first = await call('GET', `${LEADS}/events?limit=2&after=${start}`, tokens.leads!);
    assert.equal(first.status, 200, first.text);
    const page = first.body as { events: FeedEvent[]; next: string };
    assert.equal(page.events.length, 2);
    for (const event of page.events) assertEventShape(event);
    assert.deepEqual(
      page.events.map(({ id, type, subject, data }) => ({ id, type, subject, data })),
      ids.slice(0, 2).map((id, n) => ({
        id,
        type: 'lead.received',
        subject: id,
        data: { leadId: id, category: 'CLASSIFIED', classifiedId: `12ABCDEFGHJ${n + 1}`, submittedAt: '2024-05-01T10:00:00.000Z' },
      })),
    );
    assert.equal(page.next, page.events[1]!.cursor);
    const rest = await drain(LEADS, tokens.leads!, '', page.next);
    assert.deepEqual(
      rest.events.map((event) => event.id),
      [ids[2]],
    );
    // Nothing more: an empty page says where to read on from, the cursor it was given.
    const empty = await call('GET', `${LEADS}/events?after=${rest.next}`, tokens.leads!);
    assert.deepEqual(empty.body, { events: [], next: rest.next });
  });

  it('shows only the caller’s agency and environment, and needs the read scope', async () => {
    const other = await postLead(tokens.leads2!, '12ABCDEFGHJ4');
    const sandbox = await postLead(tokens.leadsSandbox!, '12ABCDEFGHJ5', `/sandbox${LEADS}`);
    const mine = (await drain(LEADS, tokens.leads!)).events.map((event) => event.id);
    assert.ok(!mine.includes(other) && !mine.includes(sandbox));
    assert.deepEqual(
      (await drain(LEADS, tokens.leads2!)).events.map((event) => event.id),
      [other],
    );
    assert.deepEqual(
      (await drain(`/sandbox${LEADS}`, tokens.leadsSandbox!)).events.map((event) => event.id),
      [sandbox],
    );
    assert.equal((await call('GET', `${LEADS}/events`, tokens.leadsRead!)).status, 200);
    const refused = await call('GET', `${LEADS}/events`, tokens.leadsCreateOnly!);
    assert.equal(refused.status, 403, refused.text);
  });

  it('refuses an unknown type, a garbled cursor and a limit or wait out of range, naming the parameter', async () => {
    const unknown = await call('GET', `${LEADS}/events?types=lead.received,lead.eaten`, tokens.leads!);
    assertProblem(unknown, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'types', reason: '"lead.eaten" is not an event type of this API; known: lead.received.' }],
      errorSource: 'requestParameter',
    });
    const garbled = await call('GET', `${LEADS}/events?after=nonsense`, tokens.leads!);
    assertProblem(garbled, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'after', reason: 'is not a cursor this feed returned.' }],
      errorSource: 'requestParameter',
    });
    for (const query of ['limit=0', 'limit=101', 'wait=31']) {
      const result = await call('GET', `${LEADS}/events?${query}`, tokens.leads!);
      assert.equal(result.status, 400, `${query}: ${result.text}`);
      assert.equal((result.body as Body).errors[0].name, query.split('=')[0]);
    }
  });

  it('long-polls: answers as soon as a lead commits, and empty when the wait ends', async () => {
    const { next } = await drain(LEADS, tokens.leads!);
    const asked = Date.now();
    const polling = call('GET', `${LEADS}/events?wait=10&after=${next}`, tokens.leads!);
    // Long enough for the poll to have found nothing and to be waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const leadId = await postLead(tokens.leads!, '12ABCDEFGHJ6');
    const committed = Date.now();
    const answer = await polling;
    const answered = Date.now();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      (answer.body as { events: FeedEvent[] }).events.map((event) => event.id),
      [leadId],
    );
    // The bound is the wait itself (timed assertions are fragile); the figure is reported.
    assert.ok(answered - asked < 10_000, 'answered before the wait expired');
    console.log(`long poll answered ${answered - committed} ms after the lead's POST returned`);

    const quiet = await call('GET', `${LEADS}/events?wait=1&after=${(answer.body as { next: string }).next}`, tokens.leads!);
    assert.deepEqual(quiet.body, { events: [], next: (answer.body as { next: string }).next });
  });

  it('answers 410 with the oldest cursor once retention removed events after the cursor', async () => {
    const before = await drain(LEADS, tokens.leads2!);
    const old = await postLead(tokens.leads2!, '12ABCDEFGHJ7');
    const kept = await postLead(tokens.leads2!, '12ABCDEFGHJ8');
    await server.pool.query(`UPDATE events SET created_at = now() - interval '40 days' WHERE id = $1`, [old]);
    await server.pool.query(EXPIRE_EVENTS, [1000, server.config.deliveryRetentionDays]);
    const gone = await call('GET', `${LEADS}/events?after=${before.next}`, tokens.leads2!);
    const oldestCursor = (gone.body as Body).oldestCursor as string;
    assertProblem(
      gone,
      410,
      'Gone',
      `Events after this cursor are older than the retention of ${server.config.deliveryRetentionDays} days and were removed; ` +
        'resume from oldestCursor and reconcile the rest by reading the resources themselves.',
      { oldestCursor },
      'cursor-expired',
    );
    assert.deepEqual(
      (await drain(LEADS, tokens.leads2!, '', oldestCursor)).events.map((event) => event.id),
      [kept],
    );
    // From the start, the feed begins with what is left; another agency's feed is untouched.
    assert.ok(!(await drain(LEADS, tokens.leads2!)).events.some((event) => event.id === old));
    assert.equal((await call('GET', `${LEADS}/events?after=${before.next}`, tokens.leads!)).status, 200);
  });
});

describe('GET /events of listing import', () => {
  it('lists listing.created, listing.updated and listing.deleted with the types filter', async () => {
    const { next } = await drain(CLIM, tokens.clim!);
    const body = berlinRentApartment() as unknown as Body;
    body.metadata.source.offererEstateId = 'EV-1';
    const created = await call('POST', `${CLIM}/listings`, tokens.clim!, body);
    assert.equal(created.status, 201, created.text);
    const listingId = (created.body as Body).listingId as string;
    body.metadata.isPublished = false;
    const updated = await call('PUT', `${CLIM}/listings/EV-1`, tokens.clim!, body);
    assert.equal(updated.status, 202, updated.text);
    assert.equal((await call('DELETE', `${CLIM}/listings/EV-1`, tokens.clim!)).status, 202);
    const events = (await drain(CLIM, tokens.clim!, '', next)).events;
    for (const event of events) assertEventShape(event);
    const common = { listingId, externalListingId: 'EV-1' };
    assert.deepEqual(
      events.map(({ type, subject, data }) => ({ type, subject, data })),
      [
        { type: 'listing.created', subject: 'EV-1', data: { ...common, estateType: 'APARTMENT', isPublished: true } },
        { type: 'listing.updated', subject: 'EV-1', data: { ...common, estateType: 'APARTMENT', isPublished: false } },
        { type: 'listing.deleted', subject: 'EV-1', data: common },
      ],
    );
    const deletions = (await drain(CLIM, tokens.clim!, '&types=listing.deleted,listing.media_attached', next)).events;
    assert.deepEqual(
      deletions.map((event) => event.id),
      [events[2]!.id],
    );
  });
});

describe('GET /events of the classifieds API', () => {
  it('lists every status as GET .../statuses has it, and the status webhook’s webhook-id is the event id', async () => {
    const receiver = await Receiver.start();
    try {
      assert.equal((await call('PUT', `${CAAS}/webhooks`, tokens.caas!, { url: `http://${receiver.host}/hooks` })).status, 200);
      const { next } = await drain(CAAS, tokens.caas!);
      const classified = minimalClassified();
      classified.portals = ['SL'];
      classified.data.metaData.source.offererEstateId = 'EV-C1';
      const posted = await call('POST', `${CAAS}/classifieds`, tokens.caas!, classified);
      assert.equal(posted.status, 202, posted.text);
      const id = (posted.body as { classifiedId: string }).classifiedId;
      const statuses = await waitFor(
        'the classified to be processed',
        async () => ((await call('GET', `${CAAS}/classifieds/${id}/statuses`, tokens.caas!)).body as { items: Body[] }).items,
        (items) => items.some((item) => item.stage === 'accepted' || item.stage === 'rejected'),
      );
      const events = (await drain(CAAS, tokens.caas!, '', next)).events;
      for (const event of events) assertEventShape(event);
      assert.deepEqual(
        events.map(({ id: eventId, type, subject, data }) => ({ id: eventId, type, subject, data })),
        [...statuses].reverse().map((item) => ({ id: item.statusId, type: 'classified.status', subject: id, data: item })),
      );
      const delivered = await waitFor(
        'the status webhooks',
        async () => receiver.received.filter((request) => request.path === `/hooks/classifieds/${id}/statuses`),
        (requests) => requests.length >= events.length,
      );
      assert.deepEqual(
        delivered.map((request) => [request.headers['webhook-id'], JSON.parse(request.body).statusId]).sort(),
        events.map((event) => [event.id, event.id]).sort(),
      );
      // The console's deliveries name their event: the webhook-id, while the delivery keeps its own id.
      const session = await ConsoleSession.asClient(server.base, fixture.client, 'agency-1', 'production');
      const listed = await waitFor(
        'the deliveries to be listed as delivered',
        async () => ((await session.request('GET', '/caas/deliveries?limit=100')).body as { items: Body[] }).items,
        (items) => items.filter((item) => item.event?.subjectId === id && item.state === 'DELIVERED').length === events.length,
      );
      const mine = listed.filter((item) => item.event?.subjectId === id);
      assert.deepEqual(mine.map((item) => item.eventId).sort(), events.map((event) => event.id).sort());
      for (const item of mine) assert.notEqual(item.id, item.eventId);
    } finally {
      await receiver.close();
    }
  });
});

describe('the feed under concurrent writers', () => {
  it('never lets a follower skip an event of transactions that commit out of order', async () => {
    // Each run takes fresh transaction ids, so the 40 runs cross decimal boundaries (999 -> 1000): it caught
    // the feed once ordering ids as text there.
    const tenant = { environment: 'production' as const, agencyId: 'agency-prop' };
    // A pool of its own: every transaction of a run holds a connection while the follower reads.
    const pool = new pg.Pool({ connectionString: fixture.database.url, max: 12 });
    let round = 0;
    try {
      await fc
        .assert(
          fc.asyncProperty(
            fc.array(fc.record({ events: fc.integer({ min: 1, max: 3 }), commit: fc.boolean() }), { minLength: 2, maxLength: 8 }),
            fc.infiniteStream(fc.nat()),
            async (transactions, picks) => {
              round += 1;
              const seen: string[] = [];
              let cursor: Cursor = await followToEnd(START, seen);
              seen.length = 0;
              const clients = await Promise.all(transactions.map(() => pool.connect()));
              const committed: string[] = [];
              try {
                // Every transaction takes its positions first, in the order they were opened...
                for (const [n, transaction] of transactions.entries()) {
                  await clients[n]!.query('BEGIN');
                  for (let e = 0; e < transaction.events; e++) {
                    await clients[n]!.query(
                      `INSERT INTO events (environment, agency_id, api, type, subject, data) VALUES ($1, $2, 'leads', 'lead.received', $3, '{}')`,
                      [tenant.environment, tenant.agencyId, `r${round}-t${n}-e${e}`],
                    );
                  }
                }
                // ...then they end in a random order, the follower reading between any two.
                const open = transactions.map((_, n) => n);
                const order = picks[Symbol.iterator]();
                while (open.length > 0) {
                  const n = open.splice((order.next().value as number) % open.length, 1)[0]!;
                  const transaction = transactions[n]!;
                  await clients[n]!.query(transaction.commit ? 'COMMIT' : 'ROLLBACK');
                  if (transaction.commit) for (let e = 0; e < transaction.events; e++) committed.push(`r${round}-t${n}-e${e}`);
                  cursor = await followToEnd(cursor, seen);
                }
              } finally {
                for (const client of clients) client.release();
              }
              // A transaction of the server's own (its worker) older than these holds the last events back until
              // it ends, however long that takes under load; it never lets the follower step past them.
              for (let tries = 0; tries < 500 && seen.length < committed.length; tries++) {
                await sleep(20);
                cursor = await followToEnd(cursor, seen);
              }
              assert.deepEqual([...seen].sort(), [...committed].sort(), `seen ${seen.join(' ')} committed ${committed.join(' ')}`);
              assert.equal(new Set(seen).size, seen.length, 'no event twice');
            },
          ),
          { numRuns: 40 },
        )
        .catch((error: Error) => {
          // fast-check keeps what failed as the cause: show it.
          throw new Error(`${error.message}\n${String((error.cause as Error | undefined)?.message ?? error.cause)}`);
        });
    } finally {
      await pool.end();
    }

    async function followToEnd(after: Cursor, seen: string[]): Promise<Cursor> {
      let cursor = after;
      for (;;) {
        const page = await readFeed(pool, tenant, 'leads', { after: cursor, types: undefined, limit: 3 }, 30);
        seen.push(...page.events.map((event) => event.subject));
        const next = decodeCursor(page.next);
        assert.ok(next);
        if (page.events.length === 0) return next;
        cursor = next;
      }
    }
  });
});
