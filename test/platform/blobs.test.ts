/*
 * The blob store behind one interface: safe keys, the local backend (signed upload URLs, the
 * streaming size guard with the real 40 MiB limit, staging and publishing, the shared signing
 * key), the S3 backend's presigned URLs (no network), and the S3 backend against a loopback
 * S3 stand-in, including confirming uploads when a listing attaches them; an S3 that answers 5xx
 * or does not answer is the 503 problem. (Against a real S3 server: test/listings/s3-media.test.ts.)
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { MAX_MEDIA_BYTES } from '../../src/apis/listings/model/media.js';
import { attachMedia } from '../../src/apis/listings/services/medias.js';
import { loadConfig } from '../../src/config.js';
import { isSafeKey, openBlobStore } from '../../src/platform/blobs/index.js';
import { BlobTooLarge, LocalBlobStore } from '../../src/platform/blobs/local.js';
import { Problem } from '../../src/platform/http/problems.js';
import { Sealer, parseKey } from '../../src/platform/secrets/sealer.js';
import { S3BlobStore } from '../../src/platform/blobs/s3.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { withTenant } from '../../src/platform/db/tenant.js';
import { assertRefusedBody, createTestDatabase, TEST_SECRETS_KEY, USER_AGENT, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;
let tmp: string;

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 2);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-blobs-'));
});

after(async () => {
  await pool.end();
  await database.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const MiB = 1024 * 1024;

/** `total` bytes in chunks of at most 1 MiB, generated as read. */
function bytes(total: number, fill = 1): Readable {
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < total; sent += MiB) yield Buffer.alloc(Math.min(MiB, total - sent), fill);
    })(),
  );
}

function files(dir: string): string[] {
  return fs.existsSync(dir)
    ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((name) => fs.statSync(path.join(dir, name)).isFile())
    : [];
}

describe('blob keys', () => {
  it('are relative paths of plain segments', () => {
    for (const key of ['a', 'listings/production/0f8c.jpg', 'A_b-c.D', 'x/y/z/w']) assert.equal(isSafeKey(key), true, key);
  });

  it('cannot climb out, hide a file, or carry anything to encode', () => {
    for (const key of [
      '',
      '../x',
      'a/../b',
      'a/./b',
      '/etc/passwd',
      'a//b',
      'a/',
      '.hidden',
      'a/.b',
      'a\\b',
      'a b',
      '%2e%2e/x',
      'a?b',
      'é',
      'x'.repeat(129),
      'a/b/c/d/e/f/g/h/i',
    ]) {
      assert.equal(isSafeKey(key), false, key);
    }
  });
});

