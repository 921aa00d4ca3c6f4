/*
 * The classifieds write path through real HTTP: POST, PUT and DELETE are acknowledged with 202
 * only once the revision, its RECEIVED status and its processing queue row are committed; the
 * spec's rules refuse bad writes whole. The worker is off here, so what is queued stays visible.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TRACEPARENT, assertProblem, http, type HttpResult, type TestServer, useServer } from '../helpers.js';
import { minimalClassified, realisticClassified } from '../fixtures/classifieds.js';
import { assertContract } from '../fixtures/contract.js';

const fixture = useServer({ client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*'] } });
let server: TestServer;
let token: string;
let otherAgencyToken: string;
let sandboxToken: string;
let readOnlyToken: string;
let estateCounter = 0;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  token = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1' });
  otherAgencyToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-2' });
  sandboxToken = await fixture.token({ root: '/sandbox/caas/v4', intermediary: 'agency-1' });
  readOnlyToken = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1', scope: 'caas:classifieds:read' });
});

type Body = Record<string, any>;

/** A minimal classified with its own offererEstateId (and media URLs, if asked). */
function classified(options: { estateId?: string; media?: string[] } = {}): Body {
  const body = minimalClassified();
  estateCounter += 1;
  body.data.metaData.source.offererEstateId = options.estateId ?? `W-${estateCounter}`;
  if (options.media) body.media = options.media.map((url) => ({ url, mediaType: 'PICTURE' }));
  return body;
}

function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  root = '/caas/v4',
  bearer = token,
): Promise<HttpResult> {
  return http(method, `${server.base}${root}${path}`, { headers: { authorization: `Bearer ${bearer}`, ...headers }, body });
}

/** A whole problem (see assertProblem), which is at least the contract's ErrorResponse too. */
function problem(
  result: HttpResult,
  ...expected: Parameters<typeof assertProblem> extends [HttpResult, ...infer Rest] ? Rest : never
): void {
  assertProblem(result, ...expected);
  assertContract('createClassified', 'default', result.body);
}

const OPERATIONS: Record<string, string> = { POST: 'createClassified', PUT: 'updateClassified', DELETE: 'deleteClassified' };

function acknowledged(result: HttpResult, revision: number, method = 'POST'): string {
  assert.equal(result.status, 202, result.text);
  assertContract(OPERATIONS[method]!, 202, result.body);
  const body = result.body as { classifiedId: string };
  assert.match(body.classifiedId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(result.body, { classifiedId: body.classifiedId, links: [{ statuses: `/classifieds/${body.classifiedId}/statuses` }] });
  assert.equal(result.headers.get('etag'), `"${revision}"`);
  assert.match(result.headers.get('traceparent') ?? '', TRACEPARENT);
  return body.classifiedId;
}

async function statusesOf(id: string): Promise<Body[]> {
  const { rows } = await server.pool.query(
    `SELECT revision, status, sub_status, stage, portals, message FROM classified_statuses WHERE classified_id = $1 ORDER BY seq`,
    [id],
  );
  return rows;
}

/** The classified's row in the processing queue, with the revisions waiting there. */
async function queuedOf(id: string): Promise<Body[]> {
  const { rows } = await server.pool.query(
    `SELECT q.environment, q.agency_id, q.claimed_by,
            ARRAY(SELECT revision FROM classified_revisions r WHERE r.classified_id = q.classified_id AND r.processed_at IS NULL ORDER BY revision) AS revisions
       FROM caas_processing_queue q WHERE q.classified_id = $1`,
    [id],
  );
  return rows;
}

async function pendingRevisions(id: string): Promise<number[]> {
  return (await queuedOf(id)).flatMap((row) => row.revisions);
}

async function count(table: string): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}

async function tableCounts(): Promise<number[]> {
  return Promise.all(['classifieds', 'classified_revisions', 'classified_media', 'classified_statuses'].map(count));
}

