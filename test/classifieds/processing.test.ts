/*
 * The classifieds worker through real HTTP, a real worker and a media server on loopback: the
 * statuses each write goes through, the per-portal business rules, media downloads and their
 * diff between revisions, ordering of one classified's writes, and re-runs after a crash.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { minimalClassified } from '../fixtures/classifieds.js';
import {
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type HttpResult,
  type TestServer,
  useServer,
} from '../helpers.js';

type Body = Record<string, any>;

const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true' },
  client: { intermediaries: ['agency-1'], scopes: ['caas:*'] },
});
let server: TestServer;
let token: string;
let media: Server;
let mediaBase: string;
const hits = new Map<string, number>();
let counter = 0;

/** Loopback media: /ok/*.jpg an image, /text/* plain text, /missing/* 404, /video/* an mp4. */
function startMediaServer(): Promise<Server> {
  const srv = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.startsWith('/ok/')) response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(2048, 1));
    else if (path.startsWith('/video/')) response.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(4096, 2));
    else if (path.startsWith('/text/')) response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('not a picture');
    else response.writeHead(404).end();
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

before(async () => {
  await fixture.ready();
  server = fixture.server;
  media = await startMediaServer();
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  token = await fixture.token({ root: '/caas/v4', intermediary: 'agency-1' });
});

after(async () => {
  await new Promise((resolve) => media.close(resolve));
});

/** A classified every portal's rules accept: TRADING for BUCOM with a lease right, enough text and surface for BD. */
function acceptable(portals: string[], mediaUrls: string[] = [`/ok/${++counter}.jpg`]): Body {
  const body = minimalClassified();
  body.portals = portals;
  body.data.metaData.source.offererEstateId = `P-${++counter}`;
  body.data.spaces = { spaceMeasureUnit: 'SQUARE_METER', overallSpace: 85 };
  body.data.texts = {
    description: {
      fr: 'Local commercial lumineux en plein centre, vitrine sur rue passante, réserve et sanitaires, idéal pour commerce de proximité ou boutique de créateur, disponible de suite.',
    },
  };
  body.media = mediaUrls.map((url) => ({
    url: url.startsWith('http') ? url : mediaBase + url,
    mediaType: url.startsWith('/video/') ? 'VIDEO' : 'PICTURE',
  }));
  return body;
}

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(method, `${server.base}/caas/v4${path}`, { headers: { authorization: `Bearer ${token}`, ...headers }, body });
}

async function post(body: Body): Promise<string> {
  const result = await call('POST', '/classifieds', body);
  assert.equal(result.status, 202, result.text);
  return (result.body as { classifiedId: string }).classifiedId;
}

const TERMINAL =
  /^(CREATED|CREATED_WITH_MEDIA_ERROR|CREATING_FAILED|UPDATED|UPDATED_WITH_MEDIA_ERROR|UPDATING_FAILED|DELETED|DELETING_FAILED)$/;

interface StatusRow {
  revision: number;
  status: string;
  stage: string;
  portals: string[];
  message: string;
  sub_status_details: string | null;
  media_statuses: { url: string; status: string }[] | null;
}

async function statuses(id: string): Promise<StatusRow[]> {
  const { rows } = await server.pool.query<StatusRow>(
    `SELECT revision, status, stage, portals, message, sub_status_details, media_statuses
       FROM classified_statuses WHERE classified_id = $1 ORDER BY seq`,
    [id],
  );
  return rows;
}

/** Waits (bounded) until `revision` is processed, then returns all statuses of the classified. */
async function processed(id: string, revision: number): Promise<StatusRow[]> {
  await waitFor(
    `revision ${revision} of ${id} to be processed`,
    async () =>
      (
        await server.pool.query(
          'SELECT processed_at IS NOT NULL AS done FROM classified_revisions WHERE classified_id = $1 AND revision = $2',
          [id, revision],
        )
      ).rows[0],
    (row) => row?.done === true,
  );
  return statuses(id);
}

function outcomes(rows: StatusRow[]) {
  return rows.map((row) => [row.revision, row.status, row.stage, row.portals.join(',')]);
}

