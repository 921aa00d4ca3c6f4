/*
 * The listing endpoints of the Listing import API through real HTTP: POST /listings (201, duplicate,
 * a business rule, project listings, unpublished listings), GET /listings/{externalListingId},
 * PUT (rule 11, the path's id, last write), DELETE, GET /listings (keyset pages over 600 listings),
 * scopes, tenant isolation across agencies and environments, GET /health.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { ListingRequest, ListingResponse } from '../../src/apis/listings/model/listing.js';
import {
  assertProblem as problem,
  createTestDatabase,
  http,
  startTestServer,
  type HttpResult,
  type TestServer,
  USER_AGENT,
  useServer,
} from '../helpers.js';
import { berlinRentApartment } from '../fixtures/listings.js';

type Body = Record<string, any>;

const ROOT = '/import-listings/v1';
const SANDBOX = '/sandbox/import-listings/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The reasons of the model's rules (test/listings/rules.test.ts covers all 21): here they must reach the client as they are.
const RULE_17_ERRORS = [
  {
    name: '/data/prices/rent',
    reason:
      'rule 17: baseRent.amount, totalRent.amount or lease.amount must be greater than 0 for a rent with distributionSubType CLASSIC.',
  },
];
const RULE_11_ERRORS = [
  { name: '/data/estateType', reason: "rule 11: estateType cannot be changed by an update; the listing's estateType is APARTMENT." },
];
const PROJECT_ERRORS = [
  {
    name: '/data/externalProjectId',
    reason:
      'project classifieds are not supported at present: send each unit as a listing without project fields and not as estateType PROJECT.',
  },
];

/** A project unit with the project identifiers rule 10 asks for: refused only for being a project. */
function projectListing(body: Body): void {
  body.data.externalProjectId = 'PRJ-7';
  body.metadata.source.offererEstateGroupId = 'GRP-7';
}

const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'immogate-listings-'));
const fixture = useServer({
  env: { DATA_DIR: dataDir },
  client: { intermediaries: ['agency-1', 'agency-2', 'agency-paging'], scopes: ['clim:*'] },
});
let server: TestServer;
/** clim:* tokens: agency-1 and agency-2 in production, agency-1 in the sandbox, and the paging agency. */
let token: string;
let otherAgencyToken: string;
let sandboxToken: string;
let pagingToken: string;
let readOnlyToken: string;
let createOnlyToken: string;
let mediaOnlyToken: string;
let pagingSandboxToken: string;
let otherSandboxToken: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  // Media uploads land in the local blob store under DATA_DIR.
  token = await fixture.token({ root: ROOT, intermediary: 'agency-1' });
  otherAgencyToken = await fixture.token({ root: ROOT, intermediary: 'agency-2' });
  sandboxToken = await fixture.token({ root: SANDBOX, intermediary: 'agency-1' });
  pagingToken = await fixture.token({ root: ROOT, intermediary: 'agency-paging' });
  readOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-1', scope: 'clim:listings:read' });
  createOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-1', scope: 'clim:listings:create' });
  mediaOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-1', scope: 'clim:medias:*' });
  pagingSandboxToken = await fixture.token({ root: SANDBOX, intermediary: 'agency-paging' });
  otherSandboxToken = await fixture.token({ root: SANDBOX, intermediary: 'agency-2' });
});

after(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The documented response of GET one, with the request model it refers to: no member beyond them. */
const validListingResponse = (() => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  ajv.addSchema(ListingRequest);
  return ajv.compile(ListingResponse);
})();

/** The fixture (a valid rent apartment in Berlin) under the offererEstateId `id`. */
function listing(id: string, change: (body: Body) => void = () => undefined): Body {
  const body = berlinRentApartment() as Body;
  body.metadata.source.offererEstateId = id;
  change(body);
  return body;
}

function url(path: string, root = ROOT): string {
  return `${server.base}${root}${path}`;
}

