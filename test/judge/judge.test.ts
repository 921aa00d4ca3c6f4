/*
 * The outside judge (`npm run judge`; skipped in `npm test`, whose four runs in CI it would
 * lengthen by minutes each): immogate on its own database, Prism as a validating proxy in front of
 * each of its three API roots, validating against the document that root serves, and through
 * each proxy the README walkthrough's requests and then a generated pass (cases.ts) over every
 * operation. Zero 5xx, zero violations outside test/judge/allow-list.json, and nothing refused that
 * the document allows or accepted that it refuses (verdict.ts). JUDGE_SEED and JUDGE_RUNS change the
 * pass; the counts, and every finding with a request that reproduces it, go to stderr and to
 * JUDGE_REPORT (a JSON file) when set.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch } from 'undici';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ALL_SCOPES } from '../../src/platform/catalogue.js';
import { readAsIntended } from '../fixtures/contract.js';
import type { OpenApiDocument, Schema } from '../hostile/arbitraries.js';
import { freePort, REPO_ROOT, useServer, type ServerFixture } from '../helpers.js';
import { type Case, KNOWN, casesFor, operationsOf } from './cases.js';
import { type PrismProxy, startPrism, violationsOf } from './prism.js';
import { type AllowedViolation, type Finding, type Outcome, judge, readAllowList } from './verdict.js';

const ENABLED = process.env.IMMOGATE_JUDGE === '1';
const SEED = Number(process.env.JUDGE_SEED ?? 34);
const [POSITIVE, NEGATIVE] = (process.env.JUDGE_RUNS ?? '24,16').split(',').map(Number) as [number, number];
/** More valid classifieds than other bodies: the schema is the largest, and the one generators used to miss. */
const CLASSIFIEDS = Number(process.env.JUDGE_CLASSIFIEDS ?? 80);
/** POST /classifieds/validate allows 60 requests a minute per client. */
const VALIDATIONS = Math.min(CLASSIFIEDS, 40);
const AGENCY = 'judge-agency';
/** The walkthrough's receiver (127.0.0.1:3000 in the README, which dev mode allows) at a host the default address policy allows and nothing answers. */
const RECEIVER = 'http://receiver.immogate.invalid:3000';

const APIS = [
  { name: 'caas', root: '/sandbox/caas/v4', paced: false },
  { name: 'listings', root: '/sandbox/import-listings/v1', paced: false },
  // The lead API allows 10 requests per 200 ms per caller on its searches and subscriptions.
  { name: 'leads', root: '/sandbox/seeker-leads/v1', paced: true },
] as const;
type ApiName = (typeof APIS)[number]['name'];

/** Ids this run created, per path parameter name, for cases that name a KNOWN one. */
const pool: Record<string, string[]> = { classifiedId: [], externalListingId: [], leadId: [], id: [] };

interface Lane {
  name: ApiName;
  root: string;
  paced: boolean;
  token: string;
  document: OpenApiDocument;
  prism: PrismProxy;
}

function urlOf(lane: Lane, request: Case, pick: number): string {
  const filled = request.template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    let value = request.path[name] ?? '';
    if (value === KNOWN) {
      const known = pool[name] ?? [];
      value = known.length > 0 ? (known[pick % known.length] as string) : '00000000-0000-4000-8000-000000000000';
    }
    return encodeURIComponent(value);
  });
  const url = new URL(lane.prism.url + filled);
  for (const [name, value] of request.query) url.searchParams.append(name, value);
  return url.toString();
}

function remember(outcome: Outcome): void {
  if (outcome.status >= 300) return;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(outcome.text) as Record<string, unknown>;
  } catch {
    return;
  }
  const add = (name: string, value: unknown) => {
    if (typeof value === 'string' && !pool[name]?.includes(value)) pool[name]?.push(value);
  };
  add('classifiedId', body.classifiedId);
  add('externalListingId', body.externalListingId);
  add('id', body.subscriptionId);
  if (Array.isArray(body.items))
    for (const item of body.items as Array<{ metadata?: { leadId?: unknown } }>) add('leadId', item.metadata?.leadId);
}