describe('the local blob store', () => {
  const secret = randomBytes(32);
  let root: string;
  let store: LocalBlobStore;
  const base = 'https://immogate.example.com/import-listings/v1/media-uploads';

  before(() => {
    root = path.join(tmp, 'local');
    store = new LocalBlobStore(root, secret);
  });

  it('presigns a PUT on immogate itself: key, expiry in unix seconds, HMAC signature', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const upload = await store.presignUpload(
      { key: 'listings/production/a.jpg', contentType: 'image/jpeg', maxBytes: 10, expiresInSeconds: 60, uploadBaseUrl: base },
      now,
    );
    assert.deepEqual(upload.expiresAt, new Date(now + 60_000));
    const url = new URL(upload.url);
    assert.equal(`${url.origin}${url.pathname}`, `${base}/listings/production/a.jpg`);
    assert.deepEqual([...url.searchParams.keys()], ['expires', 'signature']);
    assert.equal(url.searchParams.get('expires'), String(now / 1000 + 60));
    assert.match(url.searchParams.get('signature') ?? '', /^[A-Za-z0-9_-]{43}$/);
    await assert.rejects(
      store.presignUpload({ key: 'a.jpg', contentType: 'image/jpeg', maxBytes: 10, expiresInSeconds: 60 }),
      /uploadBaseUrl/,
    );
    await assert.rejects(
      store.presignUpload({ key: '../a.jpg', contentType: 'image/jpeg', maxBytes: 10, expiresInSeconds: 60, uploadBaseUrl: base }),
      /unsafe blob key/,
    );
  });

  it('accepts its own signature until the expiry, and nothing changed', () => {
    const grant = { key: 'k/a.jpg', contentType: 'image/jpeg', maxBytes: 100, expires: 2_000_000_000 };
    const signature = new URL(store.uploadUrl(grant, base)).searchParams.get('signature') as string;
    const check = (changes: Record<string, unknown>, now = 1_999_999_999_000) =>
      store.verifyUpload({ ...grant, expires: String(grant.expires), signature, ...changes }, now);
    assert.equal(check({}), 'valid');
    assert.equal(check({}, 2_000_000_000_000), 'expired');
    assert.equal(check({ expires: '2000000001' }), 'invalid');
    assert.equal(check({ key: 'k/b.jpg' }), 'invalid');
    assert.equal(check({ contentType: 'image/png' }), 'invalid');
    assert.equal(check({ maxBytes: 101 }), 'invalid');
    assert.equal(check({ signature: `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}` }), 'invalid');
    assert.equal(check({ signature: signature.slice(1) }), 'invalid');
    assert.equal(check({ signature: undefined }), 'invalid');
    assert.equal(check({ expires: undefined }), 'invalid');
    assert.equal(check({ expires: '2e9' }), 'invalid');
    assert.equal(
      new LocalBlobStore(root, randomBytes(32)).verifyUpload({ ...grant, expires: String(grant.expires), signature }, 0),
      'invalid',
    );
  });

  it('stages a received blob and publishes it on commit: exists, stat, read, delete', async () => {
    const body = Buffer.from('%PDF-1.7 example');
    const staged = await store.receive('docs/plan.pdf', Readable.from([body]), { contentType: 'application/pdf', maxBytes: 100 });
    assert.equal(staged.size, body.length);
    assert.equal(staged.md5, createHash('md5').update(body).digest('hex'));
    assert.equal(await store.exists('docs/plan.pdf'), false);
    await staged.commit();
    assert.equal(await store.exists('docs/plan.pdf'), true);
    assert.deepEqual(await store.stat('docs/plan.pdf'), { size: body.length, contentType: 'application/pdf' });
    assert.deepEqual(await store.read('docs/plan.pdf'), body);
    assert.deepEqual(files(path.join(root, 'incoming')), []);
    await staged.discard();
    await store.delete('docs/plan.pdf');
    await store.delete('docs/plan.pdf');
    assert.equal(await store.stat('docs/plan.pdf'), undefined);
    assert.equal(await store.read('docs/plan.pdf'), undefined);
    assert.deepEqual(files(path.join(root, 'objects')), []);
    assert.deepEqual(files(path.join(root, 'meta')), []);
  });

  it('leaves nothing behind for a discarded or broken upload', async () => {
    const staged = await store.receive('x/discarded.jpg', Readable.from([Buffer.from('abc')]), {
      contentType: 'image/jpeg',
      maxBytes: 100,
    });
    await staged.discard();
    const broken = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy(new Error('client went away'));
      },
    });
    await assert.rejects(store.receive('x/broken.jpg', broken, { contentType: 'image/jpeg', maxBytes: 100 }), /client went away/);
    assert.deepEqual(
      files(root).filter((name) => !name.startsWith('objects/docs') && !name.startsWith('meta/docs')),
      [],
    );
  });

  it('refuses every operation on an unsafe key', async () => {
    await assert.rejects(store.stat('../../etc/passwd'), /unsafe blob key/);
    await assert.rejects(store.read('/etc/passwd'), /unsafe blob key/);
    await assert.rejects(store.delete('a/../../b'), /unsafe blob key/);
    await assert.rejects(store.receive('../x', Readable.from([]), { contentType: 'image/jpeg', maxBytes: 1 }), /unsafe blob key/);
  });

  it('guards the real limit: 40 MiB are accepted, one byte more is refused while streaming', async () => {
    assert.equal(MAX_MEDIA_BYTES, 40 * 1024 * 1024);
    const over = bytes(MAX_MEDIA_BYTES + 1);
    await assert.rejects(store.receive('big/over.mp4', over, { contentType: 'video/mp4', maxBytes: MAX_MEDIA_BYTES }), (error: unknown) => {
      assert.ok(error instanceof BlobTooLarge);
      assert.equal(error.maxBytes, MAX_MEDIA_BYTES);
      return true;
    });
    assert.deepEqual(files(path.join(root, 'incoming')), []);

    // The guard stops reading: what is left of a longer body stays unread (the request is not
    // destroyed), so the caller can still answer.
    const longer = bytes(8 * MiB);
    await assert.rejects(store.receive('big/longer.mp4', longer, { contentType: 'video/mp4', maxBytes: 2 * MiB }), BlobTooLarge);
    assert.equal(longer.destroyed, false);
    assert.equal(longer.readableEnded, false);
    longer.destroy();
    assert.deepEqual(files(path.join(root, 'incoming')), []);

    const staged = await store.receive('big/exact.mp4', bytes(MAX_MEDIA_BYTES), { contentType: 'video/mp4', maxBytes: MAX_MEDIA_BYTES });
    assert.equal(staged.size, MAX_MEDIA_BYTES);
    await staged.commit();
    assert.deepEqual(await store.stat('big/exact.mp4'), { size: MAX_MEDIA_BYTES, contentType: 'video/mp4' });
    await store.delete('big/exact.mp4');
  });

  it('shares one signing key through the database and touches no disk when opened', async () => {
    const dataDir = path.join(tmp, 'opened');
    const sealer = Sealer.withKeys(parseKey(TEST_SECRETS_KEY, 'test key'));
    const first = await LocalBlobStore.open(dataDir, pool, sealer);
    const second = await LocalBlobStore.open(dataDir, pool, sealer);
    assert.equal(first.root, path.join(dataDir, 'blobs'));
    assert.equal(fs.existsSync(dataDir), false);
    const grant = { key: 'a/b.png', contentType: 'image/png', maxBytes: 5, expires: 2_000_000_000 };
    const signature = new URL(first.uploadUrl(grant, base)).searchParams.get('signature') as string;
    assert.equal(second.verifyUpload({ ...grant, expires: String(grant.expires), signature }, 0), 'valid');
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM blob_signing_keys')).rows[0].n, 1);
  });
});