describe('POST /classifieds', () => {
  it('acknowledges a large realistic classified with 202, its revision, RECEIVED status and processing queue row committed', async () => {
    const body = realisticClassified();
    const id = acknowledged(await call('POST', '/classifieds', body), 1);
    const { rows } = await server.pool.query(
      'SELECT environment, agency_id, offerer_estate_id, revision, payload FROM classifieds WHERE id = $1',
      [id],
    );
    assert.deepEqual(rows, [
      {
        environment: 'production',
        agency_id: 'agency-1',
        offerer_estate_id: body.data.metaData.source.offererEstateId,
        revision: 1,
        payload: body,
      },
    ]);
    assert.deepEqual(await statusesOf(id), [
      {
        revision: 1,
        status: 'RECEIVED',
        sub_status: 'RECEIVED_POST',
        stage: 'processed',
        portals: body.portals,
        message: 'The POST of revision 1 was received and is queued for processing',
      },
    ]);
    assert.deepEqual(await queuedOf(id), [{ environment: 'production', agency_id: 'agency-1', claimed_by: null, revisions: [1] }]);
    const media = await server.pool.query('SELECT url FROM classified_media WHERE classified_id = $1 ORDER BY url', [id]);
    assert.deepEqual(
      media.rows.map((row) => row.url),
      body.media!.map((m) => m.url).sort(),
    );
  });

  it('refuses an unknown member deep in the tree and writes nothing', async () => {
    const before = await tableCounts();
    const body = classified();
    body.data.location.spaceship = 'yes';
    problem(await call('POST', '/classifieds', body), 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: '/data/location/spaceship', reason: 'must NOT have additional properties: spaceship.' }],
      errorSource: 'body',
    });
    assert.deepEqual(await tableCounts(), before);
  });

  it('refuses an enum violation listing the allowed values', async () => {
    const body = classified();
    body.data.estateSubType = { trading: 'CASTLE' };
    problem(await call('POST', '/classifieds', body), 400, 'Bad request', 'Your request has not been validated', {
      errors: [
        {
          name: '/data/estateSubType/trading',
          reason: 'must be equal to one of the allowed values: STORE, SHOWROOM_SPACE, SHOPPING_CENTRE, KIOSK, SALES_AREA.',
        },
      ],
      errorSource: 'body',
    });
  });

  it('refuses more than five portals and repeated portals', async () => {
    const body = classified();
    body.portals = ['SL', 'BD', 'SL'];
    problem(await call('POST', '/classifieds', body), 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: '/portals', reason: 'must NOT have duplicate items (items ## 2 and 0 are identical).' }],
      errorSource: 'body',
    });
    body.portals = ['SL', 'BD', 'BUCOM', 'SLC', 'SLN', 'SL'];
    const result = await call('POST', '/classifieds', body);
    assert.equal(result.status, 400);
    assert.deepEqual((result.body as { errors: unknown[] }).errors[0], { name: '/portals', reason: 'must NOT have more than 5 items.' });
  });

  it('refuses an offererEstateId already used by a classified of the offerer (Duplicated classified)', async () => {
    const first = acknowledged(await call('POST', '/classifieds', classified({ estateId: 'DUP-1' })), 1);
    const before = await tableCounts();
    problem(
      await call('POST', '/classifieds', classified({ estateId: 'DUP-1' })),
      400,
      'Duplicated classified',
      `A classified with offererEstateId "DUP-1" already exists: classifiedId ${first}`,
    );
    assert.deepEqual(await tableCounts(), before);
  });

  it('lets another agency and the other environment use the same offererEstateId', async () => {
    acknowledged(await call('POST', '/classifieds', classified({ estateId: 'SHARED-1' })), 1);
    acknowledged(await call('POST', '/classifieds', classified({ estateId: 'SHARED-1' }), {}, '/caas/v4', otherAgencyToken), 1);
    acknowledged(await call('POST', '/classifieds', classified({ estateId: 'SHARED-1' }), {}, '/sandbox/caas/v4', sandboxToken), 1);
  });

  it('acknowledges exactly one of several simultaneous POSTs of one offererEstateId', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/classifieds', classified({ estateId: 'RACE-1' }))));
    const accepted = results.filter((result) => result.status === 202);
    assert.equal(accepted.length, 1);
    const id = (accepted[0]!.body as { classifiedId: string }).classifiedId;
    for (const result of results.filter((r) => r.status !== 202)) {
      problem(result, 400, 'Duplicated classified', `A classified with offererEstateId "RACE-1" already exists: classifiedId ${id}`);
    }
  });

  it('refuses a media url already sent for another classified of the offerer (Duplicated media)', async () => {
    const url = 'https://cdn.example.org/dup/1.jpg';
    const owner = acknowledged(await call('POST', '/classifieds', classified({ media: [url] })), 1);
    const { rows } = await server.pool.query('SELECT media_id FROM classified_media WHERE url = $1', [url]);
    const before = await tableCounts();
    problem(
      await call('POST', '/classifieds', classified({ media: ['https://cdn.example.org/dup/0.jpg', url] })),
      400,
      'Duplicated media',
      `The media url "${url}" was already sent as mediaId ${rows[0].media_id} of classifiedId ${owner}`,
    );
    assert.deepEqual(await tableCounts(), before);
    // Another agency may use the same URL.
    acknowledged(await call('POST', '/classifieds', classified({ media: [url] }), {}, '/caas/v4', otherAgencyToken), 1);
  });

  it('names a classified sent again (its offererEstateId and its media both taken) as Duplicated classified', async () => {
    const body = classified({ media: ['https://cdn.example.org/again/1.jpg'] });
    const owner = acknowledged(await call('POST', '/classifieds', body), 1);
    const before = await tableCounts();
    problem(
      await call('POST', '/classifieds', body),
      400,
      'Duplicated classified',
      `A classified with offererEstateId "${body.data.metaData.source.offererEstateId}" already exists: classifiedId ${owner}`,
    );
    assert.deepEqual(await tableCounts(), before);
  });

  it('refuses the same media url twice in one body', async () => {
    const url = 'https://cdn.example.org/twice.jpg';
    problem(
      await call('POST', '/classifieds', classified({ media: [url, 'https://cdn.example.org/other.jpg', url] })),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [{ name: '/media/2/url', reason: 'duplicates /media/0/url: a media url must be unique.' }],
        errorSource: 'body',
      },
    );
  });

  it('refuses data.contact together with a contact block under specific (Colliding information)', async () => {
    const body = classified();
    body.data.contact = { mainContactPersonId: 'agent-7' };
    body.specific = { gsl: { mainContactPerson: { name: 'Jeanne Martin', email: 'jeanne@example.org' } } };
    problem(await call('POST', '/classifieds', body), 400, 'Bad request', 'Colliding information', {
      errors: [
        { name: 'data.contact.*', reason: 'must not be set together with specific.portal.contact.* (specific.gsl.mainContactPerson).' },
        { name: 'specific.portal.contact.*', reason: 'must not be set together with data.contact.*.' },
      ],
      errorSource: 'body',
    });
  });

  it('needs the caas:classifieds:create scope', async () => {
    problem(
      await call('POST', '/classifieds', classified(), {}, '/caas/v4', readOnlyToken),
      403,
      'Forbidden',
      'The access token lacks the scope caas:classifieds:create',
    );
  });
});

