/*
 * Listing media on a real S3-compatible server (s3rver, test/fixtures/s3.ts) through real HTTP:
 * POST /medias presigns a PUT on the bucket, the bytes go there, a listing write confirms them
 * (HeadObject: size and type) and attaches them; a confirmation that fails deletes the object
 * (too large) or names the stored type; the sweep deletes expired objects from the bucket; and a
 * store that does not answer is a 503 with Retry-After, never a 500.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listingWithMedia } from '../fixtures/listings.js';
import { MAX_MEDIA_BYTES, UPLOAD_URL_SECONDS } from '../../src/apis/listings/model/media.js';
import { mediaStore, sweepMedia, UNATTACHED_GRACE_SECONDS } from '../../src/apis/listings/services/medias.js';
import type { BlobStore } from '../../src/platform/blobs/index.js';
import {
  assertProblem,
  createTestDatabase,
  freePort,
  getToken,
  http,
  makeClient,
  startTestServer,
  USER_AGENT,
  type HttpResult,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';
import { startS3, type S3Server } from '../fixtures/s3.js';

const ROOT = '/import-listings/v1';
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7), Buffer.from([0xff, 0xd9])]);

let s3: S3Server;
let database: TestDatabase;
let server: TestServer;
let token: string;
let store: BlobStore;

before(async () => {
  s3 = await startS3({ address: '127.0.0.1', port: await freePort() });
  database = await createTestDatabase();
  server = await startTestServer(database, { env: s3.env });
  const client = await makeClient(server.pool, ['agency-a'], ['clim:*']);
  token = await getToken(server, client, { root: ROOT, intermediary: 'agency-a' });
  store = await mediaStore({ config: server.config, pool: server.pool });
});

after(async () => {
  await server?.close();
  await database?.drop();
  await s3?.stop();
});

function api(method: string, pathName: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${ROOT}${pathName}`, { headers: { authorization: `Bearer ${token}` }, body });
}

/** POST /medias that must succeed; returns the presigned URL. */
async function newMedia(externalMediaId: string, fileName = 'photo.jpg'): Promise<string> {
  const result = await api('POST', '/medias', { externalMediaId, fileName });
  assert.equal(result.status, 201, result.text);
  const body = result.body as { presignedURL: string };
  assert.deepEqual(result.body, { externalMediaId, presignedURL: body.presignedURL });
  return body.presignedURL;
}

async function put(url: string, bytes: Buffer, contentType: string): Promise<number> {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': contentType, 'user-agent': USER_AGENT },
    body: new Uint8Array(bytes),
  });
  await response.arrayBuffer();
  return response.status;
}

function keyOf(url: string): string {
  return new URL(url).pathname.slice(`/${s3.bucket}/`.length);
}

/** The object as the S3 server holds it, read without immogate: its data file in s3rver's directory. */
function inBucket(key: string): boolean {
  return fs.existsSync(path.join(s3.directory, s3.bucket, `${key}._S3rver_object`));
}

async function mediaRow(externalMediaId: string): Promise<{ state: string; size_bytes: number | null } | undefined> {
  const { rows } = await server.pool.query<{ state: string; size_bytes: number | null }>(
    "SELECT state, size_bytes FROM listing_media WHERE agency_id = 'agency-a' AND external_media_id = $1",
    [externalMediaId],
  );
  return rows[0];
}

function refused(result: HttpResult, errors: { name: string; reason: string }[]): void {
  assertProblem(result, 400, 'Bad request', 'Your request has not been validated', { errors, errorSource: 'body' });
}