describe('processing a POST', () => {
  it('goes RECEIVED, CREATING, CREATED with the media downloaded, each status with its stage', async () => {
    const body = acceptable(['SL', 'BD', 'BUCOM'], ['/ok/a1.jpg', '/video/a1.mp4']);
    const id = await post(body);
    const rows = await processed(id, 1);
    assert.deepEqual(outcomes(rows), [
      [1, 'RECEIVED', 'processed', 'SL,BD,BUCOM'],
      [1, 'CREATING', 'analyzed', 'SL,BD,BUCOM'],
      [1, 'CREATED', 'accepted', 'SL,BD,BUCOM'],
    ]);
    assert.deepEqual(rows[2], {
      revision: 1,
      status: 'CREATED',
      stage: 'accepted',
      portals: ['SL', 'BD', 'BUCOM'],
      message: 'Accepted on SL, BD, BUCOM',
      sub_status_details: null,
      media_statuses: [
        { url: `${mediaBase}/ok/a1.jpg`, status: 'CREATED' },
        { url: `${mediaBase}/video/a1.mp4`, status: 'CREATED' },
      ],
    });
    assert.equal(hits.get('/ok/a1.jpg'), 1);
  });

  it('reports media that cannot be downloaded or do not fit their type: CREATED_WITH_MEDIA_ERROR', async () => {
    const id = await post(acceptable(['SL'], ['/ok/b1.jpg', '/missing/b1.jpg', '/text/b1.jpg']));
    const last = (await processed(id, 1)).at(-1)!;
    assert.deepEqual(last, {
      revision: 1,
      status: 'CREATED_WITH_MEDIA_ERROR',
      stage: 'accepted',
      portals: ['SL'],
      message: 'Accepted on SL; 2 of 3 media could not be used',
      sub_status_details: null,
      media_statuses: [
        { url: `${mediaBase}/ok/b1.jpg`, status: 'CREATED' },
        { url: `${mediaBase}/missing/b1.jpg`, status: 'DOWNLOADING_FAILED', reason: 'the server answered 404' },
        { url: `${mediaBase}/text/b1.jpg`, status: 'CREATING_FAILED', reason: 'content type "text/plain" does not fit mediaType PICTURE' },
      ],
    });
    const { rows } = await server.pool.query('SELECT url, fetch_error FROM classified_media WHERE classified_id = $1 ORDER BY url', [id]);
    assert.deepEqual(rows, [
      { url: `${mediaBase}/missing/b1.jpg`, fetch_error: 'the server answered 404' },
      { url: `${mediaBase}/ok/b1.jpg`, fetch_error: null },
      { url: `${mediaBase}/text/b1.jpg`, fetch_error: 'content type "text/plain" does not fit mediaType PICTURE' },
    ]);
  });
});