describe('PUT /classifieds/{classifiedId}', () => {
  it('updates with a matching If-Match, and without one; each write grows the ETag', async () => {
    const body = classified();
    const id = acknowledged(await call('POST', '/classifieds', body), 1);
    body.data.location.city = 'Lyon';
    acknowledged(await call('PUT', `/classifieds/${id}`, body, { 'if-match': '"1"' }), 2, 'PUT');
    body.data.location.city = 'Lille';
    acknowledged(await call('PUT', `/classifieds/${id}`, body), 3, 'PUT');
    const { rows } = await server.pool.query(
      "SELECT revision, payload -> 'data' -> 'location' ->> 'city' AS city FROM classifieds WHERE id = $1",
      [id],
    );
    assert.deepEqual(rows, [{ revision: 3, city: 'Lille' }]);
    assert.deepEqual(await pendingRevisions(id), [1, 2, 3]);
  });

  it('answers 412 to an If-Match that is not the current ETag, and changes nothing', async () => {
    const body = classified();
    const id = acknowledged(await call('POST', '/classifieds', body), 1);
    const before = await tableCounts();
    body.data.location.city = 'Lyon';
    problem(
      await call('PUT', `/classifieds/${id}`, body, { 'if-match': '"7"' }),
      412,
      'Precondition failed',
      'If-Match "7" does not match the current ETag "1"',
    );
    assert.deepEqual(await tableCounts(), before);
    const { rows } = await server.pool.query(
      "SELECT revision, payload -> 'data' -> 'location' ->> 'city' AS city FROM classifieds WHERE id = $1",
      [id],
    );
    assert.deepEqual(rows, [{ revision: 1, city: 'Paris' }]);
  });

  it('records a PUT equal to the current payload as an unchanged update, with nothing to process', async () => {
    const body = classified();
    const id = acknowledged(await call('POST', '/classifieds', body), 1);
    // Same content, members in another order.
    const reordered = { data: body.data, portals: body.portals };
    acknowledged(await call('PUT', `/classifieds/${id}`, reordered), 2, 'PUT');
    assert.deepEqual((await statusesOf(id)).slice(1), [
      {
        revision: 2,
        status: 'RECEIVED',
        sub_status: 'RECEIVED_PUT',
        stage: 'processed',
        portals: ['BUCOM'],
        message: 'The PUT of revision 2 was received and is queued for processing',
      },
      {
        revision: 2,
        status: 'UPDATED',
        sub_status: null,
        stage: 'accepted',
        portals: ['BUCOM'],
        message: 'Unchanged: the payload equals revision 1; nothing was processed',
      },
    ]);
    assert.deepEqual(await pendingRevisions(id), [1]);
  });

  it('stores each payload once: the latest revision reads the classified’s, an older one keeps its own copy', async () => {
    const body = classified();
    const id = acknowledged(await call('POST', '/classifieds', body), 1);
    const revisions = async () =>
      (await server.pool.query('SELECT revision, payload FROM classified_revisions WHERE classified_id = $1 ORDER BY revision', [id])).rows;
    assert.deepEqual(await revisions(), [{ revision: 1, payload: null }]);
    const changed = structuredClone(body);
    changed.data.location.city = 'Lyon';
    acknowledged(await call('PUT', `/classifieds/${id}`, changed), 2, 'PUT');
    assert.deepEqual(await revisions(), [
      { revision: 1, payload: body },
      { revision: 2, payload: null },
    ]);
    // Unchanged and DELETE revisions carry none either; the copy is not taken again.
    acknowledged(await call('PUT', `/classifieds/${id}`, changed), 3, 'PUT');
    acknowledged(await call('DELETE', `/classifieds/${id}`), 4, 'DELETE');
    assert.deepEqual(await revisions(), [
      { revision: 1, payload: body },
      { revision: 2, payload: null },
      { revision: 3, payload: null },
      { revision: 4, payload: null },
    ]);
    const { rows } = await server.pool.query('SELECT payload FROM classifieds WHERE id = $1', [id]);
    assert.deepEqual(rows, [{ payload: changed }]);
  });

  it('replaces the media URLs: kept ones keep their mediaId, new ones get one, dropped ones are freed', async () => {
    const kept = 'https://cdn.example.org/diff/kept.jpg';
    const dropped = 'https://cdn.example.org/diff/dropped.jpg';
    const added = 'https://cdn.example.org/diff/added.jpg';
    const id = acknowledged(await call('POST', '/classifieds', classified({ estateId: 'DIFF-1', media: [kept, dropped] })), 1);
    const mediaIds = async () =>
      Object.fromEntries(
        (await server.pool.query('SELECT url, media_id FROM classified_media WHERE classified_id = $1', [id])).rows.map((r) => [
          r.url,
          r.media_id,
        ]),
      );
    const before = await mediaIds();
    acknowledged(await call('PUT', `/classifieds/${id}`, classified({ estateId: 'DIFF-1', media: [added, kept] })), 2, 'PUT');
    const afterPut = await mediaIds();
    assert.deepEqual(Object.keys(afterPut).sort(), [added, kept].sort());
    assert.equal(afterPut[kept], before[kept]);
    // The dropped URL may now be used by another classified.
    acknowledged(await call('POST', '/classifieds', classified({ media: [dropped] })), 1);
  });

  it('refuses a PUT that takes the offererEstateId of another classified', async () => {
    const other = acknowledged(await call('POST', '/classifieds', classified({ estateId: 'TAKEN-1' })), 1);
    const id = acknowledged(await call('POST', '/classifieds', classified({ estateId: 'MINE-1' })), 1);
    problem(
      await call('PUT', `/classifieds/${id}`, classified({ estateId: 'TAKEN-1' })),
      400,
      'Duplicated classified',
      `A classified with offererEstateId "TAKEN-1" already exists: classifiedId ${other}`,
    );
  });

  it("answers 404 for an unknown classified, another agency's, and the other environment's; 400 for a malformed id", async () => {
    const id = acknowledged(await call('POST', '/classifieds', classified()), 1);
    const unknown = '6f1c1f3e-2a7b-4c1e-9d7a-0b3e5c2d1a90';
    problem(await call('PUT', `/classifieds/${unknown}`, classified()), 404, 'Not found', `No classified ${unknown}`);
    problem(
      await call('PUT', `/classifieds/${id}`, classified(), {}, '/caas/v4', otherAgencyToken),
      404,
      'Not found',
      `No classified ${id}`,
    );
    problem(
      await call('PUT', `/classifieds/${id}`, classified(), {}, '/sandbox/caas/v4', sandboxToken),
      404,
      'Not found',
      `No classified ${id}`,
    );
    problem(await call('PUT', '/classifieds/not-a-uuid', classified()), 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'classifiedId', reason: 'must match format "uuid".' }],
      errorSource: 'requestParameter',
    });
  });
});