describe('choosing the backend', () => {
  it('is the local directory by default and S3 when configured', async () => {
    const local = await openBlobStore(loadConfig({ DATA_DIR: path.join(tmp, 'chosen'), SECRETS_KEY: TEST_SECRETS_KEY }), pool);
    assert.ok(local instanceof LocalBlobStore);
    assert.equal(local.kind, 'local');
    assert.equal(local.root, path.join(tmp, 'chosen', 'blobs'));
    const s3 = await openBlobStore(
      loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:1', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' }),
      pool,
    );
    assert.ok(s3 instanceof S3BlobStore);
    assert.equal(s3.kind, 's3');
  });
});

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('the S3 blob store: presigned URLs (no network)', () => {
  function params(url: string): Record<string, string> {
    return Object.fromEntries(new URL(url).searchParams);
  }

  it('presigns a 60-second PUT with the Content-Type signed, path-style on a custom endpoint', async () => {
    const store = new S3BlobStore({
      endpoint: 'http://minio.internal:9000',
      bucket: 'media',
      region: 'eu-central-1',
      forcePathStyle: true,
      ...CREDENTIALS,
    });
    const before = Date.now();
    const upload = await store.presignUpload({
      key: 'listings/production/x.jpg',
      contentType: 'image/jpeg',
      maxBytes: MAX_MEDIA_BYTES,
      expiresInSeconds: 60,
    });
    const url = new URL(upload.url);
    assert.equal(url.origin, 'http://minio.internal:9000');
    assert.equal(url.pathname, '/media/listings/production/x.jpg');
    const query = params(upload.url);
    assert.equal(query['X-Amz-Algorithm'], 'AWS4-HMAC-SHA256');
    assert.equal(query['X-Amz-Expires'], '60');
    assert.equal(query['X-Amz-SignedHeaders'], 'content-type;host');
    assert.equal(query['X-Amz-Content-Sha256'], 'UNSIGNED-PAYLOAD');
    assert.match(query['X-Amz-Credential'] ?? '', /^AKIDEXAMPLE\/\d{8}\/eu-central-1\/s3\/aws4_request$/);
    assert.match(query['X-Amz-Date'] ?? '', /^\d{8}T\d{6}Z$/);
    assert.match(query['X-Amz-Signature'] ?? '', /^[0-9a-f]{64}$/);
    // No checksum a browser or curl upload could not match.
    assert.deepEqual(
      Object.keys(query).filter((name) => /checksum/i.test(name)),
      [],
    );
    assert.ok(upload.expiresAt.getTime() >= before + 60_000 && upload.expiresAt.getTime() <= Date.now() + 60_000);
  });

  it('addresses the bucket as a virtual host without path style', async () => {
    const store = new S3BlobStore({
      endpoint: 'https://s3.eu-central-1.amazonaws.com',
      bucket: 'media',
      region: 'eu-central-1',
      forcePathStyle: false,
      ...CREDENTIALS,
    });
    const upload = await store.presignUpload({ key: 'a/b.png', contentType: 'image/png', maxBytes: 1, expiresInSeconds: 60 });
    const url = new URL(upload.url);
    assert.equal(url.host, 'media.s3.eu-central-1.amazonaws.com');
    assert.equal(url.pathname, '/a/b.png');
    assert.equal(params(upload.url)['X-Amz-SignedHeaders'], 'content-type;host');
  });

  it('refuses unsafe keys', async () => {
    const store = new S3BlobStore({
      endpoint: 'http://minio.internal:9000',
      bucket: 'media',
      region: 'us-east-1',
      forcePathStyle: true,
      ...CREDENTIALS,
    });
    await assert.rejects(
      store.presignUpload({ key: '../x', contentType: 'image/png', maxBytes: 1, expiresInSeconds: 60 }),
      /unsafe blob key/,
    );
  });
});