describe('business rules, one failing case each (and the portals that pass still accept it)', () => {
  const cases: Array<[string, string[], (body: Body) => void, string[], string]> = [
    [
      'BUCOM only for TRADING',
      ['BUCOM', 'SL'],
      (body) => {
        body.data.estateType = 'OFFICE';
        body.data.estateSubType = { office: 'OFFICE_SPACE' };
      },
      ['BUCOM'],
      'BUCOM: BUCOM_TRADING_ONLY: data.estateType must be TRADING to publish on BUCOM, got OFFICE',
    ],
    [
      'BUCOM needs the lease right',
      ['BUCOM', 'SL'],
      (body) => delete body.data.prices.rent.countrySpecific,
      ['BUCOM'],
      'BUCOM: BUCOM_LEASE_RIGHT_REQUIRED: data.prices.rent.countrySpecific.fr.leaseRight is required to publish on BUCOM',
    ],
    [
      'BD needs a picture',
      ['BD', 'SL'],
      (body) => (body.media = [{ url: `${mediaBase}/video/r3.mp4`, mediaType: 'VIDEO' }]),
      ['BD'],
      'BD: BD_PICTURE_REQUIRED: media must contain at least one PICTURE to publish on BD',
    ],
    [
      'BD needs at least 20 m2 when a surface is given',
      ['BD', 'SL'],
      (body) => (body.data.spaces.overallSpace = 12.5),
      ['BD'],
      'BD: BD_MINIMUM_SURFACE: data.spaces.overallSpace must be at least 20 m2 to publish on BD, got 12.5',
    ],
    [
      'BD needs a description of 160 characters',
      ['BD', 'SL'],
      (body) => (body.data.texts.description = { fr: 'Trop court.' }),
      ['BD'],
      'BD: BD_DESCRIPTION_LENGTH: data.texts.description must have at least 160 characters in one language to publish on BD, got 11',
    ],
    [
      'SL needs a rent for a rental',
      ['SL', 'BD'],
      (body) => (body.data.prices.rent.baseRent.amount = 0),
      ['SL'],
      'SL: SL_RENTAL_PRICE_REQUIRED: data.prices.rent.baseRent.amount or data.prices.rent.totalRent.amount must be greater than 0 for a rental on SL',
    ],
    [
      'SL needs a price for a resale',
      ['SL', 'BD'],
      (body) => {
        body.data.distributionType = 'BUY';
        body.data.prices = { buy: { price: { priceInformation: 'PRICE_ON_DEMAND' } } };
      },
      ['SL'],
      'SL: SL_RESALE_PRICE_REQUIRED: data.prices.buy.price.amount must be greater than 0 for a resale on SL',
    ],
  ];
  for (const [name, portals, breakIt, rejected, details] of cases) {
    it(name, async () => {
      const body = acceptable(portals);
      breakIt(body);
      const id = await post(body);
      const rows = await processed(id, 1);
      const accepted = portals.filter((portal) => !rejected.includes(portal));
      assert.deepEqual(outcomes(rows), [
        [1, 'RECEIVED', 'processed', portals.join(',')],
        [1, 'CREATING', 'analyzed', portals.join(',')],
        [1, 'CREATING_FAILED', 'rejected', rejected.join(',')],
        [1, 'CREATED', 'accepted', accepted.join(',')],
      ]);
      assert.equal(rows[2]!.sub_status_details, details);
      assert.equal(rows[2]!.message, `Rejected on ${rejected.join(', ')}: 1 rule violated`);
    });
  }

  it('a technical rule (estateSubType of another estateType) rejects every portal, with every violated rule named', async () => {
    const body = acceptable(['SL', 'BD']);
    body.data.estateSubType = { house: 'VILLA' };
    body.data.texts.description = { fr: 'Court.' };
    const id = await post(body);
    const rows = await processed(id, 1);
    assert.deepEqual(outcomes(rows), [
      [1, 'RECEIVED', 'processed', 'SL,BD'],
      [1, 'CREATING', 'analyzed', 'SL,BD'],
      [1, 'CREATING_FAILED', 'rejected', 'SL,BD'],
    ]);
    const subType =
      'ESTATE_SUB_TYPE_MATCHES_ESTATE_TYPE: data.estateSubType.house does not belong to estateType TRADING (use data.estateSubType.trading)';
    assert.equal(
      rows[2]!.sub_status_details,
      `SL: ${subType} | BD: ${subType}; BD_DESCRIPTION_LENGTH: data.texts.description must have at least 160 characters in one language to publish on BD, got 6`,
    );
    assert.equal(rows[2]!.message, 'Rejected on SL, BD: 2 rules violated');
    // Nothing is downloaded for a classified no portal takes.
    assert.equal(rows[2]!.media_statuses, null);
  });
});