function call(method: string, path: string, bearer = token, body?: unknown, root = ROOT): Promise<HttpResult> {
  return http(method, url(path, root), { headers: { authorization: `Bearer ${bearer}` }, body });
}

function path(externalListingId: string): string {
  return `/listings/${encodeURIComponent(externalListingId)}`;
}

/** Creates a listing, checks the whole 201, and answers it. */
async function created(body: Body, bearer = token, root = ROOT, warnings: Body[] = []): Promise<Body> {
  const result = await call('POST', '/listings', bearer, body, root);
  assert.equal(result.status, 201, result.text);
  const answer = result.body as Body;
  const externalListingId = body.metadata.source.offererEstateId;
  const location = url(path(externalListingId), root);
  assert.equal(result.headers.get('location'), location);
  assert.deepEqual(answer, {
    requestId: answer.requestId,
    listingId: answer.listingId,
    externalListingId,
    warnings,
    links: [{ rel: 'self', href: location }],
  });
  assert.match(answer.requestId, UUID);
  assert.match(answer.listingId, UUID);
  assert.notEqual(answer.requestId, answer.listingId);
  return answer;
}

function invalid(result: HttpResult, errors: { name: string; reason: string }[], errorSource: 'body' | 'requestParameter' = 'body'): void {
  problem(result, 400, 'Bad request', 'Your request has not been validated', { errors, errorSource });
}

function notFound(result: HttpResult, externalListingId: string): void {
  problem(result, 404, 'Not found', `No listing with externalListingId "${externalListingId}"`);
}

