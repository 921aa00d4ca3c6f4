/*
 * Sandbox retention of the Listing import API: sandbox listings are deleted 90 days after their
 * last write, production listings never. The clock is injected (sweepSandboxListings' `now`), so
 * nothing waits; listings are written and read through real HTTP.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listingsApi } from '../../src/apis/listings/index.js';
import { retentionTask } from '../../src/apis/listings/jobs.js';
import { mediaStore, sweepMedia } from '../../src/apis/listings/services/medias.js';
import { SANDBOX_RETENTION_DAYS, sweepSandboxListings } from '../../src/apis/listings/services/retention.js';
import { createLogger } from '../../src/platform/log.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { USER_AGENT, http, type HttpResult, type TestServer, useServer } from '../helpers.js';

type Body = Record<string, any>;

const ROOT = '/import-listings/v1';
const SANDBOX = '/sandbox/import-listings/v1';
const DAY_MS = 24 * 3600 * 1000;

const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'immogate-retention-'));
const fixture = useServer({ env: { DATA_DIR: dataDir }, client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['clim:*'] } });
let server: TestServer;
let production: string;
let sandbox: string;
let otherSandbox: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  production = await fixture.token({ root: ROOT, intermediary: 'agency-1' });
  sandbox = await fixture.token({ root: SANDBOX, intermediary: 'agency-1' });
  otherSandbox = await fixture.token({ root: SANDBOX, intermediary: 'agency-2' });
});

after(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function listing(id: string, mediaIds: string[] = []): Body {
  const body = berlinRentApartment() as Body;
  body.metadata.source.offererEstateId = id;
  if (mediaIds.length > 0) body.media = mediaIds.map((externalMediaId) => ({ externalMediaId }));
  return body;
}

function call(method: string, root: string, path: string, bearer: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${root}${path}`, { headers: { authorization: `Bearer ${bearer}` }, body });
}

async function create(root: string, bearer: string, id: string, mediaIds: string[] = []): Promise<void> {
  const result = await call('POST', root, '/listings', bearer, listing(id, mediaIds));
  assert.equal(result.status, 201, result.text);
}

/** 200 while the listing exists, 404 once it is gone. */
async function statusOf(root: string, bearer: string, id: string): Promise<number> {
  return (await call('GET', root, `/listings/${id}`, bearer)).status;
}

/** The last write of a listing, to the millisecond below the stored microseconds. */
async function lastWrite(environment: string, agencyId: string, id: string): Promise<Date> {
  const { rows } = await server.pool.query<{ last_write_at: Date }>(
    'SELECT last_write_at FROM listings WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3',
    [environment, agencyId, id],
  );
  return rows[0]!.last_write_at;
}

/** Moves a listing's last write into the past: the test's stand-in for a listing written long ago. */
async function backdate(environment: string, agencyId: string, id: string, days: number): Promise<void> {
  await server.pool.query(
    'UPDATE listings SET last_write_at = now() - make_interval(secs => $4 * 86400.0) WHERE environment = $1 AND agency_id = $2 AND external_listing_id = $3',
    [environment, agencyId, id, days],
  );
}

const plusDays = (date: Date, days: number, ms = 0): Date => new Date(date.getTime() + days * DAY_MS + ms);

