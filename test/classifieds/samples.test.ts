/*
 * The worker's outcome for each sample media, with the classifieds of examples/: CREATED, and
 * CREATED_WITH_MEDIA_ERROR with the reason of each failure. The server refuses private targets
 * (ALLOW_PRIVATE_TARGETS unset) and its PUBLIC_URL is on loopback: the samples are fetched in
 * process, while any other loopback URL stays refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { cachedTokens, http, REPO_ROOT, type TestServer, useServer, waitFor } from '../helpers.js';

const fixture = useServer({ worker: true, client: { intermediaries: ['agency-s'], scopes: ['caas:*'] } });
let server: TestServer;
const token = cachedTokens('/caas/v4', () => fixture);

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

/** An example of examples/ as it is: its media name the samples by SAMPLES_ORIGIN, whatever this server's port. */
function example(name: string, estateId: string): Record<string, any> {
  const body = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', name), 'utf8'));
  body.data.metaData.source.offererEstateId = estateId;
  return body;
}

async function outcome(environment: 'production' | 'sandbox', body: unknown): Promise<Record<string, unknown>> {
  const root = `${server.base}${environment === 'sandbox' ? '/sandbox' : ''}/caas/v4`;
  const headers = { authorization: `Bearer ${await token('agency-s', environment)}` };
  const created = await http('POST', `${root}/classifieds`, { headers, body });
  assert.equal(created.status, 202, created.text);
  const id = (created.body as { classifiedId: string }).classifiedId;
  const latest = await waitFor(
    `the outcome of ${id}`,
    async () =>
      (await http('GET', `${root}/classifieds/${id}/statuses?filter=latest&limit=1`, { headers })).body as {
        items: Record<string, unknown>[];
      },
    (page) => ['accepted', 'rejected'].includes(String(page.items[0]?.stage)),
  );
  const { statusId: _s, classifiedId: _c, creationDate: _d, statusDate: _t, ...status } = latest.items[0] ?? {};
  return status;
}

describe('sample media processed by the worker', () => {
  for (const environment of ['sandbox', 'production'] as const) {
    it(`${environment}: a picture, a floor plan and a video: CREATED`, async () => {
      const at = (name: string) => `http://samples.immogate.invalid/${name}`;
      assert.deepEqual(await outcome(environment, example('classified-created.json', `S-1-${environment}`)), {
        customerId: 'agency-s',
        revision: 1,
        portals: ['SL'],
        status: 'CREATED',
        message: 'Accepted on SL',
        stage: 'accepted',
        mediaStatuses: [
          { url: at('living-room.jpg'), status: 'CREATED' },
          { url: at('floor-plan.png'), status: 'CREATED' },
          { url: at('tour.mp4'), status: 'CREATED' },
        ],
      });
    });

    it(`${environment}: a 404 and an error page: CREATED_WITH_MEDIA_ERROR with each reason`, async () => {
      const at = (name: string) => `http://samples.immogate.invalid/${name}`;
      assert.deepEqual(await outcome(environment, example('classified-media-error.json', `S-2-${environment}`)), {
        customerId: 'agency-s',
        revision: 1,
        portals: ['SL'],
        status: 'CREATED_WITH_MEDIA_ERROR',
        message: 'Accepted on SL; 2 of 3 media could not be used',
        stage: 'accepted',
        mediaStatuses: [
          { url: at('kitchen.jpg'), status: 'CREATED' },
          { url: at('missing.jpg'), status: 'DOWNLOADING_FAILED', reason: 'the server answered 404' },
          { url: at('not-an-image.jpg'), status: 'CREATING_FAILED', reason: 'content type "text/html" does not fit mediaType PICTURE' },
        ],
      });
    });
  }

  it('a video sent as a PICTURE is refused for its type; a picture as a VIRTUAL_TOUR fits', async () => {
    const body = example('classified-created.json', 'S-3');
    body.media = [
      { url: `${server.base}/samples/tour.mp4?as=picture`, mediaType: 'PICTURE' },
      { url: `${server.base}/samples/kitchen.jpg?as=tour`, mediaType: 'VIRTUAL_TOUR' },
    ];
    const status = await outcome('sandbox', body);
    assert.deepEqual(status.mediaStatuses, [
      {
        url: `${server.base}/samples/tour.mp4?as=picture`,
        status: 'CREATING_FAILED',
        reason: 'content type "video/mp4" does not fit mediaType PICTURE',
      },
      { url: `${server.base}/samples/kitchen.jpg?as=tour`, status: 'CREATED' },
    ]);
  });

  it('the address policy still holds for every other URL of the same loopback origin', async () => {
    const body = example('classified-created.json', 'S-4');
    body.media = [{ url: `${server.base}/health`, mediaType: 'PICTURE' }];
    const status = await outcome('sandbox', body);
    assert.deepEqual(status.mediaStatuses, [
      {
        url: `${server.base}/health`,
        status: 'DOWNLOADING_FAILED',
        reason:
          'refused to connect to 127.0.0.1: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
      },
    ]);
  });

  it('examples/classified-refused.json ends CREATING_FAILED on BD with its three rules', async () => {
    const status = await outcome('sandbox', example('classified-refused.json', 'S-5'));
    assert.deepEqual(status, {
      customerId: 'agency-s',
      revision: 1,
      portals: ['BD'],
      status: 'CREATING_FAILED',
      message: 'Rejected on BD: 3 rules violated',
      stage: 'rejected',
      subStatusDetails:
        'BD: BD_PICTURE_REQUIRED: media must contain at least one PICTURE to publish on BD; BD_MINIMUM_SURFACE: data.spaces.overallSpace must be at least 20 m2 to publish on BD, got 14; BD_DESCRIPTION_LENGTH: data.texts.description must have at least 160 characters in one language to publish on BD, got 23',
    });
  });
});