function forbidden(result: HttpResult, scope: string): void {
  problem(result, 403, 'Forbidden', `The access token lacks the scope ${scope}`);
  assert.equal(result.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="${scope}"`);
}

/** GET one, checking the 200 and the service-side members; answers the listing. */
async function read(externalListingId: string, bearer = token, root = ROOT): Promise<Body> {
  const result = await call('GET', path(externalListingId), bearer, undefined, root);
  assert.equal(result.status, 200, result.text);
  assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.ok(validListingResponse(result.body), JSON.stringify(validListingResponse.errors));
  const found = (result.body as Body).listing as Body;
  assert.match(found.creationDate, ISO_DATE);
  assert.match(found.lastUpdateDate, ISO_DATE);
  return found;
}

function expectedListing(body: Body, ack: Body, found: Body, isPublished = true): Body {
  return {
    ...body,
    listingId: ack.listingId,
    externalListingId: body.metadata.source.offererEstateId,
    isPublished,
    creationDate: found.creationDate,
    lastUpdateDate: found.lastUpdateDate,
  };
}

async function listAll(bearer: string, root = ROOT): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let next: string | null = null;
  for (let pages = 1; pages <= 50; pages++) {
    const query: string = next === null ? '' : `?nextPageToken=${encodeURIComponent(next)}`;
    const result = await call('GET', `/listings${query}`, bearer, undefined, root);
    assert.equal(result.status, 200, result.text);
    const page = result.body as Body;
    assert.deepEqual(Object.keys(page), ['externalListingIds', 'nextPageToken']);
    ids.push(...page.externalListingIds);
    next = page.nextPageToken;
    if (next === null) return { ids, pages };
  }
  throw new Error('more than 50 pages');
}

describe('POST /listings and GET /listings/{externalListingId}', () => {
  it('creates a listing (201, Location, links) and serves the stored request with its service-side members', async () => {
    const body = listing('create-1');
    const ack = await created(body);
    const found = await read('create-1');
    assert.deepEqual(found, expectedListing(body, ack, found));
    assert.equal(found.lastUpdateDate, found.creationDate);
    // The Location and the self link are where the listing is read.
    const viaLocation = await http('GET', ack.links[0].href, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(viaLocation.status, 200);
    assert.deepEqual(viaLocation.body, { listing: found });
  });

  it('refuses a second create of the same externalListingId in the same agency and environment, naming it', async () => {
    await created(listing('dup-1'));
    const again = await call(
      'POST',
      '/listings',
      token,
      listing('dup-1', (body) => (body.data.texts.headline.de = 'Eine andere Überschrift')),
    );
    invalid(again, [{ name: '/metadata/source/offererEstateId', reason: 'externalListingId "dup-1" already exists.' }]);
    // The first one is unchanged.
    assert.equal((await read('dup-1')).data.texts.headline.de, listing('dup-1').data.texts.headline.de);
  });

  it('lets another agency and the sandbox use the same externalListingId: each its own listing', async () => {
    const mine = await created(listing('shared-1'));
    const theirs = await created(
      listing('shared-1', (body) => (body.data.location.city = 'Berlin-Mitte')),
      otherAgencyToken,
    );
    const sandbox = await created(listing('shared-1'), sandboxToken, SANDBOX);
    assert.equal(new Set([mine.listingId, theirs.listingId, sandbox.listingId]).size, 3);
    assert.equal((await read('shared-1')).listingId, mine.listingId);
    assert.equal((await read('shared-1', otherAgencyToken)).data.location.city, 'Berlin-Mitte');
    assert.equal((await read('shared-1', sandboxToken, SANDBOX)).listingId, sandbox.listingId);
  });

  it('refuses a body the schema refuses, with every error (nothing stored)', async () => {
    const result = await call(
      'POST',
      '/listings',
      token,
      listing('schema-1', (body) => (body.spaceship = true)),
    );
    invalid(result, [{ name: '/spaceship', reason: 'must NOT have additional properties: spaceship.' }]);
    notFound(await call('GET', path('schema-1')), 'schema-1');
  });

  it("refuses a listing that breaks a business rule with the rule's reason (nothing stored)", async () => {
    const result = await call(
      'POST',
      '/listings',
      token,
      listing('rule-17', (body) => {
        body.data.prices.rent = { baseRent: { amount: 0 } };
      }),
    );
    invalid(result, RULE_17_ERRORS);
    notFound(await call('GET', path('rule-17')), 'rule-17');
  });

  it('refuses a project listing with a clear 400', async () => {
    const result = await call('POST', '/listings', token, listing('project-1', projectListing));
    invalid(result, PROJECT_ERRORS);
    notFound(await call('GET', path('project-1')), 'project-1');
  });

  it('stores a listing sent with isPublished false, serves it to its agency and marks it not published', async () => {
    const body = listing('draft-1', (draft) => (draft.metadata.isPublished = false));
    const ack = await created(body);
    const found = await read('draft-1');
    assert.deepEqual(found, expectedListing(body, ack, found, false));
    assert.ok((await listAll(token)).ids.includes('draft-1'));
    // Publishing it is an update.
    const published = listing('draft-1');
    assert.equal((await call('PUT', path('draft-1'), token, published)).status, 202);
    assert.equal((await read('draft-1')).isPublished, true);
  });

  it('answers 404 for an unknown externalListingId, one of another agency and one of the other environment', async () => {
    await created(listing('mine-only'));
    notFound(await call('GET', path('nope')), 'nope');
    notFound(await call('GET', path('mine-only'), otherAgencyToken), 'mine-only');
    notFound(await call('GET', path('mine-only'), sandboxToken, undefined, SANDBOX), 'mine-only');
  });

  it('refuses U+0000 in a body or an externalListingId path with a 400, not a database error', async () => {
    const body = listing('nul-1', (nul) => (nul.data.texts.headline.de = 'Helle\u0000Wohnung'));
    invalid(await call('POST', '/listings', token, body), [
      { name: '/data/texts/headline/de', reason: 'must not contain the NUL character (\\u0000).' },
    ]);
    invalid(
      await call(
        'PUT',
        path('create-1'),
        token,
        listing('create-1', (nul) => (nul.contact.company = '\u0000')),
      ),
      [{ name: '/contact/company', reason: 'must not contain the NUL character (\\u0000).' }],
    );
    invalid(
      await call('GET', path('nul\u0000id')),
      [{ name: 'externalListingId', reason: 'must not contain the NUL character (%00).' }],
      'requestParameter',
    );
  });

  it('serves an externalListingId with characters that need encoding in a path', async () => {
    const body = listing('Objekt 7/B ä');
    const ack = await created(body);
    const found = await read('Objekt 7/B ä');
    assert.deepEqual(found, expectedListing(body, ack, found));
  });
});

describe('PUT /listings/{externalListingId}', () => {
  it('replaces the listing (202 with the same listingId) and moves its last write', async () => {
    const ack = await created(listing('put-1'));
    const before = await read('put-1');
    const body = listing('put-1', (changed) => {
      changed.data.prices.rent.baseRent.amount = 1300;
      delete changed.contact;
    });
    const result = await call('PUT', path('put-1'), token, body);
    assert.equal(result.status, 202, result.text);
    const answer = result.body as Body;
    assert.deepEqual(answer, { requestId: answer.requestId, listingId: ack.listingId, externalListingId: 'put-1' });
    assert.match(answer.requestId, UUID);
    const after = await read('put-1');
    assert.deepEqual(after, expectedListing(body, ack, after));
    assert.equal(after.creationDate, before.creationDate);
    assert.ok(after.lastUpdateDate > before.lastUpdateDate, `${after.lastUpdateDate} after ${before.lastUpdateDate}`);
  });

  it('refuses to change the estateType (rule 11), leaving the listing as it was', async () => {
    const body = listing('rule-11');
    await created(body);
    const result = await call(
      'PUT',
      path('rule-11'),
      token,
      listing('rule-11', (changed) => {
        changed.data.estateType = 'HOUSE';
        delete changed.data.estateSubType;
      }),
    );
    invalid(result, RULE_11_ERRORS);
    assert.equal((await read('rule-11')).data.estateType, 'APARTMENT');
  });

  it("refuses a body whose offererEstateId is not the path's externalListingId", async () => {
    await created(listing('put-path'));
    const result = await call('PUT', path('put-path'), token, listing('put-other'));
    invalid(result, [{ name: '/metadata/source/offererEstateId', reason: 'must equal the externalListingId of the path ("put-path").' }]);
    notFound(await call('GET', path('put-other')), 'put-other');
  });

  it('checks the business rules on update too', async () => {
    await created(listing('put-rule'));
    const result = await call(
      'PUT',
      path('put-rule'),
      token,
      listing('put-rule', (body) => {
        body.data.prices.rent = { baseRent: { amount: 0 } };
      }),
    );
    invalid(result, RULE_17_ERRORS);
    assert.equal((await read('put-rule')).data.prices.rent.baseRent.amount, 1250);
  });

  it('answers 404 for an unknown listing, one of another agency and one of the other environment', async () => {
    await created(listing('put-mine'));
    notFound(await call('PUT', path('put-none'), token, listing('put-none')), 'put-none');
    notFound(await call('PUT', path('put-mine'), otherAgencyToken, listing('put-mine')), 'put-mine');
    notFound(await call('PUT', path('put-mine'), sandboxToken, listing('put-mine'), SANDBOX), 'put-mine');
  });
});

describe('DELETE /listings/{externalListingId}', () => {
  it('deletes the listing (202): it is gone, and its externalListingId can be created again', async () => {
    const ack = await created(listing('del-1'));
    const result = await call('DELETE', path('del-1'));
    assert.equal(result.status, 202, result.text);
    const answer = result.body as Body;
    assert.deepEqual(answer, { requestId: answer.requestId, listingId: ack.listingId, externalListingId: 'del-1' });
    assert.match(answer.requestId, UUID);
    notFound(await call('GET', path('del-1')), 'del-1');
    notFound(await call('DELETE', path('del-1')), 'del-1');
    notFound(await call('PUT', path('del-1'), token, listing('del-1')), 'del-1');
    assert.ok(!(await listAll(token)).ids.includes('del-1'));
    const again = await created(listing('del-1'));
    assert.notEqual(again.listingId, ack.listingId);
  });

  it('does not delete a listing of another agency or of the other environment', async () => {
    await created(listing('del-mine'));
    notFound(await call('DELETE', path('del-mine'), otherAgencyToken), 'del-mine');
    notFound(await call('DELETE', path('del-mine'), sandboxToken, undefined, SANDBOX), 'del-mine');
    await read('del-mine');
  });
});

describe('warnings', () => {
  it('answers non-blocking findings as warnings of the 201 and stores the listing all the same', async () => {
    const body = listing('warn-1', (imprecise) => delete imprecise.data.location.geometry);
    const ack = await created(body, token, ROOT, [
      { type: 'IMPRECISE_LOCATION', message: 'The location has no geometry: the listing is placed by its address.' },
    ]);
    const found = await read('warn-1');
    assert.deepEqual(found, expectedListing(body, ack, found));
  });
});

describe('GET /listings', () => {
  const ids = Array.from({ length: 600 }, (_, i) => `page-${String(i).padStart(3, '0')}`);

  it('answers an empty last page for an agency and environment without listings', async () => {
    const result = await call('GET', '/listings', otherSandboxToken, undefined, SANDBOX);
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.body, { externalListingIds: [], nextPageToken: null });
  });

  it('pages through 600 listings oldest first, 100 a page, with nextPageToken: each exactly once', async () => {
    for (const id of ids) {
      const result = await call('POST', '/listings', pagingToken, listing(id));
      assert.equal(result.status, 201, result.text);
    }
    const first = await call('GET', '/listings', pagingToken);
    assert.equal(first.status, 200);
    const firstPage = first.body as Body;
    assert.deepEqual(firstPage, { externalListingIds: ids.slice(0, 100), nextPageToken: firstPage.nextPageToken });
    assert.match(firstPage.nextPageToken, /^[A-Za-z0-9_-]+$/);
    const all = await listAll(pagingToken);
    assert.equal(all.pages, 6);
    assert.deepEqual(all.ids, ids);
  });

  it('loses and repeats nothing when listings are deleted and created between pages', async () => {
    const first = (await call('GET', '/listings', pagingToken)).body as Body;
    // Deleted: one already read and one still ahead. Created: one more, which comes last.
    assert.equal((await call('DELETE', path('page-050'), pagingToken)).status, 202);
    assert.equal((await call('DELETE', path('page-250'), pagingToken)).status, 202);
    await created(listing('page-new'), pagingToken);
    const rest: string[] = [];
    let next: string | null = first.nextPageToken;
    for (let i = 0; i < 10 && next !== null; i++) {
      const page = (await call('GET', `/listings?nextPageToken=${encodeURIComponent(next)}`, pagingToken)).body as Body;
      rest.push(...page.externalListingIds);
      next = page.nextPageToken;
    }
    assert.equal(next, null);
    assert.deepEqual([...first.externalListingIds, ...rest], [...ids.filter((id) => id !== 'page-250'), 'page-new']);
  });

  it('shows an agency only its own listings of its own environment', async () => {
    const production = await listAll(pagingToken);
    assert.equal(production.ids.length, 599);
    assert.deepEqual(await listAll(pagingSandboxToken, SANDBOX), { ids: [], pages: 1 });
    assert.ok(!(await listAll(token)).ids.some((id) => id.startsWith('page-')));
    assert.deepEqual((await listAll(sandboxToken, SANDBOX)).ids, ['shared-1']);
  });

  it('refuses a nextPageToken it did not issue, and unknown parameters', async () => {
    const tokenOf = (text: string) => Buffer.from(text).toString('base64url');
    const refused = { name: 'nextPageToken', reason: 'is not a nextPageToken this endpoint returned.' };
    for (const garbled of [
      'garbage!',
      `${tokenOf('l1:5')}=`,
      tokenOf('l1:0'),
      tokenOf('l1:-5'),
      tokenOf('l2:5'),
      tokenOf('c1:5'),
      tokenOf('l1:99999999999999999'),
      '',
    ]) {
      invalid(await call('GET', `/listings?nextPageToken=${encodeURIComponent(garbled)}`, pagingToken), [refused], 'requestParameter');
    }
    invalid(
      await call('GET', '/listings?limit=5', pagingToken),
      [{ name: 'limit', reason: 'must NOT have additional properties: limit.' }],
      'requestParameter',
    );
  });

  it('treats a nextPageToken as a position only: another agency using it pages its own listings', async () => {
    const page = (await call('GET', '/listings', pagingToken)).body as Body;
    const result = await call('GET', `/listings?nextPageToken=${encodeURIComponent(page.nextPageToken)}`, token);
    assert.equal(result.status, 200);
    assert.ok(!(result.body as Body).externalListingIds.some((id: string) => id.startsWith('page-')));
  });
});

describe('scopes and authentication', () => {
  it('requires clim:listings:create, :read, :update and :delete for the routes', async () => {
    await created(listing('scoped-1'));
    forbidden(await call('POST', '/listings', readOnlyToken, listing('scoped-2')), 'clim:listings:create');
    forbidden(await call('PUT', path('scoped-1'), readOnlyToken, listing('scoped-1')), 'clim:listings:update');
    forbidden(await call('DELETE', path('scoped-1'), readOnlyToken), 'clim:listings:delete');
    forbidden(await call('GET', '/listings', createOnlyToken), 'clim:listings:read');
    forbidden(await call('GET', path('scoped-1'), createOnlyToken), 'clim:listings:read');
    forbidden(await call('POST', '/listings', mediaOnlyToken, listing('scoped-3')), 'clim:listings:create');
    // The read-only token reads, and nothing was written by the refused calls.
    assert.equal((await read('scoped-1', readOnlyToken)).externalListingId, 'scoped-1');
    notFound(await call('GET', path('scoped-2')), 'scoped-2');
  });

  it('refuses a call without a token', async () => {
    const result = await http('GET', url('/listings'));
    problem(result, 401, 'Unauthorized', 'The Authorization header with a Bearer token is required');
    assert.equal(result.headers.get('www-authenticate'), 'Bearer');
  });
});

describe('OpenAPI document', () => {
  it('documents the listing routes with their scopes, the request model and the listing response', async () => {
    const result = await http('GET', url('/openapi.json'));
    assert.equal(result.status, 200, result.text);
    const document = result.body as Body;
    const scopes = Object.fromEntries(
      Object.entries(document.paths as Body)
        .filter(([route]) => route.startsWith('/listings'))
        .flatMap(([route, operations]) =>
          Object.entries(operations as Body).map(([method, operation]) => [`${method} ${route}`, operation['x-scope']]),
        ),
    );
    assert.deepEqual(scopes, {
      'post /listings': 'clim:listings:create',
      'get /listings': 'clim:listings:read',
      'get /listings/{externalListingId}': 'clim:listings:read',
      'put /listings/{externalListingId}': 'clim:listings:update',
      'delete /listings/{externalListingId}': 'clim:listings:delete',
      'post /listings/validate': 'clim:listings:create',
    });
    assert.equal(document.paths['/listings/validate'].post['x-immogate-extension'], true);
    const listingSchema = document.paths['/listings/{externalListingId}'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(listingSchema.required, ['listing']);
    assert.equal(listingSchema.additionalProperties, false);
    assert.equal(listingSchema.properties.listing.additionalProperties, false);
    assert.deepEqual(Object.keys(listingSchema.properties.listing.properties), [
      'data',
      'metadata',
      'media',
      'contact',
      'listingId',
      'externalListingId',
      'isPublished',
      'creationDate',
      'lastUpdateDate',
    ]);
    const created201 = document.paths['/listings'].post.responses['201'];
    assert.deepEqual(Object.keys(created201.headers), ['Location']);
  });
});

describe('GET /health', () => {
  for (const root of [ROOT, SANDBOX]) {
    it(`answers PASS with the database component, without a token (${root})`, async () => {
      const result = await http('GET', url('/health', root));
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(result.headers.get('cache-control'), 'no-store');
      assert.deepEqual(result.body, { status: 'PASS', components: [{ name: 'database', status: 'PASS' }] });
    });
  }

  it('answers 503 FAIL when the database is gone', async () => {
    const doomed = await createTestDatabase();
    const doomedServer = await startTestServer(doomed);
    try {
      assert.equal((await http('GET', `${doomedServer.base}${ROOT}/health`)).status, 200);
      await doomed.drop();
      const result = await http('GET', `${doomedServer.base}${ROOT}/health`);
      assert.equal(result.status, 503, result.text);
      assert.deepEqual(result.body, { status: 'FAIL', components: [{ name: 'database', status: 'FAIL' }] });
    } finally {
      await doomedServer.close();
      await doomed.drop();
    }
  });
});

describe('media of listings', () => {
  const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new Array(500).fill(7), 0xff, 0xd9]);

  /** POST /medias and the upload to its presigned URL, as a client does. */
  async function uploaded(externalMediaId: string): Promise<void> {
    const result = await call('POST', '/medias', token, { externalMediaId, fileName: `${externalMediaId}.jpg` });
    assert.equal(result.status, 201, result.text);
    const upload = await fetch((result.body as Body).presignedURL, {
      method: 'PUT',
      headers: { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' },
      body: JPEG,
    });
    assert.equal(upload.status, 200, await upload.text());
  }

  function withMedia(id: string, mediaIds: string[]): Body {
    return listing(id, (body) => (body.media = mediaIds.map((externalMediaId) => ({ externalMediaId }))));
  }

  const attachedElsewhere = (mediaId: string) => [
    { name: '/media/0/externalMediaId', reason: `is attached to another listing ("${mediaId}").` },
  ];

  it('refuses a listing whose media are unknown, storing nothing', async () => {
    const result = await call('POST', '/listings', token, withMedia('media-unknown', ['no-such-media']));
    invalid(result, [
      {
        name: '/media/0/externalMediaId',
        reason: 'is not a media of this agency: request its upload with POST /medias first ("no-such-media").',
      },
    ]);
    notFound(await call('GET', path('media-unknown')), 'media-unknown');
  });

  it('attaches media on create, lets go of them on an update without them and on delete', async () => {
    await uploaded('photo-1');
    await uploaded('photo-2');
    const body = withMedia('media-1', ['photo-1', 'photo-2']);
    const ack = await created(body);
    const found = await read('media-1');
    assert.deepEqual(found, expectedListing(body, ack, found));
    // Attached: another listing cannot take them.
    invalid(await call('POST', '/listings', token, withMedia('media-2', ['photo-1'])), attachedElsewhere('photo-1'));

    // An update without photo-1 lets go of it; photo-2 stays.
    assert.equal((await call('PUT', path('media-1'), token, withMedia('media-1', ['photo-2']))).status, 202);
    await created(withMedia('media-2', ['photo-1']));
    invalid(await call('POST', '/listings', token, withMedia('media-3', ['photo-2'])), attachedElsewhere('photo-2'));

    // A delete lets go of the rest.
    assert.equal((await call('DELETE', path('media-1'))).status, 202);
    await created(withMedia('media-3', ['photo-2']));
  });
});
