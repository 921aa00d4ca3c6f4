/*
 * POST /medias and presigned uploads on the local blob store, through real HTTP: the upload
 * (bytes, type, size read back), its refusals (expired, tampered, second, oversized, wrong type),
 * attaching media to listings (directly and through POST /listings), the sweep, and isolation
 * between agencies and environments.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { listingsApi } from '../../src/apis/listings/index.js';
import { ABANDONED_UPLOAD_MS, mediaSweepTask } from '../../src/apis/listings/jobs.js';
import { listingWithMedia } from '../fixtures/listings.js';
import { MAX_MEDIA_BYTES, UPLOAD_URL_SECONDS } from '../../src/apis/listings/model/media.js';
import { mediaRoutes } from '../../src/apis/listings/routes/medias.js';
import {
  attachMedia,
  detachListingMedia,
  listingMedia,
  mediaStore,
  sweepMedia,
  UNATTACHED_GRACE_SECONDS,
} from '../../src/apis/listings/services/medias.js';
import type { LocalBlobStore } from '../../src/platform/blobs/local.js';
import type { ApiModule } from '../../src/platform/module.js';
import { withTenant } from '../../src/platform/db/tenant.js';
import {
  assertProblem as problem,
  getToken,
  http,
  makeClient,
  rawHttp,
  startTestServer,
  USER_AGENT,
  type HttpResult,
  type TestServer,
  useServer,
  assertRefusedBody,
} from '../helpers.js';

const ROOT = '/import-listings/v1';
const SANDBOX = `/sandbox${ROOT}`;
const PRODUCTION_A = { environment: 'production', agencyId: 'agency-a' } as const;
const PRODUCTION_B = { environment: 'production', agencyId: 'agency-b' } as const;
const SANDBOX_A = { environment: 'sandbox', agencyId: 'agency-a' } as const;
const SMALL_LIMIT = 1024;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-media-'));
const fixture = useServer({ env: { DATA_DIR: dataDir }, client: { intermediaries: ['agency-a', 'agency-b'], scopes: ['clim:*'] } });
let server: TestServer;
let tokenA: string;
let tokenB: string;
let sandboxTokenA: string;
let listingsOnlyToken: string;
let store: LocalBlobStore;

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7), Buffer.from([0xff, 0xd9])]);

before(async () => {
  await fixture.ready();
  server = fixture.server;
  tokenA = await fixture.token({ root: ROOT, intermediary: 'agency-a' });
  tokenB = await fixture.token({ root: ROOT, intermediary: 'agency-b' });
  sandboxTokenA = await fixture.token({ root: SANDBOX, intermediary: 'agency-a' });
  listingsOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-a', scope: 'clim:listings:*' });
  store = (await mediaStore({ config: server.config, pool: server.pool })) as LocalBlobStore;
});

after(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function invalid(result: HttpResult, errors: { name: string; reason: string }[]): void {
  problem(result, 400, 'Bad request', 'Your request has not been validated', { errors, errorSource: 'body' });
}

const INVALID_URL = 'The upload URL is not valid: request a new one with POST /medias';
const USED_UP = 'The file of this media has been uploaded already: an upload URL accepts one upload';

function postMedia(body: unknown, token = tokenA, root = ROOT, base = server.base): Promise<HttpResult> {
  return http('POST', `${base}${root}/medias`, { headers: { authorization: `Bearer ${token}` }, body });
}

/** POST /medias that must succeed; returns the presigned URL. */
async function newMedia(externalMediaId: string, fileName = 'photo.jpg', token = tokenA, root = ROOT, base = server.base): Promise<string> {
  const result = await postMedia({ externalMediaId, fileName }, token, root, base);
  assert.equal(result.status, 201, result.text);
  const body = result.body as { externalMediaId: string; presignedURL: string };
  assert.deepEqual(body, { externalMediaId, presignedURL: body.presignedURL });
  return body.presignedURL;
}

/** The PUT a client makes with the presigned URL: fetch, raw bytes. */
async function put(url: string, bytes: Buffer, contentType: string | undefined = 'image/jpeg'): Promise<HttpResult> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  if (contentType !== undefined) headers['content-type'] = contentType;
  const response = await fetch(url, { method: 'PUT', headers, body: new Uint8Array(bytes) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) };
}

interface MediaState {
  state: string;
  size_bytes: number | null;
  listing_id: string | null;
  storage_key: string;
  content_type: string;
  delete_after: Date | null;
}

