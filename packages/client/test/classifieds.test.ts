/*
 * The classifieds API through the client, against immogate with its worker: writes and their
 * ETags, reads, every page of the lists, the wait for a write's outcome, problems as ProblemErrors,
 * the status webhook subscription, and the event feed followed by long polls.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TRACEPARENT, useServer } from '../../../test/helpers.js';
import { type Classified, type ClassifiedStatus, type FeedEvent, type ImmogateClient, ProblemError } from '../src/index.js';
import { clientOf, rental } from './helpers.js';

const fixture = useServer({ worker: true, client: { intermediaries: ['agency-1', 'agency-list', 'agency-events'], scopes: ['caas:*'] } });
let client: ImmogateClient;
let counter = 0;

before(async () => {
  await fixture.ready();
  client = clientOf(fixture, 'agency-1');
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function names(statuses: ClassifiedStatus[]): string[] {
  return statuses.map((status) => status.status);
}

/**
 * The problem of the ProblemError `work` throws, as the API sent it but for its instance (the
 * request's traceparent, checked here); the error's own members are checked against it.
 */
async function problemOf(work: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await work.then(
    () => assert.fail('no ProblemError was thrown'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ProblemError, String(error));
  const { instance, ...problem } = error.problem;
  assert.match(String(instance), TRACEPARENT);
  assert.deepEqual(
    [error.status, error.title, error.detail, error.instance, error.errors, error.errorSource],
    [problem.status, problem.title, problem.detail, instance, problem.errors ?? [], problem.errorSource],
  );
  return problem;
}

describe('classifieds', () => {
  it('creates a classified and waits for its outcome', async () => {
    const body = rental(`C-${++counter}`);
    const created = await client.classifieds.create(body);
    assert.match(created.classifiedId, UUID);
    assert.deepEqual({ etag: created.etag, revision: created.revision }, { etag: '"1"', revision: 1 });
    const outcome = await client.classifieds.waitForTerminal(created.classifiedId);
    assert.deepEqual(
      { ...outcome, outcomes: names(outcome.outcomes), statuses: names(outcome.statuses) },
      {
        classifiedId: created.classifiedId,
        revision: 1,
        succeeded: true,
        outcomes: ['CREATED'],
        statuses: ['CREATED', 'CREATING', 'RECEIVED'],
      },
    );
    const [done] = outcome.outcomes;
    assert.deepEqual(
      { portals: done?.portals, message: done?.message, stage: done?.stage },
      { portals: ['SL'], message: 'Accepted on SL', stage: 'accepted' },
    );
    const read = await client.classifieds.get(created.classifiedId);
    assert.deepEqual(read, { classified: { ...body, classifiedId: created.classifiedId }, etag: '"1"', revision: 1 });
  });

  it('waits for every portal: an outcome accepted on one and refused on another is not a success', async () => {
    const { classifiedId } = await client.classifieds.create(rental(`C-${++counter}`, ['SL', 'BD']));
    const outcome = await client.classifieds.waitForTerminal(classifiedId);
    assert.equal(outcome.succeeded, false);
    assert.deepEqual(outcome.outcomes.map((status) => [status.status, status.portals]).sort(), [
      ['CREATED', ['SL']],
      ['CREATING_FAILED', ['BD']],
    ]);
    assert.deepEqual(names(outcome.statuses).slice(2), ['CREATING', 'RECEIVED']);
  });

  it('updates with If-Match, reads with If-None-Match, and throws the 412 of a stale ETag', async () => {
    const body = rental(`C-${++counter}`);
    const { classifiedId } = await client.classifieds.create(body);
    assert.equal(await client.classifieds.get(classifiedId, { ifNoneMatch: '"1"' }), undefined);
    const changed = {
      ...body,
      data: { ...body.data, prices: { currency: 'EUR', rent: { baseRent: { amount: 2100 } } } },
    } satisfies Classified;
    const updated = await client.classifieds.update(classifiedId, changed, { ifMatch: '"1"' });
    assert.deepEqual(updated, { classifiedId, etag: '"2"', revision: 2 });
    assert.deepEqual(await client.classifieds.get(classifiedId, { ifNoneMatch: '"1"' }), {
      classified: { ...changed, classifiedId },
      etag: '"2"',
      revision: 2,
    });
    assert.deepEqual(await problemOf(client.classifieds.update(classifiedId, changed, { ifMatch: '"1"' })), {
      type: '/problems/precondition-failed',
      title: 'Precondition failed',
      status: 412,
      detail: 'If-Match "1" does not match the current ETag "2"',
    });
    const outcome = await client.classifieds.waitForTerminal(classifiedId);
    assert.deepEqual([outcome.revision, names(outcome.outcomes)], [2, ['UPDATED']]);
  });

  it('deletes, waits for DELETED, and the classified is then a 404', async () => {
    const { classifiedId } = await client.classifieds.create(rental(`C-${++counter}`));
    await client.classifieds.waitForTerminal(classifiedId);
    const deleted = await client.classifieds.delete(classifiedId);
    assert.deepEqual(deleted, { classifiedId, etag: '"2"', revision: 2 });
    const outcome = await client.classifieds.waitForTerminal(classifiedId);
    assert.deepEqual([outcome.revision, outcome.succeeded, names(outcome.outcomes)], [2, true, ['DELETED']]);
    assert.deepEqual(await problemOf(client.classifieds.get(classifiedId)), {
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: `No classified ${classifiedId}`,
    });
  });

  it('iterates every page of the list, newest first, and of the statuses', async () => {
    const lister = clientOf(fixture, 'agency-list');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await lister.classifieds.create(rental(`C-${++counter}`))).classifiedId);
    const pages: string[][] = [];
    for await (const page of lister.classifieds.list({ limit: 2 }).pages()) pages.push(page.items.map((item) => item.classifiedId));
    assert.deepEqual(pages, [ids.slice(3).reverse(), ids.slice(1, 3).reverse(), ids.slice(0, 1)]);
    const all: string[] = [];
    for await (const classified of lister.classifieds.list({ limit: 2 })) all.push(classified.classifiedId);
    assert.deepEqual(all, [...ids].reverse());
    const [first] = await lister.classifieds.list({ offererEstateId: `C-${counter - 4}` }).toArray();
    assert.equal(first?.classifiedId, ids[0]);

    const last = ids[4] ?? '';
    await lister.classifieds.waitForTerminal(last);
    const statusPages: string[][] = [];
    for await (const page of lister.classifieds.statuses(last, { limit: 1 }).pages()) statusPages.push(names(page.items));
    assert.deepEqual(statusPages, [['CREATED'], ['CREATING'], ['RECEIVED']]);
    assert.deepEqual(names(await lister.classifieds.statuses(last, { status: ['RECEIVED', 'CREATED'] }).toArray()), [
      'CREATED',
      'RECEIVED',
    ]);
  });

  it('throws a refused body as a ProblemError naming each failure', async () => {
    const body = rental(`C-${++counter}`);
    const refused = { ...body, data: { ...body.data, location: { ...body.data.location, spaceship: 'Enterprise' } } };
    assert.deepEqual(await problemOf(client.classifieds.create(refused)), {
      type: '/problems/bad-request',
      title: 'Bad request',
      status: 400,
      detail: 'Your request has not been validated',
      errors: [{ name: '/data/location/spaceship', reason: 'must NOT have additional properties: spaceship.' }],
      errorSource: 'body',
    });
  });

  it('subscribes to the status webhooks and ends the subscription', async () => {
    await client.classifieds.webhooks.subscribe({
      url: 'https://crm.example.org/immogate',
      statuses: ['CREATED'],
      secret: 'a-secret-of-some-length',
    });
    await client.classifieds.webhooks.unsubscribe();
    const error = await client.classifieds.webhooks.unsubscribe().catch((caught: unknown) => caught);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 404);
  });
});