describe('DELETE /classifieds/{classifiedId}', () => {
  it('acknowledges with a new revision to process; a repeated DELETE is acknowledged again with nothing new; a PUT after it is 404', async () => {
    const id = acknowledged(await call('POST', '/classifieds', classified()), 1);
    acknowledged(await call('DELETE', `/classifieds/${id}`), 2, 'DELETE');
    acknowledged(await call('DELETE', `/classifieds/${id}`), 2, 'DELETE');
    assert.deepEqual(await pendingRevisions(id), [1, 2]);
    assert.deepEqual((await statusesOf(id)).at(-1), {
      revision: 2,
      status: 'RECEIVED',
      sub_status: 'RECEIVED_DELETE',
      stage: 'processed',
      portals: ['BUCOM'],
      message: 'The DELETE of revision 2 was received and is queued for processing',
    });
    problem(await call('PUT', `/classifieds/${id}`, classified()), 404, 'Not found', `No classified ${id}`);
  });

  it("answers 404 for another agency's classified and leaves it alone", async () => {
    const id = acknowledged(await call('POST', '/classifieds', classified()), 1);
    problem(
      await call('DELETE', `/classifieds/${id}`, undefined, {}, '/caas/v4', otherAgencyToken),
      404,
      'Not found',
      `No classified ${id}`,
    );
    assert.deepEqual(await pendingRevisions(id), [1]);
  });
});