/**
 * Connections to Prism kept alive for a second only: Prism closes an idle one after 5 s, and a POST
 * sent on it just then fails ("other side closed"), as one did while Prism compiled the classified's schema.
 */
const dispatcher = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });

let sent = 0;
async function send(lane: Lane, request: Case): Promise<Outcome> {
  const pick = sent++;
  // A listing PUT keeps its id: the body names the listing of the path (prose: PUT may not change the offererEstateId).
  const url = urlOf(lane, request, pick);
  let body = request.body;
  if (request.operationId === 'updateListing' && request.intent === 'positive' && body !== null && typeof body === 'object') {
    const id = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    body = structuredClone(body) as { metadata: { source: { offererEstateId: string } } };
    (body as { metadata: { source: { offererEstateId: string } } }).metadata.source.offererEstateId = id;
  }
  if (lane.paced) await sleep(25);
  const response = await fetch(url, {
    dispatcher,
    method: request.method.toUpperCase(),
    redirect: 'manual',
    headers: {
      authorization: `Bearer ${lane.token}`,
      ...request.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((error: unknown) => error as Error);
  if (response instanceof Error) {
    // No answer at all: what Prism wrote says whether it or immogate dropped the connection.
    const cause = (response as Error & { cause?: unknown }).cause;
    const outcome: Outcome = {
      api: lane.name,
      request: { ...request, body },
      method: request.method.toUpperCase(),
      url,
      status: 0,
      contentType: '',
      violations: [],
      text: `${response.message}: ${String(cause)}; prism wrote: ${lane.prism.output().slice(-1000)}`,
    };
    return outcome;
  }
  const text = await response.text();
  const outcome: Outcome = {
    api: lane.name,
    request: { ...request, body },
    method: request.method.toUpperCase(),
    url,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    violations: violationsOf(response.headers),
    text,
  };
  remember(outcome);
  return outcome;
}

function readExample(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', name), 'utf8')) as Record<string, unknown>;
}

const walk = (operationId: string, method: string, template: string, rest: Partial<Case> = {}): Case => ({
  operationId,
  method,
  template,
  path: {},
  query: [],
  headers: { 'user-agent': 'MyCrm/1.0.0 curl/8.0 linux/6' },
  intent: 'walkthrough',
  ...rest,
});

/**
 * The walkthroughs of docs/getting-started.md (with curl, and the three APIs'), request by request, as
 * their curl lines send them (the bodies of examples/), through the proxies; the media upload goes
 * to immogate itself (its URL is no operation of a document).
 */
async function walkthrough(lanes: Record<ApiName, Lane>, base: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const run = async (lane: Lane, request: Case) => {
    const outcome = await send(lane, request);
    outcomes.push(outcome);
    return outcome;
  };
  const idOf = (outcome: Outcome, member: string) => String((JSON.parse(outcome.text) as Record<string, unknown>)[member]);
  const { caas, listings, leads } = lanes;

  await run(caas, walk('getClassifieds', 'get', '/classifieds', { headers: { 'user-agent': 'curl' } }));
  await run(
    caas,
    walk('createSubscriptionToWebhook', 'put', '/webhooks', {
      body: { url: `${RECEIVER}/caas`, secret: 'a-long-random-key-0123456789' },
    }),
  );
  const created = idOf(
    await run(caas, walk('createClassified', 'post', '/classifieds', { body: readExample('classified-created.json') })),
    'classifiedId',
  );
  const mediaError = idOf(
    await run(caas, walk('createClassified', 'post', '/classifieds', { body: readExample('classified-media-error.json') })),
    'classifiedId',
  );
  const refused = idOf(
    await run(caas, walk('createClassified', 'post', '/classifieds', { body: readExample('classified-refused.json') })),
    'classifiedId',
  );
  await run(caas, walk('createClassified', 'post', '/classifieds', { body: readExample('classified-media-error.json') }));
  for (const id of [created, mediaError, refused]) {
    await run(
      caas,
      walk('getClassifiedStatuses', 'get', '/classifieds/{classifiedId}/statuses', {
        path: { classifiedId: id },
        query: [
          ['filter', 'latest'],
          ['limit', '1'],
        ],
      }),
    );
  }
  await run(caas, walk('GetClassified', 'get', '/classifieds/{classifiedId}', { path: { classifiedId: created } }));
  await run(
    caas,
    walk('GetClassified', 'get', '/classifieds/{classifiedId}', {
      path: { classifiedId: created },
      headers: { 'user-agent': 'MyCrm/1.0.0 curl/8.0 linux/6', 'if-none-match': '"1"' },
    }),
  );
  for (let i = 0; i < 2; i++) {
    await run(
      caas,
      walk('updateClassified', 'put', '/classifieds/{classifiedId}', {
        path: { classifiedId: created },
        headers: { 'user-agent': 'MyCrm/1.0.0 curl/8.0 linux/6', 'if-match': '"1"' },
        body: readExample('classified-created.json'),
      }),
    );
  }
  await run(caas, walk('deleteClassified', 'delete', '/classifieds/{classifiedId}', { path: { classifiedId: created } }));
  await run(caas, walk('GetClassified', 'get', '/classifieds/{classifiedId}', { path: { classifiedId: created } }));

  const upload = await run(
    listings,
    walk('createMedia', 'post', '/medias', {
      headers: { 'user-agent': 'MyCrm/1.0' },
      body: { externalMediaId: 'img-1', fileName: 'living-room.jpg' },
    }),
  );
  const presigned = idOf(upload, 'presignedURL').replace(/^https?:\/\/[^/]+/, base);
  const put = await fetch(presigned, {
    method: 'PUT',
    headers: { 'content-type': 'image/jpeg' },
    body: fs.readFileSync(path.join(REPO_ROOT, 'examples/living-room.jpg')),
  });
  assert.equal(put.status, 200, `the walkthrough's upload: ${await put.text()}`);
  const apartment = readExample('berlin-apartment.json');
  const clim = (operationId: string, method: string, template: string, rest: Partial<Case> = {}) =>
    walk(operationId, method, template, { headers: { 'user-agent': 'MyCrm/1.0' }, ...rest });
  await run(listings, clim('createListing', 'post', '/listings', { body: apartment }));
  await run(listings, clim('getListing', 'get', '/listings/{externalListingId}', { path: { externalListingId: 'B-1001' } }));
  await run(listings, clim('getListings', 'get', '/listings'));
  await run(
    listings,
    clim('updateListing', 'put', '/listings/{externalListingId}', { path: { externalListingId: 'B-1001' }, body: apartment }),
  );
  await run(listings, clim('deleteListing', 'delete', '/listings/{externalListingId}', { path: { externalListingId: 'B-1001' } }));
  const zeroRent = JSON.parse(
    JSON.stringify(apartment).replace('"amount":1250', '"amount":0').replace('"amount":1530', '"amount":0'),
  ) as unknown;
  await run(listings, clim('createListing', 'post', '/listings', { body: zeroRent }));

  const subscribed = await run(
    leads,
    clim('createWebhookSubscription', 'post', '/webhook/subscriptions', {
      body: { url: `${RECEIVER}/leads`, apiKey: 'a-long-random-key-0123456789' },
    }),
  );
  const since = Math.floor(Date.now() / 1000);
  await run(leads, clim('createLead', 'post', '/leads', { body: readExample('lead.json') }));
  await run(
    leads,
    clim('getLeads', 'get', '/leads', {
      query: [
        ['minDate', String(since)],
        ['maxDate', String(Math.floor(Date.now() / 1000) + 1)],
        ['limit', '100'],
      ],
    }),
  );
  await run(
    leads,
    clim('getWebhookSubscriptionAudit', 'get', '/webhook/subscriptions/{id}/audit', {
      path: { id: idOf(subscribed, 'subscriptionId') },
      query: [['limit', '10']],
    }),
  );
  await run(
    leads,
    clim('getLeads', 'get', '/leads', {
      headers: { 'user-agent': 'MyCrm/1.0' },
      query: [
        ['minDate', String(since)],
        ['maxDate', String(since + 1)],
      ],
    }),
  );
  return outcomes;
}

/**
 * Whether an answer's body matches its documented schema read as its authors meant it (oneOf as
 * anyOf, allOf parts merged: test/fixtures/contract.ts), under the content type it came with.
 */
function intendedReading(lanes: Record<ApiName, Lane>): (outcome: Outcome) => boolean {
  const validators = new Map<string, ValidateFunction | undefined>();
  const ajvs = new Map<ApiName, Ajv>();
  const step = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');
  return (outcome) => {
    const lane = lanes[outcome.api as ApiName];
    const base = `https://immogate.test/${lane.name}.json`;
    let ajv = ajvs.get(lane.name);
    if (!ajv) {
      ajv = new Ajv({ strict: false, allErrors: true, logger: false });
      (addFormats as unknown as (ajv: Ajv) => void)(ajv);
      ajv.addSchema(readAsIntended(lane.document as unknown as Schema, base));
      ajvs.set(lane.name, ajv);
    }
    const { template, method } = outcome.request;
    const operation = lane.document.paths[template]?.[method] as unknown as
      | { responses: Record<string, { content?: Record<string, unknown> }> }
      | undefined;
    const responses = operation?.responses ?? {};
    const status = String(outcome.status);
    const content = responses[status]?.content ?? {};
    const type = Object.keys(content).find((name) => outcome.contentType.startsWith(name));
    if (type === undefined) return false;
    const key = `${lane.name} ${method} ${template} ${status} ${type}`;
    if (!validators.has(key)) {
      const pointer = ['paths', template, method, 'responses', status, 'content', type, 'schema'].map(step).join('/');
      validators.set(key, ajv.compile({ $ref: `${base}#/${pointer}` }));
    }
    try {
      return validators.get(key)?.(JSON.parse(outcome.text)) === true;
    } catch {
      return false;
    }
  };
}

function cpuSecondsOfThisProcess(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

describe('the outside judge: Prism in front of every API root', { skip: !ENABLED && 'run by npm run judge' }, () => {
  let fixture: ServerFixture;
  const lanes = {} as Record<ApiName, Lane>;
  let directory: string;
  if (ENABLED) {
    // The pass calls nothing outside the machine: no worker runs, so no media is fetched and no
    // webhook sent; the address policy is the default one, which the documents' `url` formats describe.
    fixture = useServer({ env: { ALLOW_PRIVATE_TARGETS: 'false' }, client: { intermediaries: [AGENCY], scopes: [...ALL_SCOPES] } });
    before(async () => {
      await fixture.ready();
      directory = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-judge-'));
      await Promise.all(
        APIS.map(async (api) => {
          const document = (await (await fetch(`${fixture.server.base}${api.root}/openapi.json`)).json()) as OpenApiDocument;
          const file = path.join(directory, `${api.name}.json`);
          fs.writeFileSync(file, JSON.stringify(document));
          lanes[api.name] = {
            ...api,
            document,
            token: await fixture.token({ root: api.root, intermediary: AGENCY }),
            prism: await startPrism(file, fixture.server.base + api.root, await freePort()),
          };
        }),
      );
    });
    after(async () => {
      await Promise.all(Object.values(lanes).map((lane) => lane.prism.stop()));
      await dispatcher.close();
      if (directory) fs.rmSync(directory, { recursive: true, force: true });
    });
  }

  it('answers every request of the walkthrough and of the generated pass without a 5xx, and as its document says', async () => {
    const started = performance.now();
    const cpuBefore = cpuSecondsOfThisProcess();
    const allowList = readAllowList();
    const outcomes: Outcome[] = [];

    // Prism compiles a schema when it first meets it, and reports nothing when it cannot: a body of
    // the wrong type must come back with a violation on every operation that takes one, or the judge is blind there.
    for (const lane of Object.values(lanes)) {
      for (const operation of operationsOf(lane.document).filter((candidate) => candidate.bodySchema)) {
        const outcome = await send(lane, {
          ...walk(operation.operationId, operation.method, operation.template),
          path: Object.fromEntries(
            operation.parameters.filter((p) => p.in === 'path').map((p) => [p.name, '00000000-0000-4000-8000-000000000000']),
          ),
          body: 'judge',
          intent: 'negative',
          bent: 'body',
        });
        assert.ok(
          outcome.violations.some((v) => v.location[0] === 'request' && v.location[1] === 'body'),
          `Prism found nothing wrong with a string body for ${operation.operationId}: it cannot validate that body (${JSON.stringify(outcome.violations)})`,
        );
        outcomes.push(outcome);
      }
    }

    outcomes.push(...(await walkthrough(lanes, fixture.server.base)));

    let operations = 0;
    await Promise.all(
      Object.values(lanes).map(async (lane, laneIndex) => {
        const list = operationsOf(lane.document);
        operations += list.length;
        // Writes first, so that reads find ids this run created.
        const order = [...list].sort((a, b) => Number(b.method === 'post') - Number(a.method === 'post'));
        for (const [index, operation] of order.entries()) {
          const positive =
            operation.operationId === 'createClassified'
              ? CLASSIFIEDS
              : operation.operationId === 'validateClassified'
                ? VALIDATIONS
                : POSITIVE;
          const cases = casesFor(lane.document, operation, SEED * 1000 + laneIndex * 100 + index, {
            positive,
            negative: NEGATIVE,
          });
          for (const request of cases) outcomes.push(await send(lane, request));
        }
      }),
    );

    const asIntended = intendedReading(lanes);
    const findings: Finding[] = [];
    const allowed = new Map<AllowedViolation, number>();
    for (const outcome of outcomes) {
      const verdict = judge(outcome, allowList, asIntended);
      findings.push(...verdict.findings);
      for (const entry of verdict.allowed) allowed.set(entry, (allowed.get(entry) ?? 0) + 1);
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const prismCpu = Object.values(lanes).reduce((sum, lane) => sum + (lane.prism.cpuSeconds() ?? 0), 0);
    const count = (predicate: (outcome: Outcome) => boolean) => outcomes.filter(predicate).length;
    const byKind = new Map<string, number>();
    for (const finding of findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
    const statuses = new Map<number, number>();
    for (const outcome of outcomes) statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    const report = {
      seed: SEED,
      operations,
      requests: outcomes.length,
      positive: count((o) => o.request.intent === 'positive'),
      negative: count((o) => o.request.intent === 'negative'),
      walkthrough: count((o) => o.request.intent === 'walkthrough'),
      positiveFlaggedByPrism: count((o) => o.request.intent === 'positive' && o.violations.some((v) => v.location[0] === 'request')),
      validClassifiedsAccepted: count(
        (o) =>
          o.request.operationId === 'createClassified' && o.request.intent === 'positive' && o.status === 202 && o.violations.length === 0,
      ),
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      // What Prism refused among the generated positives (the generator's misses, or a document's reading of a format): sent all the same, and judged as negatives.
      positiveFlaggedSample: outcomes
        .filter((o) => o.request.intent === 'positive' && o.violations.some((v) => v.location[0] === 'request'))
        .slice(0, 12)
        .map(
          (o) =>
            `${o.request.operationId} ${o.status}: ${o.violations
              .filter((v) => v.location[0] === 'request')
              .map((v) => v.message)
              .join('; ')}`,
        ),
      findingsByKind: Object.fromEntries(byKind),
      allowed: [...allowed].map(([entry, times]) => ({ ...entry, times })),
      seconds: {
        wall: Math.round(wallSeconds),
        judgeAndServerCpu: Math.round(cpuSecondsOfThisProcess() - cpuBefore),
        prismCpu: Math.round(prismCpu),
      },
      findings: findings.map((finding) => ({
        kind: finding.kind,
        detail: finding.detail,
        reproduce: {
          method: finding.outcome.method,
          url: finding.outcome.url,
          headers: finding.outcome.request.headers,
          body: finding.outcome.request.body,
          status: finding.outcome.status,
          answer: finding.outcome.text.slice(0, 500),
        },
      })),
    };
    if (process.env.JUDGE_REPORT) fs.writeFileSync(process.env.JUDGE_REPORT, `${JSON.stringify(report, null, 2)}\n`);
    const { findings: listed, ...counts } = report;
    process.stderr.write(`judge: ${JSON.stringify(counts, null, 2)}\n`);
    for (const finding of listed.slice(0, 40)) process.stderr.write(`judge finding: ${JSON.stringify(finding)}\n`);
    assert.deepEqual(Object.fromEntries(byKind), {}, `${findings.length} findings (the first above)`);
  });
});
