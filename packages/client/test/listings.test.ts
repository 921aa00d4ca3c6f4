/*
 * The listing import API through the client: a media uploaded (the presigned URL asked for and
 * the bytes PUT there), listings written, read and deleted, every page of the list, the health.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { berlinRentApartment } from '../../../test/fixtures/listings.js';
import { useServer } from '../../../test/helpers.js';
import { type ImmogateClient, type ListingRequest, ProblemError } from '../src/index.js';
import { clientOf } from './helpers.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-client-listings-'));
const fixture = useServer({ env: { DATA_DIR: dataDir }, client: { intermediaries: ['agency-1', 'agency-paging'], scopes: ['clim:*'] } });
let client: ImmogateClient;

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7), Buffer.from([0xff, 0xd9])]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

before(async () => {
  await fixture.ready();
  client = clientOf(fixture, 'agency-1');
});

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The root fixtures' Berlin apartment (typed by the server's schemas, whose enums the served document lists) as the client types it. */
function listing(externalListingId: string): ListingRequest {
  const body = berlinRentApartment() as unknown as ListingRequest;
  return { ...body, metadata: { ...body.metadata, source: { ...body.metadata.source, offererEstateId: externalListingId } } };
}

describe('listings', () => {
  it('answers the health', async () => {
    assert.deepEqual(await client.listings.health(), { status: 'PASS', components: [{ name: 'database', status: 'PASS' }] });
  });

  it('uploads a media and creates, reads, updates and deletes a listing that shows it', async () => {
    assert.deepEqual(await client.medias.upload({ externalMediaId: 'img-1', fileName: 'living-room.jpg', data: JPEG }), {
      externalMediaId: 'img-1',
    });
    const body = { ...listing('B-1'), media: [{ externalMediaId: 'img-1', category: 'LIVING_ROOM' }] } satisfies ListingRequest;
    const created = await client.listings.create(body);
    assert.match(created.listingId, UUID);
    assert.match(created.requestId, UUID);
    assert.deepEqual(
      { ...created, listingId: '', requestId: '' },
      {
        requestId: '',
        listingId: '',
        externalListingId: 'B-1',
        warnings: [],
        links: [{ rel: 'self', href: `${fixture.server.base}/import-listings/v1/listings/B-1` }],
      },
    );
    const read = await client.listings.get('B-1');
    assert.deepEqual(
      { externalListingId: read.externalListingId, listingId: read.listingId, isPublished: read.isPublished, media: read.media },
      {
        externalListingId: 'B-1',
        listingId: created.listingId,
        isPublished: true,
        media: [{ externalMediaId: 'img-1', category: 'LIVING_ROOM' }],
      },
    );
    const updated = await client.listings.update('B-1', listing('B-1'));
    assert.deepEqual(updated, { requestId: updated.requestId, listingId: created.listingId, externalListingId: 'B-1' });
    assert.equal((await client.listings.get('B-1')).media, undefined);
    const deleted = await client.listings.delete('B-1');
    assert.deepEqual(deleted, { requestId: deleted.requestId, listingId: created.listingId, externalListingId: 'B-1' });
    assert.deepEqual(await client.listings.list().toArray(), []);
    const error = await client.listings.get('B-1').catch((caught: unknown) => caught);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 404);
  });

  it('refuses a file of a type the API does not take before asking for a URL', async () => {
    await assert.rejects(client.medias.upload({ externalMediaId: 'doc-1', fileName: 'notes.txt', data: Buffer.from('hello') }), {
      name: 'TypeError',
      message: 'notes.txt: no Content-Type for .txt (the API takes jpg, jpeg, png, gif, webp, pdf, mp4)',
    });
  });

  it('uploads a Blob, and throws the refusal of an externalMediaId used already as a ProblemError naming it', async () => {
    await client.medias.upload({ externalMediaId: 'img-2', fileName: 'kitchen.png', data: new Blob([JPEG]) });
    const error = await client.medias
      .upload({ externalMediaId: 'img-2', fileName: 'kitchen.png', data: JPEG })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof ProblemError);
    assert.deepEqual(
      [error.status, error.title, error.errorSource, error.errors],
      [400, 'Bad request', 'body', [{ name: '/externalMediaId', reason: 'is already used by a media of this agency: "img-2".' }]],
    );
  });

  it('iterates every page of the list, oldest first', async () => {
    const pager = clientOf(fixture, 'agency-paging');
    const ids = Array.from({ length: 101 }, (_, i) => `P-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id) => pager.listings.create(listing(id))));
    const pages: number[] = [];
    for await (const page of pager.listings.list().pages()) pages.push(page.items.length);
    assert.deepEqual(pages, [100, 1]);
    const listed: string[] = [];
    for await (const id of pager.listings.list()) listed.push(id);
    assert.deepEqual([...listed].sort(), ids);
    assert.equal(listed.length, 101);
  });
});