describe('sweepSandboxListings', () => {
  it('keeps sandbox listings 90 days after their last write and deletes them after that; production never', async () => {
    await create(SANDBOX, sandbox, 'old-1');
    await create(SANDBOX, otherSandbox, 'old-2');
    await create(ROOT, production, 'prod-1');
    await create(ROOT, production, 'old-1');
    // Half a day apart, so the two sandbox listings reach their 90 days at clearly different times.
    await backdate('sandbox', 'agency-1', 'old-1', 0.5);
    const first = await lastWrite('sandbox', 'agency-1', 'old-1');
    const last = await lastWrite('sandbox', 'agency-2', 'old-2');

    assert.equal(await sweepSandboxListings(server.pool, plusDays(last, 89)), 0);
    // The boundary: written exactly 90 days before `now` is kept (deleted only when older than that).
    // `first` is the stored time cut to milliseconds, so the listing is at most 90 days old here...
    assert.equal(await sweepSandboxListings(server.pool, plusDays(first, SANDBOX_RETENTION_DAYS)), 0);
    assert.equal(await statusOf(SANDBOX, sandbox, 'old-1'), 200);
    // ...and one millisecond later it is older.
    assert.equal(await sweepSandboxListings(server.pool, plusDays(first, SANDBOX_RETENTION_DAYS, 1)), 1);
    assert.equal(await statusOf(SANDBOX, sandbox, 'old-1'), 404);
    assert.equal(await statusOf(SANDBOX, otherSandbox, 'old-2'), 200);

    assert.equal(await sweepSandboxListings(server.pool, plusDays(last, 91)), 1);
    assert.equal(await statusOf(SANDBOX, otherSandbox, 'old-2'), 404);
    const page = await call('GET', SANDBOX, '/listings', otherSandbox);
    assert.deepEqual(page.body, { externalListingIds: [], nextPageToken: null });

    // Production listings, the one with the same externalListingId included, stay whatever the clock says.
    assert.equal(await sweepSandboxListings(server.pool, plusDays(last, 10_000)), 0);
    assert.equal(await statusOf(ROOT, production, 'prod-1'), 200);
    assert.equal(await statusOf(ROOT, production, 'old-1'), 200);
  });

  it('counts from the last write: an update restarts the 90 days', async () => {
    await create(SANDBOX, sandbox, 'updated');
    await create(SANDBOX, sandbox, 'untouched');
    await backdate('sandbox', 'agency-1', 'updated', 100);
    await backdate('sandbox', 'agency-1', 'untouched', 100);
    const put = await call('PUT', SANDBOX, '/listings/updated', sandbox, listing('updated'));
    assert.equal(put.status, 202, put.text);

    assert.equal(await sweepSandboxListings(server.pool, new Date()), 1);
    assert.equal(await statusOf(SANDBOX, sandbox, 'untouched'), 404);
    assert.equal(await statusOf(SANDBOX, sandbox, 'updated'), 200);
    // A create after the sweep reuses the freed externalListingId.
    await create(SANDBOX, sandbox, 'untouched');
  });

  it('leaves the media of swept listings to the media sweep, which deletes their rows and files', async () => {
    const media = await call('POST', SANDBOX, '/medias', sandbox, { externalMediaId: 'old-photo', fileName: 'old-photo.jpg' });
    assert.equal(media.status, 201, media.text);
    const presignedURL = (media.body as Body).presignedURL as string;
    const upload = await fetch(presignedURL, {
      method: 'PUT',
      headers: { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' },
      body: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]),
    });
    assert.equal(upload.status, 200, await upload.text());
    await create(SANDBOX, sandbox, 'with-photo', ['old-photo']);
    const key = new URL(presignedURL).pathname.replace(/^.*\/media-uploads\//, '');
    const store = await mediaStore({ config: server.config, pool: server.pool });
    assert.equal(await store.exists(key), true);

    await backdate('sandbox', 'agency-1', 'with-photo', 91);
    assert.equal(await sweepSandboxListings(server.pool, new Date()), 1);
    assert.equal(await sweepMedia(server.pool, store, { warn: () => undefined }), 1);
    assert.equal(await store.exists(key), false);
    const { rows } = await server.pool.query("SELECT 1 FROM listing_media WHERE external_media_id = 'old-photo'");
    assert.equal(rows.length, 0);
  });
});

describe('the retention task', () => {
  it('runs daily as a task of the listing import API and sweeps with the current time', async () => {
    assert.ok(listingsApi.tasks?.includes(retentionTask));
    assert.equal(retentionTask.name, 'clim:sweep_sandbox_listings');
    assert.equal(retentionTask.everySeconds, 24 * 3600);

    await create(SANDBOX, sandbox, 'job-old');
    await create(SANDBOX, sandbox, 'job-recent');
    await backdate('sandbox', 'agency-1', 'job-old', 91);
    await backdate('sandbox', 'agency-1', 'job-recent', 89);
    const logger = createLogger({ logLevel: 'silent' });
    await retentionTask.run({
      pool: server.pool,
      logger,
      config: server.config,
      workerId: '00000000-0000-4000-8000-000000000000',
      leaseSeconds: 10,
      signal: new AbortController().signal,
    });
    assert.equal(await statusOf(SANDBOX, sandbox, 'job-old'), 404);
    assert.equal(await statusOf(SANDBOX, sandbox, 'job-recent'), 200);
  });
});
