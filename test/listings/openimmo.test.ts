/*
 * The OpenImmo intake through real HTTP, with the worker running: a ZIP and an XML posted, each
 * object applied as a listing (or refused beside the others), its pictures stored as media, a feed
 * of the same file again changing nothing and storing nothing, TEIL deletes, VOLL retirements that
 * touch only the provider's OpenImmo listings, the refusals known at once and those the worker
 * finds, and isolation between agencies.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, after, describe, it } from 'node:test';
import { listingsApi } from '../../src/apis/listings/index.js';
import { OPENIMMO_RETENTION_TASK, openimmoRetentionTask } from '../../src/apis/listings/jobs.js';
import { MAX_ATTEMPTS, MAX_UNFINISHED_IMPORTS, UNFINISHED_RETRY_AFTER_SECONDS } from '../../src/apis/listings/openimmo/intake.js';
import { createLogger } from '../../src/platform/log.js';
import { listingWithMedia } from '../fixtures/listings.js';
import {
  deletion,
  houseForSale,
  jpeg,
  mixedPackage,
  rentApartment,
  simpleTransfer,
  transfer,
  tx,
  zipOf,
} from '../fixtures/openimmo/documents.js';
import { assertProblem, type HttpResult, http, rawHttp, type TestServer, USER_AGENT, useServer } from '../helpers.js';

const ROOT = '/import-listings/v1';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-openimmo-'));
const fixture = useServer({
  env: { DATA_DIR: dataDir },
  worker: true,
  client: { intermediaries: ['agency-a', 'agency-b'], scopes: ['clim:*'] },
});
// No worker: what it posts stays PROCESSING.
const idle = useServer({ env: { DATA_DIR: dataDir }, client: { intermediaries: ['agency-a'], scopes: ['clim:*'] } });
let server: TestServer;
let tokenA: string;
let tokenB: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  tokenA = await fixture.token({ root: ROOT, intermediary: 'agency-a' });
  tokenB = await fixture.token({ root: ROOT, intermediary: 'agency-b' });
});

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function post(body: Buffer | string, contentType: string, token = tokenA): Promise<HttpResult> {
  const response = await fetch(`${server.base}${ROOT}/openimmo-imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': contentType },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) };
}

interface ImportBody {
  importId: string;
  warnings?: { path: string; reason: string }[];
  status: string;
  umfang?: string;
  createdAt: string;
  finishedAt?: string;
  sizeBytes: number;
  objects: Record<string, unknown>[];
  problem?: Record<string, unknown>;
}

/** Posts a file, checks the 202, and waits for the worker to finish it. */
async function imported(body: Buffer | string, contentType: string, token = tokenA): Promise<ImportBody> {
  const accepted = await post(body, contentType, token);
  assert.equal(accepted.status, 202, accepted.text);
  const { importId } = accepted.body as { importId: string };
  const self = `${server.base}${ROOT}/openimmo-imports/${importId}`;
  assert.deepEqual(accepted.body, { importId, links: [{ rel: 'self', href: self }] });
  assert.equal(accepted.headers.get('location'), self);
  for (let tries = 0; tries < 300; tries += 1) {
    const read = await http('GET', self, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(read.status, 200, read.text);
    const found = read.body as ImportBody;
    if (found.status !== 'PROCESSING') {
      assert.equal(found.importId, importId);
      assert.equal(found.sizeBytes, Buffer.byteLength(body));
      assert.ok(found.finishedAt !== undefined && found.finishedAt >= found.createdAt);
      return found;
    }
    await sleep(100);
  }
  assert.fail(`import ${importId} still PROCESSING after 30 s`);
}

function summary(objects: Record<string, unknown>[]): string[] {
  return objects.map((object) => `${object.objektnrExtern ?? '-'} ${object.action}`);
}

async function listing(id: string, token = tokenA): Promise<HttpResult> {
  return http('GET', `${server.base}${ROOT}/listings/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
}

async function mediaRows(): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM listing_media WHERE agency_id = 'agency-a'");
  return rows[0]?.n ?? 0;
}

const P = '/openimmo/anbieter[1]/immobilie';
const notMapped = (index: number, ...elements: string[]) =>
  elements.map((element) => ({ path: `${P}[${index}]/${element}`, reason: 'not mapped: the listing model has no place for it' }));
/** What the flat of the fixtures carries that the listing model has no place for. */
const flatWarnings = (index: number) =>
  notMapped(
    index,
    'kontaktperson/personennummer',
    'preise/heizkosten_enthalten',
    'ausstattung/bad',
    'zustand_angaben/energiepass',
    'freitexte/dreizeiler',
    'infrastruktur',
  );
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The objects with each listingId checked for form and then left out, so the rest compares whole. */
function withoutListingIds(objects: Record<string, unknown>[]): Record<string, unknown>[] {
  return objects.map(({ listingId, ...rest }) => {
    if (listingId !== undefined) assert.match(String(listingId), ID);
    return rest;
  });
}

const created = (index: number, id: string, warnings?: { path: string; reason: string }[]) => ({
  objektnrExtern: id,
  path: `${P}[${index}]`,
  action: 'created',
  externalListingId: id,
  ...(warnings ? { warnings } : {}),
});

describe('POST /openimmo-imports', () => {
  let firstVoll: ImportBody;

  it('applies each object of a VOLL ZIP: listings created with their pictures, the refused ones beside them, warnings for what has no place', async () => {
    const { xml, files } = mixedPackage();
    firstVoll = await imported(zipOf({ 'export.xml': xml, ...files }), 'application/zip');
    assert.equal(firstVoll.status, 'DONE');
    assert.equal(firstVoll.umfang, 'VOLL');
    assert.equal(firstVoll.problem, undefined);
    assert.deepEqual(withoutListingIds(firstVoll.objects), [
      created(1, 'W-17', flatWarnings(1)),
      created(2, 'H-1'),
      created(3, 'G-1'),
      created(4, 'B-1'),
      created(5, 'P-1'),
      {
        objektnrExtern: 'F-1',
        path: `${P}[6]`,
        action: 'refused',
        errors: [
          {
            path: `${P}[6]/objektkategorie/objektart/freizeitimmobilie_gewerblich`,
            reason: 'the objektart freizeitimmobilie_gewerblich has no estateType in the listing model: such objects cannot be listed',
          },
        ],
      },
      {
        objektnrExtern: null,
        path: `${P}[7]`,
        action: 'refused',
        errors: [
          {
            path: `${P}[7]/verwaltung_techn/objektnr_extern`,
            reason:
              'missing: objektnr_extern identifies the listing (offererEstateId); without it the object can be neither stored nor deleted',
          },
        ],
        warnings: flatWarnings(7),
      },
      {
        objektnrExtern: 'W-99',
        path: `${P}[8]`,
        action: 'unchanged',
        externalListingId: 'W-99',
        warnings: [
          { path: `${P}[8]/verwaltung_techn/aktion`, reason: 'DELETE of a listing this agency does not have ("W-99"): nothing to do.' },
        ],
      },
      created(9, 'H-REF'),
    ]);

    // The flat as the listing API serves it: its two files stored as media, the title picture first.
    const flat = await listing('W-17');
    assert.equal(flat.status, 200, flat.text);
    const served = (flat.body as { listing: Record<string, unknown> & { media: { externalMediaId: string }[] } }).listing;
    assert.deepEqual(
      served.media.map(({ externalMediaId, ...rest }) => {
        assert.match(externalMediaId, /^openimmo-[0-9a-f]{40}$/);
        return rest;
      }),
      [
        { mediaType: 'PICTURE', category: 'COVER_PICTURE', title: 'Front' },
        { mediaType: 'PICTURE', category: 'FLOOR_PLAN' },
      ],
    );
    assert.deepEqual(served.metadata, {
      source: { offererEstateId: 'W-17', offererMarketingKey: 'A-0001' },
      externalId: '17',
      softwareName: 'FIXTUREGEN 0.1',
      externalCustomerId: 'A-0001',
      isPublished: true,
    });
    assert.equal(served.isPublished, true);
    const { rows } = await server.pool.query<{ state: string; size_bytes: number; file_name: string }>(
      "SELECT state, size_bytes, file_name FROM listing_media WHERE agency_id = 'agency-a' ORDER BY file_name",
    );
    assert.deepEqual(rows, [
      { state: 'ATTACHED', size_bytes: jpeg('front').length, file_name: 'img_001.jpg' },
      { state: 'ATTACHED', size_bytes: jpeg('plan').length, file_name: 'plan_001.jpg' },
    ]);
    // A REFERENZ object is a showcase: stored, not published.
    assert.equal(((await listing('H-REF')).body as { listing: { isPublished: boolean } }).listing.isPublished, false);
  });

  it('changes nothing and stores no file again when the same ZIP comes again', async () => {
    const { xml, files } = mixedPackage();
    const before = await mediaRows();
    const again = await imported(zipOf({ 'export.xml': xml, ...files }), 'application/zip');
    assert.deepEqual(summary(again.objects), [
      'W-17 unchanged',
      'H-1 unchanged',
      'G-1 unchanged',
      'B-1 unchanged',
      'P-1 unchanged',
      'F-1 refused',
      '- refused',
      'W-99 unchanged',
      'H-REF unchanged',
    ]);
    assert.deepEqual(
      again.objects.map((object) => object.listingId),
      firstVoll.objects.map((object) => object.listingId),
    );
    assert.equal(await mediaRows(), before);
  });

  it('updates and deletes with a TEIL XML posted alone, in any namespace style, and leaves what it does not name', async () => {
    const xml = simpleTransfer(
      [rentApartment({ kaltmiete: '950' }), deletion('P-1')],
      { umfang: 'TEIL' },
      { prefix: 'imo', booleans: 'digits' },
    );
    const done = await imported(xml, 'application/xml; charset=utf-8');
    assert.equal(done.umfang, 'TEIL');
    assert.deepEqual(withoutListingIds(done.objects), [
      {
        objektnrExtern: 'W-17',
        path: `${P}[1]`,
        action: 'updated',
        externalListingId: 'W-17',
        warnings: [
          ...flatWarnings(1),
          // In display order: the title picture first.
          {
            path: `${P}[1]/anhaenge/anhang[2]`,
            reason: 'not stored: it names the file "img_001.jpg", but an XML posted alone has no files: post a ZIP with it.',
          },
          {
            path: `${P}[1]/anhaenge/anhang[1]`,
            reason: 'not stored: it names the file "plan_001.jpg", but an XML posted alone has no files: post a ZIP with it.',
          },
        ],
      },
      { objektnrExtern: 'P-1', path: `${P}[2]`, action: 'deleted', externalListingId: 'P-1' },
    ]);
    const flat = (await listing('W-17')).body as {
      listing: { data: { prices: { rent: { baseRent: { amount: number } } } }; media?: unknown };
    };
    assert.equal(flat.listing.data.prices.rent.baseRent.amount, 950);
    assert.equal(flat.listing.media, undefined);
    assert.equal((await listing('P-1')).status, 404);
    assert.equal((await listing('H-1')).status, 200);
  });

  it("deletes in a VOLL the provider's OpenImmo listings the file no longer names, and no listing written as JSON", async () => {
    const json = await http('POST', `${server.base}${ROOT}/listings`, {
      headers: { authorization: `Bearer ${tokenA}` },
      body: listingWithMedia('J-1', []),
    });
    assert.equal(json.status, 201, json.text);
    const done = await imported(simpleTransfer([houseForSale()], { umfang: 'VOLL' }), 'text/xml');
    assert.deepEqual(summary(done.objects), ['H-1 unchanged', 'B-1 deleted', 'G-1 deleted', 'H-REF deleted', 'W-17 deleted']);
    const retired = done.objects[1] as Record<string, unknown>;
    assert.deepEqual(withoutListingIds([retired]), [
      {
        objektnrExtern: 'B-1',
        path: '/openimmo/anbieter[1]',
        action: 'deleted',
        externalListingId: 'B-1',
        warnings: [
          { path: '/openimmo/uebertragung/@umfang', reason: 'VOLL: this listing of the provider is not in the file, so it was deleted.' },
        ],
      },
    ]);
    const list = await http('GET', `${server.base}${ROOT}/listings`, { headers: { authorization: `Bearer ${tokenA}` } });
    assert.deepEqual(list.body, { externalListingIds: ['H-1', 'J-1'], nextPageToken: null });
  });

  it("keeps agencies apart: another agency's import is a 404, and its objects land in its own listings", async () => {
    const xml = transfer({
      umfang: 'TEIL',
      providers: [{ anbieternr: 'B-0001', objects: [houseForSale()], extra: [tx('impressum', 'Beispiel Makler GmbH, Berlin')] }],
    });
    const done = await imported(xml, 'application/xml', tokenB);
    assert.deepEqual(summary(done.objects), ['H-1 created']);
    // What the file holds outside its objects is the import's own warnings.
    assert.deepEqual(done.warnings, [
      { path: '/openimmo/anbieter[1]/impressum', reason: 'not mapped: the listing model has no place for it' },
    ]);
    const foreign = await http('GET', `${server.base}${ROOT}/openimmo-imports/${done.importId}`, {
      headers: { authorization: `Bearer ${tokenA}` },
    });
    assertProblem(foreign, 404, 'Not found', `No OpenImmo import with importId "${done.importId}"`);
    const malformed = await http('GET', `${server.base}${ROOT}/openimmo-imports/not-an-id`, {
      headers: { authorization: `Bearer ${tokenA}` },
    });
    assertProblem(malformed, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'importId', reason: 'must match format "uuid".' }],
      errorSource: 'requestParameter',
    });
  });

  it('refuses at once what is known at once: the content type, a file that is no ZIP or no XML, an empty one, one over the size limit', async () => {
    const json = await post('{}', 'application/json');
    assertProblem(
      json,
      415,
      'Unsupported media type',
      'Content type "application/json" is not accepted; send application/zip (an OpenImmo ZIP) or application/xml (the XML alone)',
      {
        errors: [{ name: 'Content-Type', reason: 'must be application/zip or application/xml' }],
        errorSource: 'contentType',
      },
    );
    const notZip = await post('<openimmo/>', 'application/zip');
    assertProblem(notZip, 400, 'Bad request', 'The file is not an OpenImmo transfer', {
      errors: [{ name: '', reason: 'is not a ZIP file (it does not start with PK\\x03\\x04).' }],
      errorSource: 'body',
    });
    const notXml = await post('{"openimmo":1}', 'application/xml');
    assertProblem(notXml, 400, 'Bad request', 'The file is not an OpenImmo transfer', {
      errors: [{ name: '', reason: 'is not XML: it does not start with "<".' }],
      errorSource: 'body',
    });
    const empty = await post('', 'application/xml');
    assertProblem(empty, 400, 'Bad request', 'The file is not an OpenImmo transfer', {
      errors: [{ name: '', reason: 'is empty: send the OpenImmo ZIP or XML.' }],
      errorSource: 'body',
    });
    const tooLarge = await rawHttp(
      'POST',
      `${server.base}${ROOT}/openimmo-imports`,
      { authorization: `Bearer ${tokenA}`, 'user-agent': USER_AGENT, 'content-type': 'application/zip' },
      [],
      64 * 1024 * 1024 + 1,
    );
    assertProblem(tooLarge, 413, 'Payload too large', 'The request body exceeds 67108864 bytes');
  });

  it('fails an import whose file the worker refuses as a whole, with the problem', async () => {
    const failed = async (body: Buffer | string, contentType: string, detail: string) => {
      const done = await imported(body, contentType);
      assert.deepEqual(
        { status: done.status, umfang: done.umfang, objects: done.objects, problem: done.problem },
        { status: 'FAILED', umfang: undefined, objects: [], problem: { status: 400, title: 'Bad request', detail } },
      );
    };
    await failed(
      zipOf({ 'a.xml': '<openimmo/>', 'b.xml': '<openimmo/>' }),
      'application/zip',
      'the ZIP holds 2 XML files: a.xml, b.xml; send one per package',
    );
    await failed(
      '<?xml version="1.0"?><!DOCTYPE openimmo [<!ENTITY x "y">]><openimmo/>',
      'application/xml',
      'DTDs are not accepted: the XML has a <!DOCTYPE> at line 1, column 59; OpenImmo needs none, remove it ' +
        '(entities other than &amp; &lt; &gt; &quot; &apos; and character references are not expanded)',
    );
    await failed('<feed/>', 'application/xml', 'not an OpenImmo document: the root element is <feed>, not <openimmo>');
  });
});

describe('the imports table', () => {
  const context = () => ({
    pool: server.pool,
    logger: createLogger({ logLevel: 'silent' }),
    config: server.config,
    workerId: '00000000-0000-4000-8000-000000000000',
    leaseSeconds: 10,
    signal: new AbortController().signal,
  });

  it('keeps a finished import DELIVERY_RETENTION_DAYS, then deletes it and not its listings (an hourly task)', async () => {
    assert.ok(listingsApi.tasks?.includes(openimmoRetentionTask));
    assert.equal(openimmoRetentionTask.name, OPENIMMO_RETENTION_TASK);
    assert.equal(openimmoRetentionTask.everySeconds, 3600);
    const old = await imported(simpleTransfer([houseForSale({ objektnrExtern: 'R-OLD' })]), 'application/xml');
    const recent = await imported(simpleTransfer([houseForSale({ objektnrExtern: 'R-NEW' })]), 'application/xml');
    const days = server.config.deliveryRetentionDays;
    await server.pool.query(`UPDATE openimmo_imports SET finished_at = now() - make_interval(days => $2) WHERE id = $1`, [
      old.importId,
      days + 1,
    ]);
    await server.pool.query(`UPDATE openimmo_imports SET finished_at = now() - make_interval(days => $2) WHERE id = $1`, [
      recent.importId,
      days - 1,
    ]);
    await openimmoRetentionTask.run(context());
    const read = (id: string) =>
      http('GET', `${server.base}${ROOT}/openimmo-imports/${id}`, { headers: { authorization: `Bearer ${tokenA}` } });
    assert.equal((await read(old.importId)).status, 404);
    assert.equal((await read(recent.importId)).status, 200);
    assert.equal((await listing('R-OLD')).status, 200);
  });

  it('lists an agency’s imports newest first, 20 a page, every one once however close their arrivals', async () => {
    // Finished imports of agency-b written in one statement: the same microsecond for all of them.
    await server.pool.query(
      `INSERT INTO openimmo_imports (id, environment, agency_id, status, kind, size_bytes, finished_at)
       SELECT gen_random_uuid(), 'production', 'agency-b', 'DONE', 'xml', 1, now() FROM generate_series(1, 23)`,
    );
    const { rows } = await server.pool.query<{ id: string }>(
      "SELECT id FROM openimmo_imports WHERE environment = 'production' AND agency_id = 'agency-b' ORDER BY seq DESC",
    );
    const page = async (token?: string) => {
      const query = token === undefined ? '' : `?nextPageToken=${encodeURIComponent(token)}`;
      const read = await http('GET', `${server.base}${ROOT}/openimmo-imports${query}`, { headers: { authorization: `Bearer ${tokenB}` } });
      assert.equal(read.status, 200, read.text);
      return read.body as { imports: ImportBody[]; nextPageToken: string | null };
    };
    const first = await page();
    assert.equal(first.imports.length, 20);
    assert.ok(first.nextPageToken !== null);
    const second = await page(first.nextPageToken);
    assert.equal(second.nextPageToken, null);
    assert.deepEqual(
      [...first.imports, ...second.imports].map((found) => found.importId),
      rows.map((row) => row.id),
    );
    const forged = await http('GET', `${server.base}${ROOT}/openimmo-imports?nextPageToken=bDE6MQ`, {
      headers: { authorization: `Bearer ${tokenB}` },
    });
    assertProblem(forged, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'nextPageToken', reason: 'is not a nextPageToken this endpoint returned.' }],
      errorSource: 'requestParameter',
    });
  });

  it(`fails an import whose runs all ended in an error after ${MAX_ATTEMPTS} of them, saying so`, async () => {
    // Queued as a POST queues it, with every run so far failed: the next claim is one more.
    const importId = randomUUID();
    const file = Buffer.from(simpleTransfer([houseForSale({ objektnrExtern: 'R-STUCK' })]));
    await server.pool.query(
      `INSERT INTO openimmo_imports (id, environment, agency_id, kind, payload, size_bytes, attempts)
       VALUES ($1, 'production', 'agency-b', 'xml', $2, $3, $4)`,
      [importId, file, file.length, MAX_ATTEMPTS],
    );
    for (let tries = 0; tries < 300; tries += 1) {
      const read = await http('GET', `${server.base}${ROOT}/openimmo-imports/${importId}`, {
        headers: { authorization: `Bearer ${tokenB}` },
      });
      const found = read.body as ImportBody;
      if (found.status !== 'PROCESSING') {
        assert.deepEqual(
          [found.status, found.objects, found.problem],
          [
            'FAILED',
            [],
            {
              status: 500,
              title: 'Internal server error',
              detail: `The import could not be applied in ${MAX_ATTEMPTS} attempts; quote its importId when reporting it`,
            },
          ],
        );
        assert.equal((await listing('R-STUCK', tokenB)).status, 404);
        return;
      }
      await sleep(100);
    }
    assert.fail('still PROCESSING after 30 s');
  });
});

describe('capacity', () => {
  it(`refuses an agency's import while ${MAX_UNFINISHED_IMPORTS} of its imports are still processing (429 with Retry-After), not another agency's`, async () => {
    const token = await idle.token({ root: ROOT, intermediary: 'agency-a' });
    const sandbox = await idle.token({ root: `/sandbox${ROOT}`, intermediary: 'agency-a' });
    const send = (root: string, bearer: string) =>
      fetch(`${idle.server.base}${root}/openimmo-imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'user-agent': USER_AGENT, 'content-type': 'application/xml' },
        body: simpleTransfer([houseForSale()]),
      });
    for (let i = 0; i < MAX_UNFINISHED_IMPORTS; i += 1) assert.equal((await send(ROOT, token)).status, 202);
    const refused = await send(ROOT, token);
    const text = await refused.text();
    assertProblem(
      { status: refused.status, headers: refused.headers, text, body: JSON.parse(text) },
      429,
      'Too many requests',
      `This agency has ${MAX_UNFINISHED_IMPORTS} OpenImmo imports still processing; post the next one when one of them is done`,
    );
    assert.equal(refused.headers.get('retry-after'), String(UNFINISHED_RETRY_AFTER_SECONDS));
    // Counted per agency and environment: the same agency's sandbox is not held back.
    assert.equal((await send(`/sandbox${ROOT}`, sandbox)).status, 202);
  });
});

describe('the OpenAPI document of the listing import', () => {
  it('marks the OpenImmo routes as immogate extensions, the POST with its two body types', async () => {
    const document = (await http('GET', `${server.base}${ROOT}/openapi.json`)).body as {
      paths: Record<string, Record<string, { 'x-immogate-extension'?: boolean; requestBody?: unknown; tags?: string[] }>>;
    };
    const post = document.paths['/openimmo-imports']?.post;
    const read = document.paths['/openimmo-imports/{importId}']?.get;
    const list = document.paths['/openimmo-imports']?.get;
    for (const operation of [post, read, list]) {
      assert.equal(operation?.['x-immogate-extension'], true);
      assert.deepEqual(operation?.tags, ['OpenImmo']);
    }
    assert.deepEqual(post?.requestBody, {
      required: true,
      content: {
        'application/zip': { schema: { type: 'string', format: 'binary' } },
        'application/xml': { schema: { type: 'string', format: 'binary' } },
      },
    });
  });
});