/**
 * A loopback stand-in for an S3 bucket (path-style): PUT, HEAD, GET, DELETE of objects, kept in
 * memory, with every request recorded. It checks nothing of the signature: that is S3's part.
 */
interface StoredObject {
  body: Buffer;
  size: number;
  contentType: string;
}

function s3StandIn(bucket: string): {
  server: Server;
  objects: Map<string, StoredObject>;
  requests: { method: string; path: string; query: URLSearchParams; contentType?: string }[];
} {
  const objects = new Map<string, StoredObject>();
  const requests: { method: string; path: string; query: URLSearchParams; contentType?: string }[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3');
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, contentType: req.headers['content-type'] });
    const prefix = `/${bucket}/`;
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    const key = decodeURIComponent(url.pathname.slice(prefix.length));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const object = objects.get(key);
      if (req.method === 'PUT') {
        const body = Buffer.concat(chunks);
        objects.set(key, { body, size: body.length, contentType: req.headers['content-type'] ?? 'binary/octet-stream' });
        res.writeHead(200, { etag: '"etag"' }).end();
      } else if (req.method === 'DELETE') {
        objects.delete(key);
        res.writeHead(204).end();
      } else if (!object) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end(
          req.method === 'HEAD'
            ? undefined
            : '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
        );
      } else {
        res.writeHead(200, { 'content-type': object.contentType, 'content-length': String(object.size), etag: '"etag"' });
        res.end(req.method === 'HEAD' ? undefined : object.body);
      }
    });
  });
  return { server, objects, requests };
}