async function mediaRow(
  externalMediaId: string,
  tenant: { environment: string; agencyId: string } = PRODUCTION_A,
): Promise<MediaState | undefined> {
  const { rows } = await server.pool.query<MediaState>(
    `SELECT state, size_bytes, listing_id, storage_key, content_type, delete_after FROM listing_media
      WHERE environment = $1 AND agency_id = $2 AND external_media_id = $3`,
    [tenant.environment, tenant.agencyId, externalMediaId],
  );
  return rows[0];
}

function keyOf(url: string): string {
  return new URL(url).pathname.replace(/^.*\/media-uploads\//, '');
}

/** A listing row for attachMedia tests, written as the CRUD routes would (they are tested elsewhere). */
async function insertListing(tenant: { environment: string; agencyId: string }): Promise<string> {
  const id = randomUUID();
  await server.pool.query(
    `INSERT INTO listings (id, environment, agency_id, external_listing_id, estate_type, request) VALUES ($1, $2, $3, $4, 'APARTMENT', '{}')`,
    [id, tenant.environment, tenant.agencyId, `listing-${id}`],
  );
  return id;
}

function attach(tenant: { environment: 'production' | 'sandbox'; agencyId: string }, listingId: string, ids: string[]): Promise<void> {
  return withTenant(server.pool, tenant, (db) => attachMedia(db, tenant, listingId, ids));
}

/** attachMedia's refusal as the API renders it. */
async function attachRefused(
  tenant: { environment: 'production' | 'sandbox'; agencyId: string },
  listingId: string,
  ids: string[],
  errors: { name: string; reason: string }[],
) {
  await assertRefusedBody(attach(tenant, listingId, ids), errors);
}

async function uploaded(externalMediaId: string, bytes = JPEG, fileName = 'photo.jpg', contentType = 'image/jpeg'): Promise<string> {
  const url = await newMedia(externalMediaId, fileName);
  const result = await put(url, bytes, contentType);
  assert.equal(result.status, 200, result.text);
  return url;
}

describe('POST /medias', () => {
  it('answers 201 with a presigned URL on immogate itself, valid for 60 seconds', async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = await newMedia('front-view', 'Front View.JPG');
    const parsed = new URL(url);
    assert.equal(parsed.origin, server.base);
    assert.match(parsed.pathname, new RegExp(`^${ROOT}/media-uploads/listings/production/[0-9a-f-]{36}\\.jpg$`));
    assert.deepEqual([...parsed.searchParams.keys()], ['expires', 'signature']);
    const expires = Number(parsed.searchParams.get('expires'));
    assert.ok(expires >= before + 60 && expires <= Math.floor(Date.now() / 1000) + 60, String(expires));
    assert.deepEqual(await mediaRow('front-view'), {
      state: 'AWAITING_UPLOAD',
      size_bytes: null,
      listing_id: null,
      storage_key: keyOf(url),
      content_type: 'image/jpeg',
      delete_after: new Date((expires + UNATTACHED_GRACE_SECONDS) * 1000),
    });
  });

  it('derives the upload type from the file extension and refuses unknown extensions', async () => {
    for (const [fileName, type] of [
      ['a.png', 'image/png'],
      ['b.jpeg', 'image/jpeg'],
      ['c.gif', 'image/gif'],
      ['d.webp', 'image/webp'],
      ['floor plan.pdf', 'application/pdf'],
      ['tour.mp4', 'video/mp4'],
    ] as const) {
      await newMedia(`type-${fileName}`.replace(/ /g, '-'), fileName);
      assert.equal((await mediaRow(`type-${fileName}`.replace(/ /g, '-')))?.content_type, type);
    }
    invalid(await postMedia({ externalMediaId: 'exe', fileName: 'setup.exe' }), [
      {
        name: '/fileName',
        reason:
          'must be a file name without /, \\ or control characters, ending in one of the media file extensions: jpg, jpeg, png, gif, webp, pdf, mp4.',
      },
    ]);
    assert.equal(await mediaRow('exe'), undefined);
  });

  it('validates the body: required members, safe identifiers, plain file names, nothing else', async () => {
    invalid(await postMedia({}), [
      { name: '/externalMediaId', reason: 'is required.' },
      { name: '/fileName', reason: 'is required.' },
    ]);
    invalid(await postMedia({ externalMediaId: 'a/../b', fileName: 'x.jpg', url: 'https://example.com/x.jpg' }), [
      { name: '/url', reason: 'must NOT have additional properties: url.' },
      { name: '/externalMediaId', reason: 'must match pattern "^[A-Za-z0-9._:-]+$".' },
    ]);
    invalid(await postMedia({ externalMediaId: 'x'.repeat(129), fileName: '../../etc/passwd.jpg' }), [
      { name: '/externalMediaId', reason: 'must NOT have more than 128 characters.' },
      {
        name: '/fileName',
        reason:
          'must be a file name without /, \\ or control characters, ending in one of the media file extensions: jpg, jpeg, png, gif, webp, pdf, mp4.',
      },
    ]);
  });

  it('refuses an externalMediaId the agency already uses', async () => {
    await newMedia('twice');
    invalid(await postMedia({ externalMediaId: 'twice', fileName: 'other.png' }), [
      { name: '/externalMediaId', reason: 'is already used by a media of this agency: "twice".' },
    ]);
    await uploaded('twice-uploaded');
    invalid(await postMedia({ externalMediaId: 'twice-uploaded', fileName: 'photo.jpg' }), [
      { name: '/externalMediaId', reason: 'is already used by a media of this agency: "twice-uploaded".' },
    ]);
  });

  it('lets a client retry an id whose URL expired unused: the old URL is void, the new one works', async () => {
    const first = await newMedia('retry');
    await server.pool.query("UPDATE listing_media SET upload_expires_at = now() - interval '1 second' WHERE external_media_id = 'retry'");
    const second = await newMedia('retry', 'retry.png');
    assert.notEqual(keyOf(first), keyOf(second));
    problem(await put(first, JPEG), 403, 'Forbidden', INVALID_URL);
    assert.equal((await put(second, JPEG, 'image/png')).status, 200);
    assert.equal((await mediaRow('retry'))?.state, 'UPLOADED');
  });

  it('needs the scope clim:medias:create', async () => {
    const result = await postMedia({ externalMediaId: 'no-scope', fileName: 'x.jpg' }, listingsOnlyToken);
    problem(result, 403, 'Forbidden', 'The access token lacks the scope clim:medias:create');
    assert.equal(result.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="clim:medias:create"');
  });
});

describe('the presigned upload (local blob store)', () => {
  it('stores the bytes once: 200 with the MD5 ETag, the blob reads back with its size and type', async () => {
    const url = await newMedia('upload-1');
    const result = await put(url, JPEG);
    assert.equal(result.status, 200, result.text);
    assert.equal(result.text, '');
    assert.equal(result.headers.get('etag'), `"${createHash('md5').update(JPEG).digest('hex')}"`);
    const row = await mediaRow('upload-1');
    assert.equal(row?.state, 'UPLOADED');
    assert.equal(row?.size_bytes, JPEG.length);
    assert.deepEqual(await store.stat(keyOf(url)), { size: JPEG.length, contentType: 'image/jpeg' });
    assert.deepEqual(await store.read(keyOf(url)), JPEG);
    assert.ok(fs.existsSync(path.join(dataDir, 'blobs', 'objects', keyOf(url))));
  });

  it('refuses a second upload to the same URL with 409 and keeps the first file', async () => {
    const url = await uploaded('upload-twice');
    const again = await put(url, Buffer.from('something else'));
    problem(again, 409, 'Conflict', USED_UP);
    assert.deepEqual(await store.read(keyOf(url)), JPEG);
  });

  it('refuses an expired URL with 403', async () => {
    const url = await newMedia('expired');
    const key = keyOf(url);
    const expired = store.uploadUrl(
      { key, contentType: 'image/jpeg', maxBytes: MAX_MEDIA_BYTES, expires: Math.floor(Date.now() / 1000) - 1 },
      `${server.base}${ROOT}/media-uploads`,
    );
    problem(await put(expired, JPEG), 403, 'Forbidden', 'The upload URL has expired: request a new one with POST /medias');
    assert.equal((await mediaRow('expired'))?.state, 'AWAITING_UPLOAD');
    assert.equal(await store.exists(key), false);
  });

  it('refuses a tampered URL with 403: signature, expiry, key or a missing parameter', async () => {
    const url = new URL(await newMedia('tampered'));
    const signature = url.searchParams.get('signature') as string;
    const variants = [
      (u: URL) => u.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)),
      (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
      (u: URL) => u.searchParams.delete('signature'),
      (u: URL) => u.searchParams.delete('expires'),
      (u: URL) => (u.pathname = u.pathname.replace(/\.jpg$/, '.png')),
      (u: URL) => (u.pathname = `${ROOT}/media-uploads/listings/production/${randomUUID()}.jpg`),
    ];
    for (const change of variants) {
      const forged = new URL(url);
      change(forged);
      problem(await put(forged.toString(), JPEG), 403, 'Forbidden', INVALID_URL);
    }
    assert.equal((await mediaRow('tampered'))?.state, 'AWAITING_UPLOAD');
    assert.equal((await put(url.toString(), JPEG)).status, 200);
  });

  it('refuses a Content-Type other than the presigned one with 415, and none at all', async () => {
    const url = await newMedia('wrong-type', 'plan.pdf');
    problem(
      await put(url, JPEG, 'image/jpeg'),
      415,
      'Unsupported media type',
      'Content type "image/jpeg" is not accepted; send application/pdf',
      {
        errors: [{ name: 'Content-Type', reason: 'must be application/pdf' }],
        errorSource: 'contentType',
      },
    );
    problem(
      await rawHttp('PUT', url, { 'user-agent': USER_AGENT }, [JPEG]),
      415,
      'Unsupported media type',
      'Content type (none) is not accepted; send application/pdf',
      {
        errors: [{ name: 'Content-Type', reason: 'must be application/pdf' }],
        errorSource: 'contentType',
      },
    );
    // Parameters do not matter, and the URL was not used up by the refusals.
    assert.equal((await put(url, Buffer.from('%PDF-1.7'), 'Application/PDF; charset=binary')).status, 200);
    assert.deepEqual(await store.stat(keyOf(url)), { size: 8, contentType: 'application/pdf' });
  });

  it('refuses a body declared larger than 40 MiB with 413 before reading it', async () => {
    const url = await newMedia('declared-huge');
    const result = await rawHttp('PUT', url, { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' }, [], MAX_MEDIA_BYTES + 1);
    problem(result, 413, 'Payload too large', `The request body exceeds ${MAX_MEDIA_BYTES} bytes`);
    assert.equal(result.headers.get('connection'), 'close');
    assert.equal((await mediaRow('declared-huge'))?.state, 'AWAITING_UPLOAD');
  });

  it('refuses an empty body', async () => {
    const url = await newMedia('empty');
    invalid(await put(url, Buffer.alloc(0)), [{ name: '', reason: 'is empty: send the bytes of the file.' }]);
    assert.equal((await mediaRow('empty'))?.state, 'AWAITING_UPLOAD');
  });

  it('is confined to the environment it was issued for', async () => {
    const url = await newMedia('sandbox-media', 'photo.jpg', sandboxTokenA, SANDBOX);
    assert.match(new URL(url).pathname, new RegExp(`^${SANDBOX}/media-uploads/listings/sandbox/`));
    const production = url.replace(`${SANDBOX}/media-uploads/`, `${ROOT}/media-uploads/`);
    problem(await put(production, JPEG), 403, 'Forbidden', INVALID_URL);
    assert.equal((await put(url, JPEG)).status, 200);
    assert.equal((await mediaRow('sandbox-media', SANDBOX_A))?.state, 'UPLOADED');
    assert.equal(await mediaRow('sandbox-media', PRODUCTION_A), undefined);
  });

  it('needs a User-Agent like every API request, but no token', async () => {
    const url = await newMedia('no-agent');
    problem(
      await rawHttp('PUT', url, { 'content-type': 'image/jpeg', 'content-length': '3' }, 'abc'),
      403,
      'Forbidden',
      'Requests without a User-Agent header are refused',
    );
    assert.equal((await put(url, JPEG)).status, 200);
  });
});

describe('the upload size guard (a server with a 1 KiB limit)', () => {
  let small: TestServer;
  let smallToken: string;

  before(async () => {
    const module: ApiModule = {
      ...listingsApi,
      async routes(app, deps) {
        await mediaRoutes(app, deps, { maxBytes: SMALL_LIMIT });
      },
    };
    small = await startTestServer(fixture.database, { env: { DATA_DIR: dataDir }, apis: [module] });
    const smallClient = await makeClient(small.pool, ['agency-s'], ['clim:medias:create']);
    smallToken = await getToken(small, smallClient, { root: ROOT, intermediary: 'agency-s' });
  });

  after(async () => small.close());

  it('stops a streamed body past the limit with 413 and leaves nothing behind; the URL stays usable', async () => {
    const url = await newMedia('streamed-big', 'photo.jpg', smallToken, ROOT, small.base);
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(256, 1));
    const result = await rawHttp('PUT', url, { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' }, chunks);
    problem(result, 413, 'Payload too large', `The request body exceeds ${SMALL_LIMIT} bytes`);
    assert.equal((await mediaRow('streamed-big', { environment: 'production', agencyId: 'agency-s' }))?.state, 'AWAITING_UPLOAD');
    assert.equal(await store.exists(keyOf(url)), false);
    assert.deepEqual(fs.readdirSync(path.join(dataDir, 'blobs', 'incoming')), []);

    const exact = await rawHttp('PUT', url, { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' }, [Buffer.alloc(SMALL_LIMIT, 2)]);
    assert.equal(exact.status, 200, exact.text);
    assert.deepEqual(await store.stat(keyOf(url)), { size: SMALL_LIMIT, contentType: 'image/jpeg' });
  });

  it('refuses a declared length past the limit at once', async () => {
    const url = await newMedia('declared-big', 'photo.jpg', smallToken, ROOT, small.base);
    problem(await put(url, Buffer.alloc(SMALL_LIMIT + 1)), 413, 'Payload too large', `The request body exceeds ${SMALL_LIMIT} bytes`);
    assert.equal(await store.exists(keyOf(url)), false);
  });
});

describe('attachMedia and detachListingMedia', () => {
  it('attaches uploaded media to a listing and lets go of those no longer referenced', async () => {
    await uploaded('gallery-1');
    await uploaded('gallery-2');
    const listing = await insertListing(PRODUCTION_A);
    await attach(PRODUCTION_A, listing, ['gallery-1', 'gallery-2']);
    for (const id of ['gallery-1', 'gallery-2']) {
      const row = await mediaRow(id);
      assert.equal(row?.state, 'ATTACHED');
      assert.equal(row?.listing_id, listing);
      assert.equal(row?.delete_after, null);
    }
    // Writing the same list again changes nothing; a shorter one lets go of the rest.
    await attach(PRODUCTION_A, listing, ['gallery-1', 'gallery-2']);
    await attach(PRODUCTION_A, listing, ['gallery-2']);
    const released = await mediaRow('gallery-1');
    assert.equal(released?.state, 'UPLOADED');
    assert.equal(released?.listing_id, null);
    assert.ok(released?.delete_after && released.delete_after.getTime() > Date.now() + (UNATTACHED_GRACE_SECONDS - 60) * 1000);
    assert.deepEqual(
      (await withTenant(server.pool, PRODUCTION_A, (db) => listingMedia(db, listing))).map((media) => media.externalMediaId),
      ['gallery-2'],
    );

    // A released media can go to another listing; delete lets go of all of a listing's media.
    const other = await insertListing(PRODUCTION_A);
    await attach(PRODUCTION_A, other, ['gallery-1']);
    assert.equal((await mediaRow('gallery-1'))?.listing_id, other);
    assert.equal(await withTenant(server.pool, PRODUCTION_A, (db) => detachListingMedia(db, other)), 1);
    assert.equal((await mediaRow('gallery-1'))?.state, 'UPLOADED');
  });

  it('names each unusable media: unknown, not uploaded, attached elsewhere, repeated', async () => {
    await newMedia('not-yet');
    await uploaded('elsewhere');
    await uploaded('fine');
    const first = await insertListing(PRODUCTION_A);
    await attach(PRODUCTION_A, first, ['elsewhere']);
    const second = await insertListing(PRODUCTION_A);
    await attachRefused(
      PRODUCTION_A,
      second,
      ['fine', 'nobody', 'not-yet', 'elsewhere', 'fine'],
      [
        {
          name: '/media/1/externalMediaId',
          reason: 'is not a media of this agency: request its upload with POST /medias first ("nobody").',
        },
        { name: '/media/2/externalMediaId', reason: 'has not been uploaded yet: PUT the file to its presignedURL first ("not-yet").' },
        { name: '/media/3/externalMediaId', reason: 'is attached to another listing ("elsewhere").' },
        { name: '/media/4/externalMediaId', reason: 'repeats /media/0/externalMediaId.' },
      ],
    );
    assert.equal((await mediaRow('fine'))?.state, 'UPLOADED');
    assert.equal((await mediaRow('elsewhere'))?.listing_id, first);
  });

  it('keeps agencies and environments apart', async () => {
    await uploaded('mine');
    const listingB = await insertListing(PRODUCTION_B);
    await attachRefused(
      PRODUCTION_B,
      listingB,
      ['mine'],
      [{ name: '/media/0/externalMediaId', reason: 'is not a media of this agency: request its upload with POST /medias first ("mine").' }],
    );
    const sandboxListing = await insertListing(SANDBOX_A);
    await attachRefused(
      SANDBOX_A,
      sandboxListing,
      ['mine'],
      [{ name: '/media/0/externalMediaId', reason: 'is not a media of this agency: request its upload with POST /medias first ("mine").' }],
    );
    // The same externalMediaId is free for another agency, and its media is its own.
    const urlB = await newMedia('mine', 'photo.png', tokenB);
    assert.equal((await put(urlB, JPEG, 'image/png')).status, 200);
    await attach(PRODUCTION_B, listingB, ['mine']);
    assert.equal((await mediaRow('mine', PRODUCTION_B))?.listing_id, listingB);
    assert.equal((await mediaRow('mine', PRODUCTION_A))?.state, 'UPLOADED');
  });
});

describe('listings referencing media (the listing routes)', () => {
  function write(method: string, pathName: string, body: unknown, token = tokenA): Promise<HttpResult> {
    return http(method, `${server.base}${ROOT}${pathName}`, { headers: { authorization: `Bearer ${token}` }, body });
  }

  it('attaches on create, reads back, lets go on update and delete', async () => {
    await uploaded('listing-photo');
    await uploaded('listing-plan', Buffer.from('%PDF-1.7'), 'plan.pdf', 'application/pdf');
    const created = await write('POST', '/listings', listingWithMedia('with-media', ['listing-photo', 'listing-plan']));
    assert.equal(created.status, 201, created.text);
    const listingId = (created.body as { listingId: string }).listingId;
    for (const id of ['listing-photo', 'listing-plan']) {
      assert.equal((await mediaRow(id))?.state, 'ATTACHED');
      assert.equal((await mediaRow(id))?.listing_id, listingId);
    }
    const read = await http('GET', `${server.base}${ROOT}/listings/with-media`, { headers: { authorization: `Bearer ${tokenA}` } });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual((read.body as { listing: { media: unknown } }).listing.media, [
      { externalMediaId: 'listing-photo' },
      { externalMediaId: 'listing-plan' },
    ]);
    assert.deepEqual(
      (await withTenant(server.pool, PRODUCTION_A, (db) => listingMedia(db, listingId))).map(
        ({ externalMediaId, contentType, sizeBytes }) => ({
          externalMediaId,
          contentType,
          sizeBytes,
        }),
      ),
      [
        { externalMediaId: 'listing-photo', contentType: 'image/jpeg', sizeBytes: JPEG.length },
        { externalMediaId: 'listing-plan', contentType: 'application/pdf', sizeBytes: 8 },
      ],
    );

    const updated = await write('PUT', '/listings/with-media', listingWithMedia('with-media', ['listing-plan']));
    assert.equal(updated.status, 202, updated.text);
    assert.equal((await mediaRow('listing-photo'))?.state, 'UPLOADED');
    assert.equal((await mediaRow('listing-plan'))?.state, 'ATTACHED');

    const deleted = await http('DELETE', `${server.base}${ROOT}/listings/with-media`, { headers: { authorization: `Bearer ${tokenA}` } });
    assert.equal(deleted.status, 202, deleted.text);
    const released = await mediaRow('listing-plan');
    assert.equal(released?.state, 'UPLOADED');
    assert.equal(released?.listing_id, null);
  });

  it("refuses a listing naming another agency's media, or media not uploaded yet, and stores nothing", async () => {
    await uploaded('agency-a-photo');
    await newMedia('agency-a-pending');
    invalid(await write('POST', '/listings', listingWithMedia('with-foreign-media', ['agency-a-photo']), tokenB), [
      {
        name: '/media/0/externalMediaId',
        reason: 'is not a media of this agency: request its upload with POST /medias first ("agency-a-photo").',
      },
    ]);
    invalid(await write('POST', '/listings', listingWithMedia('with-pending-media', ['agency-a-photo', 'agency-a-pending'])), [
      {
        name: '/media/1/externalMediaId',
        reason: 'has not been uploaded yet: PUT the file to its presignedURL first ("agency-a-pending").',
      },
    ]);
    assert.equal((await mediaRow('agency-a-photo'))?.state, 'UPLOADED');
    const stored = await server.pool.query(
      "SELECT count(*)::int AS n FROM listings WHERE external_listing_id IN ('with-foreign-media', 'with-pending-media')",
    );
    assert.equal(stored.rows[0].n, 0);
  });
});

describe('the media sweep', () => {
  it('deletes media not attached in time, rows and files, and keeps attached and recent ones', async () => {
    const later = new Date(Date.now() + (UPLOAD_URL_SECONDS + UNATTACHED_GRACE_SECONDS + 60) * 1000);
    const quiet = { warn: () => undefined };
    // What earlier tests left unattached is due by then too: out of the way first.
    await sweepMedia(server.pool, store, quiet, later);
    const stale = await uploaded('sweep-stale');
    const unuploaded = await newMedia('sweep-never-uploaded');
    const recent = await uploaded('sweep-recent');
    const kept = await uploaded('sweep-attached');
    const orphan = await uploaded('sweep-orphan');
    const listing = await insertListing(PRODUCTION_A);
    await attach(PRODUCTION_A, listing, ['sweep-attached']);
    const gone = await insertListing(PRODUCTION_A);
    await attach(PRODUCTION_A, gone, ['sweep-orphan']);
    // A listing row removed without letting go of its media (ON DELETE SET NULL leaves them ATTACHED).
    await server.pool.query('DELETE FROM listings WHERE id = $1', [gone]);
    await server.pool.query(
      "UPDATE listing_media SET delete_after = now() + interval '1 hour' WHERE external_media_id = 'sweep-recent' AND agency_id = 'agency-a'",
    );

    const logged: unknown[] = [];
    assert.equal(await sweepMedia(server.pool, store, { warn: (...args: unknown[]) => logged.push(args) }, later), 3);
    assert.deepEqual(logged, []);
    for (const [id, url] of [
      ['sweep-stale', stale],
      ['sweep-never-uploaded', unuploaded],
      ['sweep-orphan', orphan],
    ] as const) {
      assert.equal(await mediaRow(id), undefined, id);
      assert.equal(await store.exists(keyOf(url)), false, id);
      assert.equal(fs.existsSync(path.join(dataDir, 'blobs', 'objects', keyOf(url))), false, id);
    }
    assert.equal((await mediaRow('sweep-recent'))?.state, 'UPLOADED');
    assert.equal(await store.exists(keyOf(recent)), true);
    assert.equal((await mediaRow('sweep-attached'))?.state, 'ATTACHED');
    assert.deepEqual(await store.read(keyOf(kept)), JPEG);
    // The real clock: none of what is left is due yet.
    assert.equal(await sweepMedia(server.pool, store, quiet), 0);
  });

  it('sweeps the files a crash left in the incoming area: an hour untouched; a fresh one (an upload running) stays', async () => {
    const incoming = path.join(dataDir, 'blobs', 'incoming');
    fs.mkdirSync(incoming, { recursive: true });
    const abandoned = path.join(incoming, 'abandoned-by-a-crash');
    const running = path.join(incoming, 'still-uploading');
    fs.writeFileSync(abandoned, 'half an upload');
    fs.writeFileSync(running, 'an upload in progress');
    const hourAgo = (Date.now() - ABANDONED_UPLOAD_MS - 1000) / 1000;
    fs.utimesSync(abandoned, hourAgo, hourAgo);
    // A real logger writing to a list: every line it logs, parsed.
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info', base: null, timestamp: false }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const signal = new AbortController().signal;
    await mediaSweepTask.run({ pool: server.pool, config: server.config, logger, workerId: 'test', leaseSeconds: 10, signal });
    assert.deepEqual(fs.readdirSync(incoming), ['still-uploading']);
    assert.deepEqual(lines, [{ level: 30, abandoned: 1, msg: 'swept uploads a crash left unfinished' }]);
    fs.rmSync(running);
  });

  it('runs every five minutes as a task of the listing import API', async () => {
    assert.ok(listingsApi.tasks?.includes(mediaSweepTask));
    assert.equal(mediaSweepTask.name, 'listings:sweep_media');
    assert.equal(mediaSweepTask.everySeconds, 300);
  });
});
