/*
 * The listing import in the console and its validation extension, through real HTTP: a listing's
 * details (rules' warnings, media, the sandbox's expiry), and POST /listings/validate reporting
 * the schema, the rules, an externalListingId in use and unusable media, storing nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { ConsoleSession } from '../fixtures/console.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { assertProblem, http, USER_AGENT, useServer } from '../helpers.js';

type Body = Record<string, any>;

const DAY_MS = 24 * 3600 * 1000;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-listing-console-'));
const fixture = useServer({ env: { DATA_DIR: dataDir }, client: { intermediaries: ['agency-1'], scopes: ['clim:*'] } });

let session: ConsoleSession;

before(async () => {
  await fixture.ready();
  session = await ConsoleSession.asClient(fixture.server.base, fixture.client, 'agency-1');
});

function listing(externalId: string, change: (body: Body) => void = () => undefined): Body {
  const body: Body = berlinRentApartment();
  body.metadata.source.offererEstateId = externalId;
  change(body);
  return body;
}

/** A media uploaded through its presigned URL. */
async function uploadedMedia(externalMediaId: string): Promise<void> {
  const asked = await session.request('POST', '/clim/medias', { body: { externalMediaId, fileName: 'living-room.jpg' } });
  assert.equal(asked.status, 201, asked.text);
  const { presignedURL } = asked.body as { presignedURL: string };
  const put = await fetch(presignedURL, {
    method: 'PUT',
    headers: { 'content-type': 'image/jpeg', 'user-agent': USER_AGENT },
    body: new Uint8Array(Buffer.alloc(3000, 7)),
  });
  assert.equal(put.status, 200, await put.text());
}

describe('a listing in the console', () => {
  it('shows its details: the warnings its rules find, its media, when the sandbox removes it', async () => {
    await uploadedMedia('photo-1');
    const body = listing('console-1', (b) => {
      delete b.data.location.geometry;
      b.media = [{ externalMediaId: 'photo-1' }];
    });
    const created = await session.request('POST', '/clim/listings', { body });
    assert.equal(created.status, 201, created.text);
    const details = await session.request('GET', '/clim/listings/console-1/details');
    assert.equal(details.status, 200, details.text);
    const found = details.body as Body;
    assert.equal(new Date(found.expiresAt).getTime() - new Date(found.lastWriteAt).getTime(), 90 * DAY_MS);
    assert.deepEqual(found, {
      listingId: (created.body as Body).listingId,
      externalListingId: 'console-1',
      isPublished: true,
      createdAt: found.createdAt,
      lastWriteAt: found.lastWriteAt,
      expiresAt: found.expiresAt,
      warnings: [{ type: 'IMPRECISE_LOCATION', message: 'The location has no geometry: the listing is placed by its address.' }],
      media: [{ externalMediaId: 'photo-1', fileName: 'living-room.jpg', state: 'ATTACHED', contentType: 'image/jpeg', sizeBytes: 3000 }],
    });
    assertProblem(
      await session.request('GET', '/clim/listings/nobody/details'),
      404,
      'Not found',
      'No listing with externalListingId "nobody"',
    );
  });
});

describe('POST /listings/validate', () => {
  it('answers valid with the warnings a create would give, and stores nothing', async () => {
    const body = listing('validate-ok', (b) => delete b.data.location.geometry);
    const result = await session.request('POST', '/clim/listings/validate', { body });
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.body, {
      valid: true,
      errors: [],
      warnings: [{ type: 'IMPRECISE_LOCATION', message: 'The location has no geometry: the listing is placed by its address.' }],
    });
    assertProblem(
      await session.request('GET', '/clim/listings/validate-ok'),
      404,
      'Not found',
      'No listing with externalListingId "validate-ok"',
    );
  });

  it('names the rules a body breaks, a schema error, an externalListingId in use and a media not uploaded', async () => {
    const broken = listing('validate-broken', (b) => (b.data.estateSubType = 'VILLA'));
    assert.deepEqual((await session.request('POST', '/clim/listings/validate', { body: broken })).body, {
      valid: false,
      errors: [
        {
          name: '/data/estateSubType',
          reason:
            'rule 6: estateSubType VILLA does not match estateType APARTMENT; allowed: MULTI_STOREY, FLATSHARING_ROOM, LOFT, PENTHOUSE, STUDIO, TERRACE, UNFINISHED_ATTIC_SPACE.',
        },
      ],
      warnings: [],
    });
    const unknownMember = listing('validate-schema', (b) => (b.data.spaceship = true));
    assert.deepEqual((await session.request('POST', '/clim/listings/validate', { body: unknownMember })).body, {
      valid: false,
      errors: [{ name: '/data/spaceship', reason: 'must NOT have additional properties: spaceship.' }],
      warnings: [],
    });
    const created = await session.request('POST', '/clim/listings', { body: listing('taken') });
    assert.equal(created.status, 201, created.text);
    const taken = listing('taken', (b) => (b.media = [{ externalMediaId: 'never-asked' }]));
    assert.deepEqual((await session.request('POST', '/clim/listings/validate', { body: taken })).body, {
      valid: false,
      errors: [{ name: '/metadata/source/offererEstateId', reason: 'externalListingId "taken" already exists.' }],
      warnings: [],
    });
    const missingMedia = listing('validate-media', (b) => (b.media = [{ externalMediaId: 'never-asked' }]));
    assert.deepEqual((await session.request('POST', '/clim/listings/validate', { body: missingMedia })).body, {
      valid: false,
      errors: [
        {
          name: '/media/0/externalMediaId',
          reason: 'is not a media of this agency: request its upload with POST /medias first ("never-asked").',
        },
      ],
      warnings: [],
    });
  });

  it('is an API extension with the create scope: a read-only token is refused', async () => {
    const token = await fixture.token({ root: '/sandbox/import-listings/v1', intermediary: 'agency-1', scope: 'clim:listings:read' });
    const result = await http('POST', `${fixture.server.base}/sandbox/import-listings/v1/listings/validate`, {
      headers: { authorization: `Bearer ${token}` },
      body: listing('validate-scope'),
    });
    assertProblem(result, 403, 'Forbidden', 'The access token lacks the scope clim:listings:create');
  });
});

describe('the listings in the console', () => {
  it('GET /console/api/clim/recent-listings: newest first, the API’s GET /listings (oldest first) reversed', async () => {
    for (const id of ['recent-1', 'recent-2', 'recent-3']) {
      const created = await session.request('POST', '/clim/listings', { body: listing(id) });
      assert.equal(created.status, 201, created.text);
    }
    const api = await session.request('GET', '/clim/listings');
    assert.equal(api.status, 200, api.text);
    const oldestFirst = (api.body as { externalListingIds: string[] }).externalListingIds;
    assert.deepEqual(oldestFirst.slice(-3), ['recent-1', 'recent-2', 'recent-3']);
    const recent = await session.request('GET', '/clim/recent-listings');
    assert.equal(recent.status, 200, recent.text);
    assert.deepEqual(recent.body, { externalListingIds: [...oldestFirst].reverse(), nextPageToken: null });
    assertProblem(
      await session.request('GET', '/clim/recent-listings?nextPageToken=nonsense'),
      400,
      'Bad request',
      'Your request has not been validated',
      {
        errors: [{ name: 'nextPageToken', reason: 'is not a nextPageToken this endpoint returned.' }],
        errorSource: 'requestParameter',
      },
    );
  });
});