describe('the S3 blob store against a loopback S3', () => {
  const bucket = 'media';
  const standIn = s3StandIn(bucket);
  let store: S3BlobStore;

  before(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    const { port } = standIn.server.address() as { port: number };
    store = new S3BlobStore({ endpoint: `http://127.0.0.1:${port}`, bucket, region: 'us-east-1', forcePathStyle: true, ...CREDENTIALS });
  });

  after(async () => new Promise<void>((resolve) => standIn.server.close(() => resolve())));

  async function upload(key: string, body: Buffer, contentType: string): Promise<number> {
    const { url } = await store.presignUpload({ key, contentType, maxBytes: MAX_MEDIA_BYTES, expiresInSeconds: 60 });
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': contentType, 'user-agent': USER_AGENT },
      body: new Uint8Array(body),
    });
    await response.arrayBuffer();
    return response.status;
  }

  it('uploads through the presigned URL, then stats, reads and deletes by key', async () => {
    const body = Buffer.from('PNG bytes');
    assert.equal(await upload('listings/production/one.png', body, 'image/png'), 200);
    const put = standIn.requests.at(-1);
    assert.equal(put?.method, 'PUT');
    assert.equal(put?.path, `/${bucket}/listings/production/one.png`);
    assert.equal(put?.contentType, 'image/png');
    assert.equal(put?.query.get('X-Amz-Expires'), '60');

    assert.equal(await store.exists('listings/production/one.png'), true);
    assert.deepEqual(await store.stat('listings/production/one.png'), { size: body.length, contentType: 'image/png' });
    assert.deepEqual(await store.read('listings/production/one.png'), body);
    await store.delete('listings/production/one.png');
    assert.equal(await store.stat('listings/production/one.png'), undefined);
    assert.equal(await store.exists('listings/production/one.png'), false);
    assert.equal(await store.read('listings/production/one.png'), undefined);
  });

  describe('attachMedia confirms uploads made straight to S3', () => {
    const tenant = { environment: 'production', agencyId: 'agency-s3' } as const;
    let listingId: string;

    before(async () => {
      listingId = randomUUID();
      await pool.query(
        `INSERT INTO listings (id, environment, agency_id, external_listing_id, estate_type, request) VALUES ($1, 'production', 'agency-s3', 'l-1', 'APARTMENT', '{}')`,
        [listingId],
      );
    });

    async function awaiting(externalMediaId: string, contentType = 'image/jpeg'): Promise<string> {
      const key = `listings/production/${randomUUID()}.jpg`;
      await pool.query(
        `INSERT INTO listing_media (environment, agency_id, external_media_id, file_name, storage_key, state, content_type, upload_expires_at, delete_after)
         VALUES ('production', 'agency-s3', $1, 'x.jpg', $2, 'AWAITING_UPLOAD', $3, now() + interval '1 minute', now() + interval '16 minutes')`,
        [externalMediaId, key, contentType],
      );
      return key;
    }

    async function refused(ids: string[], errors: { name: string; reason: string }[]) {
      await assertRefusedBody(
        withTenant(pool, tenant, (db) => attachMedia(db, tenant, listingId, ids, store)),
        errors,
      );
    }

    async function row(id: string): Promise<{ state: string; size_bytes: number | null; listing_id: string | null }> {
      const { rows } = await pool.query(
        "SELECT state, size_bytes, listing_id FROM listing_media WHERE agency_id = 'agency-s3' AND external_media_id = $1",
        [id],
      );
      return rows[0];
    }

    it('attaches an uploaded object, recording its size', async () => {
      const key = await awaiting('s3-ok');
      await refused(
        ['s3-ok'],
        [{ name: '/media/0/externalMediaId', reason: 'has not been uploaded yet: PUT the file to its presignedURL first ("s3-ok").' }],
      );
      assert.equal(await upload(key, Buffer.alloc(2048, 3), 'image/jpeg'), 200);
      await withTenant(pool, tenant, (db) => attachMedia(db, tenant, listingId, ['s3-ok'], store));
      assert.deepEqual(await row('s3-ok'), { state: 'ATTACHED', size_bytes: 2048, listing_id: listingId });
    });

    it('deletes an object over 40 MiB, which a presigned PUT cannot prevent, and refuses it', async () => {
      const key = await awaiting('s3-big');
      standIn.objects.set(key, { body: Buffer.alloc(0), size: MAX_MEDIA_BYTES + 1, contentType: 'image/jpeg' });
      await refused(
        ['s3-big'],
        [
          {
            name: '/media/0/externalMediaId',
            reason: `was larger than ${MAX_MEDIA_BYTES} bytes and has been deleted: upload a smaller file ("s3-big").`,
          },
        ],
      );
      assert.equal(standIn.objects.has(key), false);
      assert.equal(standIn.requests.at(-1)?.method, 'DELETE');
      assert.equal((await row('s3-big')).state, 'AWAITING_UPLOAD');
    });

    it('refuses an object stored with another type', async () => {
      const key = await awaiting('s3-type');
      standIn.objects.set(key, { body: Buffer.from('x'), size: 1, contentType: 'text/html' });
      await refused(['s3-type'], [{ name: '/media/0/externalMediaId', reason: 'was uploaded as text/html, not image/jpeg ("s3-type").' }]);
    });
  });
});