describe('updates and deletes', () => {
  it('diffs media by URL: a kept URL is not fetched again (UPDATED), a new one is (CREATED), a dropped one is removed', async () => {
    const body = acceptable(['SL'], ['/ok/d-kept.jpg', '/ok/d-dropped.jpg']);
    const id = await post(body);
    await processed(id, 1);
    body.media = [
      { url: `${mediaBase}/ok/d-new.jpg`, mediaType: 'PICTURE' },
      { url: `${mediaBase}/ok/d-kept.jpg`, mediaType: 'PICTURE', title: 'now with a title' },
    ];
    assert.equal((await call('PUT', `/classifieds/${id}`, body)).status, 202);
    const rows = await processed(id, 2);
    assert.deepEqual(outcomes(rows).slice(3), [
      [2, 'RECEIVED', 'processed', 'SL'],
      [2, 'UPDATING', 'analyzed', 'SL'],
      [2, 'UPDATED', 'accepted', 'SL'],
    ]);
    assert.deepEqual(rows.at(-1)!.media_statuses, [
      { url: `${mediaBase}/ok/d-new.jpg`, status: 'CREATED' },
      { url: `${mediaBase}/ok/d-kept.jpg`, status: 'UPDATED' },
    ]);
    assert.equal(hits.get('/ok/d-kept.jpg'), 1);
    assert.equal(hits.get('/ok/d-new.jpg'), 1);
    const { rows: left } = await server.pool.query('SELECT url FROM classified_media WHERE classified_id = $1 ORDER BY url', [id]);
    assert.deepEqual(
      left.map((row) => row.url),
      [`${mediaBase}/ok/d-kept.jpg`, `${mediaBase}/ok/d-new.jpg`],
    );
  });

  it('processes a PUT followed at once by a DELETE in order: the classified ends DELETED, never resurrected', async () => {
    const body = acceptable(['SL'], ['/ok/e1.jpg']);
    const id = await post(body);
    body.data.location.city = 'Lyon';
    const [put, del] = [await call('PUT', `/classifieds/${id}`, body), await call('DELETE', `/classifieds/${id}`)];
    assert.deepEqual([put.status, del.status], [202, 202]);
    const rows = await processed(id, 3);
    // Outcomes are recorded in revision order (seq order), whatever the timing of the acknowledgements.
    assert.deepEqual(
      outcomes(rows).filter((row) => TERMINAL.test(row[1] as string)),
      [
        [1, 'CREATED', 'accepted', 'SL'],
        [2, 'UPDATED', 'accepted', 'SL'],
        [3, 'DELETED', 'accepted', 'SL'],
      ],
    );
    const { rows: state } = await server.pool.query('SELECT deleted_at IS NOT NULL AS deleted FROM classifieds WHERE id = $1', [id]);
    assert.deepEqual(state, [{ deleted: true }]);
    const { rows: left } = await server.pool.query('SELECT count(*)::int AS n FROM classified_media WHERE classified_id = $1', [id]);
    assert.deepEqual(left, [{ n: 0 }]);
    // Its offererEstateId and media URL are free again.
    assert.equal((await call('POST', '/classifieds', body)).status, 202);
  });

  it('a revision processed again (after a crash) adds no status twice, sends no webhook twice and fetches nothing twice', async () => {
    const id = await post(acceptable(['SL'], ['/ok/f1.jpg']));
    const before = await processed(id, 1);
    // Undo the "processed" mark and queue the classified again, as if a worker had crashed just
    // before its outcome committed (with the statuses of a step and an outcome already there).
    await server.pool.query('UPDATE classified_revisions SET processed_at = NULL WHERE classified_id = $1', [id]);
    await server.pool.query(
      "INSERT INTO caas_processing_queue (classified_id, environment, agency_id) VALUES ($1, 'production', 'agency-1')",
      [id],
    );
    await processed(id, 1);
    await waitFor(
      'the queue row to go',
      async () => (await server.pool.query('SELECT 1 FROM caas_processing_queue WHERE classified_id = $1', [id])).rowCount,
      (count) => count === 0,
    );
    assert.deepEqual(await statuses(id), before);
    assert.equal(hits.get('/ok/f1.jpg'), 1);
  });
});

describe('media address policy', () => {
  it('refuses loopback media when ALLOW_PRIVATE_TARGETS is off: DOWNLOADING_FAILED, nothing fetched', async () => {
    const strictDatabase = await createTestDatabase();
    const strict = await startTestServer(strictDatabase, { worker: true });
    try {
      const client = await makeClient(strict.pool, ['agency-1'], ['caas:*']);
      const strictToken = await getToken(strict, client, { root: '/caas/v4', intermediary: 'agency-1' });
      const result = await http('POST', `${strict.base}/caas/v4/classifieds`, {
        headers: { authorization: `Bearer ${strictToken}` },
        body: acceptable(['SL'], ['/ok/ssrf.jpg']),
      });
      const id = (result.body as { classifiedId: string }).classifiedId;
      const last = await waitFor(
        'the outcome',
        async () =>
          (
            await strict.pool.query(
              "SELECT status, media_statuses FROM classified_statuses WHERE classified_id = $1 AND stage = 'accepted'",
              [id],
            )
          ).rows[0],
        (row) => row !== undefined,
      );
      assert.deepEqual(last, {
        status: 'CREATED_WITH_MEDIA_ERROR',
        media_statuses: [
          {
            url: `${mediaBase}/ok/ssrf.jpg`,
            status: 'DOWNLOADING_FAILED',
            reason:
              'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
          },
        ],
      });
      const { rows } = await strict.pool.query('SELECT fetch_error FROM classified_media WHERE classified_id = $1', [id]);
      assert.match(
        rows[0].fetch_error,
        /^refused to connect to 127\.0\.0\.1: .* address; to reach it from the sandbox, run in dev mode \(npm run dev\); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true$/,
      );
      assert.equal(hits.get('/ok/ssrf.jpg'), undefined);
    } finally {
      await strict.close();
      await strictDatabase.drop();
    }
  });
});