describe('classifieds.events', () => {
  it('reads the feed from the start, then follows it by long polls until aborted', async () => {
    const follower = clientOf(fixture, 'agency-events');
    const abort = new AbortController();
    const seen: FeedEvent[] = [];
    const first = await follower.classifieds.create(rental(`EV-${++counter}`));
    await follower.classifieds.waitForTerminal(first.classifiedId);
    let second: string | undefined;
    const following = (async () => {
      for await (const event of follower.classifieds.events({ signal: abort.signal, waitSeconds: 10 })) {
        seen.push(event);
        // Once the first classified's statuses are read, the second is written while the iterator long-polls.
        if (seen.length === 3) second = (await follower.classifieds.create(rental(`EV-${++counter}`))).classifiedId;
        if (seen.length === 6) abort.abort();
      }
    })();
    await following;
    assert.ok(second);
    assert.deepEqual(
      seen.map((event) => [event.type, event.subject, (event.data as { status?: string }).status]),
      [
        ['classified.status', first.classifiedId, 'RECEIVED'],
        ['classified.status', first.classifiedId, 'CREATING'],
        ['classified.status', first.classifiedId, 'CREATED'],
        ['classified.status', second, 'RECEIVED'],
        ['classified.status', second, 'CREATING'],
        ['classified.status', second, 'CREATED'],
      ],
    );
    // Resuming after the third event's cursor gives the second classified's statuses again.
    const resumed: string[] = [];
    const again = new AbortController();
    for await (const event of follower.classifieds.events({ after: seen[2]!.cursor, signal: again.signal, waitSeconds: 1 })) {
      resumed.push(event.id);
      if (resumed.length === 3) again.abort();
    }
    assert.deepEqual(
      resumed,
      seen.slice(3).map((event) => event.id),
    );
  });
});