describe('an S3 store that fails', () => {
  const requests: string[] = [];
  // Its own 5xx to everything, as S3 says when it is overloaded (after the SDK's own retries).
  const failing = createServer((req, res) => {
    requests.push(req.method ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end(
        req.method === 'HEAD'
          ? undefined
          : '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
    });
  });
  let failingStore: S3BlobStore;
  let closedStore: S3BlobStore;

  before(async () => {
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const { port } = failing.address() as { port: number };
    failingStore = new S3BlobStore({
      endpoint: `http://127.0.0.1:${port}`,
      bucket: 'media',
      region: 'us-east-1',
      forcePathStyle: true,
      ...CREDENTIALS,
    });
    // A port nothing listens on: the connection is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    closedStore = new S3BlobStore({
      endpoint: `http://127.0.0.1:${closedPort}`,
      bucket: 'media',
      region: 'us-east-1',
      forcePathStyle: true,
      ...CREDENTIALS,
    });
  });

  after(async () => new Promise<void>((resolve) => failing.close(() => resolve())));

  function unavailable(error: unknown): boolean {
    assert.ok(error instanceof Problem, String(error));
    assert.equal(error.status, 503);
    assert.deepEqual(error.body('t'), {
      type: '/problems/service-unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: 'The media store is unavailable; retry later',
      instance: 't',
    });
    assert.deepEqual(error.headers, { 'retry-after': '5' });
    return true;
  }

  it('is unavailable (the 503 problem with Retry-After) when it answers 5xx: stat, read and delete', async () => {
    await assert.rejects(failingStore.stat('listings/production/a.jpg'), unavailable);
    await assert.rejects(failingStore.read('listings/production/a.jpg'), unavailable);
    await assert.rejects(failingStore.delete('listings/production/a.jpg'), unavailable);
    // The SDK tried each three times (maxAttempts) before giving up.
    assert.deepEqual(requests, ['HEAD', 'HEAD', 'HEAD', 'GET', 'GET', 'GET', 'DELETE', 'DELETE', 'DELETE']);
  });

  it('is unavailable when nothing answers (connection refused), not a database outage', async () => {
    await assert.rejects(closedStore.stat('listings/production/a.jpg'), unavailable);
    await assert.rejects(closedStore.delete('listings/production/a.jpg'), unavailable);
  });
});