describe('listing media on an S3 server', () => {
  it('presigns a PUT on the bucket with the type signed; the upload is confirmed and attached by a listing', async () => {
    const url = await newMedia('s3-photo');
    const parsed = new URL(url);
    assert.equal(parsed.origin, s3.endpoint);
    assert.match(parsed.pathname, new RegExp(`^/${s3.bucket}/listings/production/[0-9a-f-]{36}\\.jpg$`));
    assert.equal(parsed.searchParams.get('X-Amz-SignedHeaders'), 'content-type;host');
    assert.equal(parsed.searchParams.get('X-Amz-Expires'), String(UPLOAD_URL_SECONDS));
    assert.equal(inBucket(keyOf(url)), false);

    assert.equal(await put(url, JPEG, 'image/jpeg'), 200);
    assert.equal(inBucket(keyOf(url)), true);
    assert.deepEqual(await store.stat(keyOf(url)), { size: JPEG.length, contentType: 'image/jpeg' });
    assert.deepEqual(await store.read(keyOf(url)), JPEG);
    assert.deepEqual(await mediaRow('s3-photo'), { state: 'AWAITING_UPLOAD', size_bytes: null });

    const created = await api('POST', '/listings', listingWithMedia('s3-listing', ['s3-photo']));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await mediaRow('s3-photo'), { state: 'ATTACHED', size_bytes: JPEG.length });
    const read = await api('GET', '/listings/s3-listing');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual((read.body as { listing: { media: unknown } }).listing.media, [{ externalMediaId: 's3-photo' }]);
  });

  it('refuses a listing whose media is not in the bucket yet', async () => {
    await newMedia('s3-pending');
    refused(await api('POST', '/listings', listingWithMedia('s3-pending-listing', ['s3-pending'])), [
      { name: '/media/0/externalMediaId', reason: 'has not been uploaded yet: PUT the file to its presignedURL first ("s3-pending").' },
    ]);
  });

  it('refuses an object stored with another type than the presigned one, and keeps it for a correct re-upload', async () => {
    const url = await newMedia('s3-wrong-type');
    // S3 itself refuses this PUT (the type is a signed header); s3rver checks no signature, so
    // the bytes land and immogate's confirmation is what stops them.
    assert.equal(await put(url, Buffer.from('<html></html>'), 'text/html'), 200);
    refused(await api('POST', '/listings', listingWithMedia('s3-wrong-type-listing', ['s3-wrong-type'])), [
      { name: '/media/0/externalMediaId', reason: 'was uploaded as text/html, not image/jpeg ("s3-wrong-type").' },
    ]);
    assert.deepEqual(await mediaRow('s3-wrong-type'), { state: 'AWAITING_UPLOAD', size_bytes: null });
    // The URL is still valid: the right bytes replace the object and the listing goes through.
    assert.equal(await put(url, JPEG, 'image/jpeg'), 200);
    const created = await api('POST', '/listings', listingWithMedia('s3-wrong-type-listing', ['s3-wrong-type']));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await mediaRow('s3-wrong-type'), { state: 'ATTACHED', size_bytes: JPEG.length });
  });

  it('deletes an object over 40 MiB, which a presigned PUT cannot prevent, and refuses the listing', async () => {
    const url = await newMedia('s3-too-big');
    assert.equal(await put(url, Buffer.alloc(MAX_MEDIA_BYTES + 1, 1), 'image/jpeg'), 200);
    assert.equal(inBucket(keyOf(url)), true);
    refused(await api('POST', '/listings', listingWithMedia('s3-too-big-listing', ['s3-too-big'])), [
      {
        name: '/media/0/externalMediaId',
        reason: `was larger than ${MAX_MEDIA_BYTES} bytes and has been deleted: upload a smaller file ("s3-too-big").`,
      },
    ]);
    assert.equal(inBucket(keyOf(url)), false);
    assert.equal(await store.stat(keyOf(url)), undefined);
  });

  it('deletes the object of a retried upload whose URL expired: the id names the new one', async () => {
    const first = await newMedia('s3-retry');
    assert.equal(await put(first, JPEG, 'image/jpeg'), 200);
    await server.pool.query(
      "UPDATE listing_media SET upload_expires_at = now() - interval '1 second' WHERE external_media_id = 's3-retry'",
    );
    const second = await newMedia('s3-retry');
    assert.notEqual(keyOf(second), keyOf(first));
    assert.equal(inBucket(keyOf(first)), false);
  });

  it('sweeps media not attached in time: rows and objects; attached ones stay', async () => {
    const stale = await newMedia('s3-stale');
    assert.equal(await put(stale, JPEG, 'image/jpeg'), 200);
    const attached = (
      await server.pool.query<{ storage_key: string }>("SELECT storage_key FROM listing_media WHERE external_media_id = 's3-photo'")
    ).rows[0]?.storage_key;
    assert.ok(attached);
    const later = new Date(Date.now() + (UPLOAD_URL_SECONDS + UNATTACHED_GRACE_SECONDS + 60) * 1000);
    const warnings: unknown[] = [];
    // s3-pending (never uploaded), s3-too-big (deleted already), s3-retry and s3-stale: 4 rows.
    assert.equal(await sweepMedia(server.pool, store, { warn: (...args: unknown[]) => warnings.push(args) }, later), 4);
    assert.deepEqual(warnings, []);
    assert.equal(await mediaRow('s3-stale'), undefined);
    assert.equal(inBucket(keyOf(stale)), false);
    assert.equal(inBucket(attached), true);
    assert.deepEqual(await mediaRow('s3-photo'), { state: 'ATTACHED', size_bytes: JPEG.length });
  });

  // Last: it stops the S3 server.
  it('answers 503 with Retry-After, not 500, when the S3 server does not answer; presigning needs no server', async () => {
    await s3.stop();
    const url = await newMedia('s3-down');
    assert.equal(new URL(url).origin, s3.endpoint);
    const result = await api('POST', '/listings', listingWithMedia('s3-down-listing', ['s3-down']));
    assertProblem(result, 503, 'Service unavailable', 'The media store is unavailable; retry later');
    assert.equal(result.headers.get('retry-after'), '5');
    const stored = await server.pool.query("SELECT count(*)::int AS n FROM listings WHERE external_listing_id = 's3-down-listing'");
    assert.equal(stored.rows[0].n, 0);
    // Retrying a media whose URL expired deletes the object that URL may have received first: that
    // fails, so nothing changed and the client may send the same request again.
    await server.pool.query("UPDATE listing_media SET upload_expires_at = now() - interval '1 second' WHERE external_media_id = 's3-down'");
    assertProblem(
      await api('POST', '/medias', { externalMediaId: 's3-down', fileName: 'photo.jpg' }),
      503,
      'Service unavailable',
      'The media store is unavailable; retry later',
    );
    const kept = await server.pool.query("SELECT storage_key FROM listing_media WHERE external_media_id = 's3-down'");
    assert.deepEqual(kept.rows, [{ storage_key: keyOf(url) }]);
    // A listing without media does not depend on the store.
    const plain = await api('POST', '/listings', listingWithMedia('s3-down-plain', []));
    assert.equal(plain.status, 201, plain.text);

    // The sweep deletes the rows and logs each object it could not delete (left in the bucket, never a row without its object).
    const later = new Date(Date.now() + (UPLOAD_URL_SECONDS + UNATTACHED_GRACE_SECONDS + 60) * 1000);
    const warnings: { key: string; msg: string; status: number }[] = [];
    const logger = {
      warn: (fields: { key: string; err: { status: number } }, msg: string) =>
        warnings.push({ key: fields.key, msg, status: fields.err.status }),
    };
    assert.equal(await sweepMedia(server.pool, store, logger as never, later), 1);
    assert.deepEqual(warnings, [{ key: keyOf(url), msg: 'could not delete the blob of a swept media', status: 503 }]);
  });
});
