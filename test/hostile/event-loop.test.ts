/*
 * No single request may hold the event loop (issue 22): for every route that takes a body, the
 * worst bodies inside the limits are sent while a probe asks GET /ready every 20 ms on a connection
 * of its own. No probe may wait more than 100 ms, and each heavy request must be answered within 1 s,
 * with its whole answer asserted.
 *
 * The server runs in this process, so the probe measures the very loop the server runs on (and the
 * test's own work: the bodies are built before the measuring starts). A probe's wait counts from
 * when it was due, so a timer the blocked loop fired late counts as waiting. The loop's own delay
 * (perf_hooks.monitorEventLoopDelay) is reported beside the figures.
 *
 * The routes are those the running app registered (routeTable.ts) with a method that carries a body
 * (POST, PUT, PATCH) or a body schema; the test knows each of them by name, so a new one fails it
 * until its worst bodies are thought about. Every route gets the generic worst bodies (one text of
 * 1 MiB of each pattern, maximal arrays at the deepest nesting, maximal objects), whose answer must
 * be exactly the answer to the same body with the text or arrays cut to one item (a body's size must
 * not change what it is told). The routes where bodies are read deeply get bodies valid to their
 * schemas with every text at its largest, and exactly written answers.
 *
 * Requests without a body are measured too (issue 34): 20 unknown paths pipelined on one socket
 * without a token (15,000 characters, answered 414, and at the 4,096-byte limit, 404 or 405), a
 * target at the limit beneath and after the query of every route of the running app, and maximal
 * date-times, ids and cursors.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch } from 'undici';
import { LANGUAGES } from '../../src/apis/listings/model/matrices.js';
import { ALL_SCOPES, APIS, ENVIRONMENTS, rootPath } from '../../src/platform/catalogue.js';
import { encodeToken } from '../../src/platform/http/cursors.js';
import { MAX_REQUEST_TARGET_BYTES } from '../../src/platform/http/requestTarget.js';
import { routesOf } from '../../src/platform/http/routeTable.js';
import { realisticClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { TRACEPARENT, USER_AGENT, assertProblem, type HttpResult, useServer } from '../helpers.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const PROBE_INTERVAL_MS = 20;
const PROBE_BOUND_MS = 100;
const ANSWER_BOUND_MS = 1000;
const ATTEMPTS = 5;

const fixture = useServer({
  // The dev guard's async hooks cost every callback and promise: measured here, they made the figures
  // those of an instrumented server, not production's. The guard has its own test (platform/loop-guard).
  // The extension routes' rate limits (tested in extension-limits.test.ts) would refuse the worst
  // bodies sent to one route, their repeats and their one-item twins with 429s part-way: off here.
  env: {
    ADMIN_TOKEN,
    REQUEST_LOOP_WARN_MS: '0',
    VALIDATIONS_PER_MINUTE: '1000000',
    TEST_EVENTS_PER_MINUTE: '1000000',
    REDELIVERIES_PER_MINUTE: '1000000',
  },
  client: { intermediaries: ['agency-1'], scopes: [...ALL_SCOPES] },
});

// --- The routes ------------------------------------------------------------------------------------------

/** The API routes that take a body, relative to their root; each is served under both roots and in the console. */
const API_BODY_ROUTES: Record<string, string[]> = {
  caas: [
    'POST /classifieds',
    'POST /classifieds/validate',
    'PUT /classifieds/:classifiedId',
    'PUT /webhooks',
    'POST /webhooks/test-events',
  ],
  clim: [
    'POST /listings',
    'POST /listings/validate',
    'PUT /listings/:externalListingId',
    'POST /medias',
    'PUT /media-uploads/*',
    'POST /openimmo-imports',
  ],
  leads: ['POST /leads', 'POST /webhook/subscriptions', 'PUT /webhook/subscriptions/:id', 'POST /webhook/subscriptions/:id/test-events'],
};
/** Routes of the APIs the console adds beside them (its deliveries pages). */
const CONSOLE_API_BODY_ROUTES = [
  'POST /console/api/caas/deliveries/:id/redeliveries',
  'POST /console/api/leads/deliveries/:id/redeliveries',
];
/** The operator's routes, under /admin and in the console. */
const OPERATOR_BODY_ROUTES = [
  'POST /clients',
  'POST /clients/:clientId/disable',
  'POST /clients/:clientId/secret',
  'PUT /clients/:clientId/environments',
  'POST /deliveries/redeliveries',
  'POST /leads/erasures',
];
const OTHER_BODY_ROUTES = ['POST /oauth/token', 'POST /console/api/session'];

function consolePrefix(apiId: string): string {
  return `/console/api/${apiId}`;
}

/** Every route that takes a body, as this test knows them. */
function knownBodyRoutes(): string[] {
  const known: string[] = [...OTHER_BODY_ROUTES, ...CONSOLE_API_BODY_ROUTES];
  for (const api of APIS) {
    for (const route of API_BODY_ROUTES[api.id] ?? []) {
      const [method, path] = route.split(' ');
      for (const environment of ENVIRONMENTS) known.push(`${method} ${rootPath(api, environment)}${path}`);
      // The console mounts the API's routes, except the upload URL (a presigned PUT has no session).
      if (!path!.startsWith('/media-uploads')) known.push(`${method} ${consolePrefix(api.id)}${path}`);
    }
  }
  for (const route of OPERATOR_BODY_ROUTES) {
    const [method, path] = route.split(' ');
    known.push(`${method} /admin${path}`, `${method} /console/api/admin${path}`);
  }
  return known.sort();
}

/** A route that takes a body: the method carries one or the route declares a body schema. */
function takesBody(method: string, schema: { body?: unknown } | undefined): boolean {
  return ['POST', 'PUT', 'PATCH'].includes(method) || schema?.body !== undefined;
}

// --- Credentials and paths --------------------------------------------------------------------------------

const tokens = new Map<string, string>();
let integrator: ConsoleSession;
let operator: ConsoleSession;

/** The headers of a request to `url` (a route pattern or a path), with its credentials. */
function headersFor(url: string, contentType = 'application/json'): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'content-type': contentType };
  if (url.startsWith('/admin/')) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  else if (url.startsWith('/console/api/admin/')) Object.assign(headers, { cookie: operator.cookie, 'x-csrf-token': operator.csrfToken });
  else if (url.startsWith('/console/api/') && url !== '/console/api/session') {
    Object.assign(headers, { cookie: integrator.cookie, 'x-csrf-token': integrator.csrfToken });
  } else {
    const root = [...tokens.keys()].find((candidate) => url.startsWith(`${candidate}/`));
    if (root !== undefined && !url.includes('/media-uploads/')) headers.authorization = `Bearer ${tokens.get(root)}`;
  }
  return headers;
}

/** A path for a route pattern: its parameters filled with values that name nothing. */
function pathOf(pattern: string): string {
  return pattern
    .replace(/:classifiedId|:clientId|:id/g, '0b1bd6d4-5bd9-4f4e-9a51-1e1dc3a4b0a7')
    .replace(':externalListingId', 'NOT-THERE')
    .replace(/\*$/, 'not-an-upload');
}

// --- Measuring --------------------------------------------------------------------------------------------

interface Row {
  route: string;
  body: string;
  status: number;
  answerMs: number;
  worstProbeMs: number;
  loopDelayMaxMs: number;
  attempts: number;
}
const rows: Row[] = [];

/** The probe: GET /ready every 20 ms on a connection of its own, each wait counted from when it was due. */
class Probe {
  private readonly agent = new Agent({ connections: 1 });
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  waits: number[] = [];

  constructor(private readonly url: string) {}

  start(): void {
    this.running = true;
    this.waits = [];
    this.loop = this.run();
  }

  async stop(): Promise<number> {
    this.running = false;
    await this.loop;
    return Math.max(0, ...this.waits);
  }

  private async run(): Promise<void> {
    let due = performance.now();
    while (this.running) {
      due += PROBE_INTERVAL_MS;
      const ahead = due - performance.now();
      if (ahead > 0) await sleep(ahead);
      const response = await fetch(this.url, { dispatcher: this.agent, headers: { 'user-agent': USER_AGENT } });
      await response.text();
      assert.equal(response.status, 200, 'GET /ready');
      const waited = performance.now() - due;
      this.waits.push(waited);
      // A probe that took longer than the interval is followed at once, not by a burst catching up.
      if (waited > PROBE_INTERVAL_MS) due = performance.now();
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

let probe: Probe;
const sender = new Agent({ connections: 4 });

async function send(method: string, path: string, body: string, headers: Record<string, string>): Promise<HttpResult> {
  // A GET carries no body (fetch refuses one, even empty).
  const sent = body === '' && (method === 'GET' || method === 'HEAD') ? undefined : body;
  const response = await fetch(`${fixture.server.base}${path}`, { method, headers, body: sent, dispatcher: sender });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

interface HeavyRequest {
  method: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Sends one heavy request while the probe runs, checks its answer with `check`, and records the
 * figures. The machine is shared (two cores, other test runs beside this one: load averages of 5
 * to 7 were seen while this was written), so a wait PostgreSQL or the scheduler caused can exceed a
 * bound once: an attempt that misses one is repeated after a pause, up to five attempts, and the
 * request fails only if every attempt missed. A request that holds the loop misses on every attempt
 * (the former rule 21 took seconds). `make` gets the attempt's number, for requests that create something.
 */
async function measured(
  route: string,
  bodyName: string,
  make: (attempt: number) => HeavyRequest,
  check: (result: HttpResult, attempt: number) => void,
): Promise<void> {
  await measuredWork(
    route,
    bodyName,
    (attempt) => {
      const { method, path, body, headers } = make(attempt);
      assert.ok(Buffer.byteLength(body) <= fixture.server.config.bodyLimitBytes, `${bodyName} is within the body limit`);
      return () => send(method, path, body, headers);
    },
    (result) => result.status,
    check,
  );
}

/**
 * `measured` of any work (one request, or many pipelined on one socket): `prepare` builds it before
 * the measuring starts, `statusOf` names its status in the figures.
 */
async function measuredWork<T>(
  route: string,
  bodyName: string,
  prepare: (attempt: number) => () => Promise<T>,
  statusOf: (result: T) => number,
  check: (result: T, attempt: number) => void,
): Promise<void> {
  const misses: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) await sleep(250);
    const work = prepare(attempt);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    probe.start();
    await sleep(3 * PROBE_INTERVAL_MS);
    delay.enable();
    const started = performance.now();
    const result = await work();
    const answerMs = performance.now() - started;
    await sleep(2 * PROBE_INTERVAL_MS);
    delay.disable();
    const worstProbeMs = await probe.stop();
    const loopDelayMaxMs = delay.max / 1e6;
    check(result, attempt);
    const status = statusOf(result);
    const figures = `answered ${status} in ${answerMs.toFixed(0)} ms, worst probe ${worstProbeMs.toFixed(0)} ms, loop delay max ${loopDelayMaxMs.toFixed(0)} ms`;
    if (worstProbeMs <= PROBE_BOUND_MS && answerMs < ANSWER_BOUND_MS) {
      rows.push({ route, body: bodyName, status, answerMs, worstProbeMs, loopDelayMaxMs, attempts: attempt });
      return;
    }
    misses.push(`attempt ${attempt}: ${figures}`);
  }
  assert.fail(
    `${route} with ${bodyName} missed a bound (probe ${PROBE_BOUND_MS} ms, answer ${ANSWER_BOUND_MS} ms) every time:\n${misses.join('\n')}`,
  );
}

// --- Pipelining -------------------------------------------------------------------------------------------

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The answers at the start of `data` that are whole (Content-Length or chunked), and the bytes they took. */
function readAnswers(data: Buffer): { answers: RawAnswer[]; used: number } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const [statusLine = '', ...lines] = data.toString('latin1', at, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyStart = end + 4;
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const sizeEnd = data.indexOf('\r\n', bodyStart);
        if (sizeEnd === -1) return { answers, used: at };
        const size = Number.parseInt(data.toString('latin1', bodyStart, sizeEnd), 16);
        if (data.length < sizeEnd + 2 + size + 2) return { answers, used: at };
        parts.push(data.subarray(sizeEnd + 2, sizeEnd + 2 + size));
        bodyStart = sizeEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? '0');
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, text: body.toString('utf8') });
    at = bodyStart;
  }
  return { answers, used: at };
}

/**
 * Writes every request (whole HTTP/1.1 text, none a HEAD) at once on one new socket, as a client
 * that pipelines does, and reads as many answers. An answer with `Connection: close` (a refused
 * upload's) ends the socket: the requests after it are written again on a new one, as a client does.
 */
async function pipelined(requests: readonly string[]): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  while (answers.length < requests.length) {
    const read = await pipelinedOnce(requests.slice(answers.length));
    if (read.length === 0) break;
    answers.push(...read);
  }
  return answers;
}

/** The answers to `requests` written at once on one new socket, until the server ends it. */
function pipelinedOnce(requests: readonly string[]): Promise<RawAnswer[]> {
  const { port } = new URL(fixture.server.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let data = Buffer.alloc(0);
    const answers: RawAnswer[] = [];
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const read = readAnswers(data);
      answers.push(...read.answers);
      data = data.subarray(read.used);
      if (answers.length >= requests.length || answers.at(-1)?.headers.connection === 'close') socket.destroy();
    });
    // A server that closes with requests unread may reset the socket: what was answered counts.
    socket.on('error', (error) => (answers.length > 0 ? resolve(answers) : reject(error)));
    socket.on('close', () => resolve(answers));
    socket.write(requests.join(''));
  });
}

/** One request as a pipelining client writes it: no token, no body unless given. */
function requestText(method: string, target: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1', `user-agent: ${USER_AGENT}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (['POST', 'PUT', 'PATCH', 'QUERY'].includes(method) && headers['content-length'] === undefined) lines.push('content-length: 0');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A target of exactly `bytes` bytes: `prefix` then `filler` repeated, cut to fit. */
function targetOf(prefix: string, bytes: number, filler: string): string {
  return prefix + fill(filler, bytes - prefix.length);
}

/** A problem answer read off a socket: ours, whole. */
function assertRawProblem(answer: RawAnswer, status: number, members: Record<string, unknown>, where: string): void {
  assert.equal(answer.status, status, `${where}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8', where);
  const instance = answer.headers.traceparent ?? '';
  assert.match(instance, TRACEPARENT, where);
  assert.deepEqual(JSON.parse(answer.text), { status, instance, ...members }, where);
}

/** The answer's body without its instance (the request's traceparent), after checking that it is one. */
function withoutInstance(result: HttpResult): unknown {
  if (result.body === null || typeof result.body !== 'object' || Array.isArray(result.body)) return result.body;
  const { instance, ...rest } = result.body as Record<string, unknown>;
  if (instance !== undefined) assert.equal(instance, result.headers.get('traceparent'));
  return rest;
}

/** A problem answer: the complete RFC 7807 shape of ours. */
function assertProblemShape(result: HttpResult, where: string): void {
  assert.equal(result.headers.get('content-type'), 'application/problem+json; charset=utf-8', where);
  const body = result.body as Record<string, unknown>;
  assert.match(String(body.instance), TRACEPARENT, where);
  assert.equal(body.status, result.status, where);
  for (const member of ['type', 'title', 'detail']) assert.equal(typeof body[member], 'string', `${where}: ${member}`);
  const allowed = ['type', 'title', 'status', 'detail', 'instance', 'errors', 'errorSource'];
  assert.deepEqual(
    Object.keys(body).filter((member) => !allowed.includes(member)),
    [],
    where,
  );
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors) && body.errors.length <= 100, where);
    for (const error of body.errors as unknown[]) {
      const { name, reason, ...rest } = error as Record<string, unknown>;
      assert.ok(typeof name === 'string' && typeof reason === 'string' && Object.keys(rest).length === 0, where);
    }
  }
}

// --- Bodies -----------------------------------------------------------------------------------------------

const PATTERNS = ['a', 'a.', 'a-', 'a@a.'] as const;

function fill(pattern: string, length: number): string {
  return pattern.repeat(Math.ceil(length / pattern.length)).slice(0, length);
}

interface GenericBody {
  name: string;
  heavy: string;
  /** The same body with its text or arrays cut to one item. */
  light: string;
}

/** The worst bodies of any route: one text of each pattern as long as the limit allows, maximal arrays and objects. */
let generic: GenericBody[] | undefined;

function genericBodies(limit: number): GenericBody[] {
  generic ??= makeGenericBodies(limit);
  return generic;
}

function makeGenericBodies(limit: number): GenericBody[] {
  const texts = PATTERNS.map((pattern) => ({
    name: `1 MiB of "${pattern}"`,
    heavy: `{"x":"${fill(pattern, limit - 16)}"}`,
    light: `{"x":"${pattern}"}`,
  }));
  // Arrays of 10,000 items (the bound) at 60 levels of nesting (the bound is 64), as many as fit.
  const depth = 60;
  const array = `[${Array.from({ length: 10_000 }, () => '"a."').join(',')}]`;
  const arrays = Math.floor((limit - 2 * depth - 16) / (array.length + 1));
  const nested = (inner: string) => `{"x":${'['.repeat(depth)}${inner}${']'.repeat(depth)}}`;
  // Objects of 1,000 members (the bound), as many as fit in one array.
  const object = `{${Array.from({ length: 1000 }, (_, i) => `"m${i}":"a-"`).join(',')}}`;
  const objects = Math.floor((limit - 16) / (object.length + 1));
  return [
    ...texts,
    {
      name: `${arrays} arrays of 10,000 items at nesting depth ${depth}`,
      heavy: nested(Array.from({ length: arrays }, () => array).join(',')),
      light: nested('["a."]'),
    },
    {
      name: `${objects} objects of 1,000 members`,
      heavy: `{"x":[${Array.from({ length: objects }, () => object).join(',')}]}`,
      light: '{"x":[{"m0":"a-"}]}',
    },
  ];
}

const MULTI_LINGUAL_POINTERS = [
  ['data', 'texts', 'headline'],
  ['data', 'texts', 'description'],
  ['data', 'texts', 'features'],
  ['data', 'texts', 'area'],
  ['data', 'texts', 'extendedInformation'],
  ['data', 'location', 'locationNote'],
  ['data', 'prices', 'priceNote'],
  ['data', 'prices', 'brokerageFee', 'priceNote'],
] as const;

type Json = any;

/**
 * The Berlin listing with its multi-lingual texts in as many languages as fit in `limit`, each
 * `length` characters of `pattern`: every entry is read by rules 1 and 21. Answers the body and
 * the pointers of the entries, in the order the rules report them.
 */
function listingWithTexts(externalId: string, pattern: string, length: number, limit: number): { body: string; pointers: string[] } {
  const listing: Json = berlinRentApartment();
  listing.metadata.source.offererEstateId = externalId;
  const text = fill(pattern, length);
  const quoted = JSON.stringify(text).length;
  // Room for the containers the texts need (features, area, ...), which the count below leaves out.
  let size = JSON.stringify(listing).length + 1000;
  for (const language of LANGUAGES) {
    for (const pointer of MULTI_LINGUAL_POINTERS) {
      let node = listing;
      for (const step of pointer) node = node[step] ??= {};
      const old = node[language];
      const added = old === undefined ? language.length + 4 + quoted : quoted - JSON.stringify(old).length;
      if (size + added > limit) continue;
      node[language] = text;
      size += added;
    }
  }
  const body = JSON.stringify(listing);
  assert.ok(Buffer.byteLength(body) <= limit, 'the listing fits the body limit');
  // The rules walk the schema (locationNote, prices, texts), each text's languages in the body's order.
  const order = [
    'data/location/locationNote',
    'data/prices/brokerageFee/priceNote',
    'data/prices/priceNote',
    'data/texts/headline',
    'data/texts/description',
    'data/texts/features',
    'data/texts/area',
    'data/texts/extendedInformation',
  ];
  const pointers = order.flatMap((path) => {
    let node = listing;
    for (const step of path.split('/')) node = node[step];
    return Object.keys(node)
      .filter((language) => node[language] === text)
      .map((language) => `/${path}/${language}`);
  });
  return { body, pointers };
}

// --- The tests ----------------------------------------------------------------------------------------------

describe('no single request holds the event loop', () => {
  let limit: number;
  let base: string;

  before(async () => {
    await fixture.ready();
    limit = fixture.server.config.bodyLimitBytes;
    base = fixture.server.base;
    for (const api of APIS) {
      for (const environment of ENVIRONMENTS) {
        const root = rootPath(api, environment);
        tokens.set(root, await fixture.token({ root, intermediary: 'agency-1' }));
      }
    }
    integrator = await ConsoleSession.asClient(base, fixture.client, 'agency-1', 'sandbox');
    operator = await ConsoleSession.signIn(base, { kind: 'operator', adminToken: ADMIN_TOKEN });
    probe = new Probe(`${base}/ready`);
  });

  after(async () => {
    await probe?.close();
    await sender.close();
    const table = rows
      .map(
        (row) =>
          `${row.route.padEnd(62)} ${row.body.padEnd(46)} ${String(row.status).padStart(3)} ${row.answerMs.toFixed(0).padStart(5)} ms  probe ${row.worstProbeMs.toFixed(0).padStart(3)} ms  loop ${row.loopDelayMaxMs.toFixed(0).padStart(3)} ms  attempt ${row.attempts}`,
      )
      .join('\n');
    console.log(`event-loop figures (route, body, status, answer, worst probe wait, loop delay max):\n${table}`);
  });

  it('knows every route of the running app that takes a body', () => {
    const app = fixture.server.services.app;
    assert.ok(app);
    const served = routesOf(app)
      .filter((route) => takesBody(route.method, route.schema))
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    assert.deepEqual(served, knownBodyRoutes(), 'a route that takes a body was added or removed: give it its worst bodies here');
  });

  it('warms up: the first of each kind of write, unmeasured', async () => {
    const { body } = listingWithTexts('WARM-UP', 'a', 3999, limit);
    const created = await send('POST', '/sandbox/import-listings/v1/listings', body, headersFor('/sandbox/import-listings/v1/listings'));
    assert.equal(created.status, 201, created.text);
    const classified = await send(
      'POST',
      '/sandbox/caas/v4/classifieds',
      JSON.stringify(realisticClassified()),
      headersFor('/sandbox/caas/v4/classifieds'),
    );
    assert.equal(classified.status, 202, classified.text);
    for (const { heavy } of genericBodies(limit)) {
      const answer = await send(
        'POST',
        '/sandbox/import-listings/v1/listings/validate',
        heavy,
        headersFor('/sandbox/import-listings/v1/listings'),
      );
      assert.equal(answer.status, 200, answer.text);
    }
  });

  describe('the generic worst bodies on every route that takes one: the answer a one-item body gets', () => {
    for (const route of knownBodyRoutes()) {
      it(route, async () => {
        const [method, pattern] = route.split(' ') as [string, string];
        const path = pathOf(pattern);
        // The lead API allows 10 requests per 200 ms per caller.
        const pace = pattern.includes('seeker-leads') || pattern.startsWith('/console/api/leads') ? () => sleep(50) : async () => {};
        for (const { name, heavy, light } of genericBodies(limit)) {
          await pace();
          const short = await send(method, path, light, headersFor(pattern));
          const where = `${route} with ${name}`;
          assert.ok(short.status < 500, `${where} (one item): ${short.status} ${short.text.slice(0, 500)}`);
          await pace();
          await measured(
            route,
            name,
            () => ({ method, path, body: heavy, headers: headersFor(pattern) }),
            (result) => {
              assert.equal(result.status, short.status, `${where}: ${result.text.slice(0, 500)}`);
              if (result.headers.get('content-type')?.startsWith('application/problem+json')) assertProblemShape(result, where);
              assert.deepEqual(withoutInstance(result), withoutInstance(short), where);
            },
          );
        }
      });
    }
  });

  describe('the listing import: every multi-lingual text at 3999 characters, in as many languages as fit in 1 MiB', () => {
    const mounts = [
      { name: 'production', prefix: '/import-listings/v1', root: '/import-listings/v1' },
      { name: 'sandbox', prefix: '/sandbox/import-listings/v1', root: '/sandbox/import-listings/v1' },
      { name: 'console', prefix: '/console/api/clim', root: '/sandbox/import-listings/v1' },
    ];
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const mount of mounts) {
      it(`${mount.name}: validate, POST and PUT of each pattern are answered in time, exactly`, async () => {
        const headers = headersFor(`${mount.prefix}/listings`);
        for (const [index, pattern] of PATTERNS.entries()) {
          const idOf = (attempt: number) => `EL-${mount.name}-${index}-${attempt}`;
          const first = listingWithTexts(idOf(0), pattern, 3999, limit);
          assert.ok(first.pointers.length > 200, `${first.pointers.length} texts`);
          const name = `${first.pointers.length} texts of 3999 × "${pattern}"`;
          const post = (path: string, attempt: number, method = 'POST') => ({
            method,
            path,
            body: listingWithTexts(idOf(attempt), pattern, 3999, limit).body,
            headers,
          });

          await measured(
            `POST ${mount.prefix}/listings/validate`,
            name,
            (attempt) => post(`${mount.prefix}/listings/validate`, attempt),
            (result) => {
              assert.equal(result.status, 200, result.text.slice(0, 1000));
              assert.deepEqual(result.body, { valid: true, errors: [], warnings: [] });
            },
          );

          let created: { id: string; listingId: string } | undefined;
          await measured(
            `POST ${mount.prefix}/listings`,
            name,
            (attempt) => post(`${mount.prefix}/listings`, attempt),
            (result, attempt) => {
              assert.equal(result.status, 201, result.text.slice(0, 1000));
              const { requestId, listingId } = result.body as { requestId: string; listingId: string };
              assert.match(requestId, uuid);
              assert.match(listingId, uuid);
              const id = idOf(attempt);
              assert.deepEqual(result.body, {
                requestId,
                listingId,
                externalListingId: id,
                warnings: [],
                links: [{ rel: 'self', href: `${base}${mount.root}/listings/${id}` }],
              });
              created = { id, listingId };
            },
          );

          const listing = created!;
          await measured(
            `PUT ${mount.prefix}/listings/:externalListingId`,
            name,
            () => ({
              method: 'PUT',
              path: `${mount.prefix}/listings/${listing.id}`,
              body: listingWithTexts(listing.id, pattern, 3999, limit).body,
              headers,
            }),
            (result) => {
              assert.equal(result.status, 202, result.text.slice(0, 1000));
              const { requestId } = result.body as { requestId: string };
              assert.match(requestId, uuid);
              assert.deepEqual(result.body, { requestId, listingId: listing.listingId, externalListingId: listing.id });
            },
          );
        }
      });

      it(`${mount.name}: texts over rule 1's 3999 characters are answered with rule 1 only, in time`, async () => {
        const headers = headersFor(`${mount.prefix}/listings`);
        for (const pattern of PATTERNS) {
          const { body, pointers } = listingWithTexts(`LONG-${mount.name}`, pattern, 4000, limit);
          const name = `${pointers.length} texts of 4000 × "${pattern}"`;
          const errors = pointers.map((pointer) => ({
            name: pointer,
            reason: 'rule 1: a multi-lingual text is at most 3999 characters; this one has 4000.',
          }));
          await measured(
            `POST ${mount.prefix}/listings/validate`,
            name,
            () => ({ method: 'POST', path: `${mount.prefix}/listings/validate`, body, headers }),
            (result) => {
              assert.equal(result.status, 200, result.text.slice(0, 1000));
              assert.deepEqual(result.body, { valid: false, errors, warnings: [] });
            },
          );
          await measured(
            `POST ${mount.prefix}/listings`,
            name,
            () => ({ method: 'POST', path: `${mount.prefix}/listings`, body, headers }),
            (result) => {
              assert.equal(result.status, 400);
              assertProblemShape(result, name);
              assert.deepEqual(withoutInstance(result), {
                type: '/problems/bad-request',
                title: 'Bad request',
                status: 400,
                detail: 'Your request has not been validated',
                errors: [
                  ...errors.slice(0, 99),
                  { name: '', reason: `${errors.length - 99} more errors were found and are not listed; correct these first.` },
                ],
                errorSource: 'body',
              });
            },
          );

          // One description as long as the body allows: rule 1's error, and rule 21 does not read it.
          const listing: Json = berlinRentApartment();
          listing.data.texts.description.de = '';
          const room = limit - Buffer.byteLength(JSON.stringify(listing));
          listing.data.texts.description.de = fill(pattern, room);
          const one = JSON.stringify(listing);
          await measured(
            `POST ${mount.prefix}/listings`,
            `one description of 1 MiB of "${pattern}"`,
            () => ({ method: 'POST', path: `${mount.prefix}/listings`, body: one, headers }),
            (result) => {
              assert.equal(result.status, 400);
              assertProblemShape(result, 'one description');
              assert.deepEqual(withoutInstance(result), {
                type: '/problems/bad-request',
                title: 'Bad request',
                status: 400,
                detail: 'Your request has not been validated',
                errors: [
                  {
                    name: '/data/texts/description/de',
                    reason: `rule 1: a multi-lingual text is at most 3999 characters; this one has ${room}.`,
                  },
                ],
                errorSource: 'body',
              });
            },
          );
        }
      });
    }
  });

  describe('the classifieds: a valid classified with its texts in 40 languages, as long as 1 MiB allows', () => {
    let written = 0;
    /** The realistic classified with each multi-lingual text in 40 languages, of `pattern`; a new one each call (its id and media URLs). */
    function classifiedWithTexts(pattern: string): string {
      const classified: Json = realisticClassified();
      written += 1;
      classified.data.metaData.source.offererEstateId = `EL-${written}`;
      for (const media of classified.media) media.url = `${media.url}?copy=${written}`;
      const texts: Json[] = [];
      const stack: Json[] = [classified];
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        if (node === null || typeof node !== 'object') continue;
        if (!Array.isArray(node) && typeof node.en === 'string' && typeof node.fr === 'string') texts.push(node);
        else stack.push(...Object.values(node));
      }
      const length = Math.floor((limit - JSON.stringify(classified).length - 4000) / (texts.length * 40)) - 8;
      for (const language of LANGUAGES.slice(0, 40)) {
        for (const text of texts) text[language] = fill(pattern, length);
      }
      const body = JSON.stringify(classified);
      assert.ok(Buffer.byteLength(body) <= limit);
      return body;
    }

    for (const mount of [
      { name: 'production', prefix: '/caas/v4' },
      { name: 'sandbox', prefix: '/sandbox/caas/v4' },
      { name: 'console', prefix: '/console/api/caas' },
    ]) {
      it(`${mount.name}: validate, POST and PUT of each pattern are answered in time, exactly`, async () => {
        const headers = headersFor(`${mount.prefix}/classifieds`);
        for (const pattern of PATTERNS) {
          const body = classifiedWithTexts(pattern);
          const name = `texts in 40 languages of "${pattern}"`;
          const fresh = (path: string) => () => ({ method: 'POST', path, body: classifiedWithTexts(pattern), headers });
          await measured(`POST ${mount.prefix}/classifieds/validate`, name, fresh(`${mount.prefix}/classifieds/validate`), (result) => {
            assert.equal(result.status, 200, result.text.slice(0, 2000));
            const verdict = result.body as { errors: unknown[]; rulesChecked: boolean };
            assert.deepEqual(verdict.errors, []);
            assert.equal(verdict.rulesChecked, true);
          });

          let classifiedId = '';
          await measured(`POST ${mount.prefix}/classifieds`, name, fresh(`${mount.prefix}/classifieds`), (result) => {
            assert.equal(result.status, 202, result.text.slice(0, 2000));
            classifiedId = (result.body as { classifiedId: string }).classifiedId;
            assert.match(classifiedId, /^[0-9a-f-]{36}$/);
            assert.deepEqual(result.body, { classifiedId, links: [{ statuses: `/classifieds/${classifiedId}/statuses` }] });
          });

          let revision = 1;
          await measured(
            `PUT ${mount.prefix}/classifieds/:classifiedId`,
            name,
            () => ({
              method: 'PUT',
              path: `${mount.prefix}/classifieds/${classifiedId}`,
              body,
              headers: { ...headers, 'if-match': `"${revision}"` },
            }),
            (result) => {
              assert.equal(result.status, 202, result.text.slice(0, 2000));
              assert.deepEqual(result.body, { classifiedId, links: [{ statuses: `/classifieds/${classifiedId}/statuses` }] });
              revision += 1;
            },
          );
        }
      });
    }
  });

  describe('the lead API: a lead whose message is as long as 1 MiB allows', () => {
    for (const mount of [
      { name: 'production', prefix: '/seeker-leads/v1' },
      { name: 'sandbox', prefix: '/sandbox/seeker-leads/v1' },
      { name: 'console', prefix: '/console/api/leads' },
    ]) {
      it(`${mount.name}: each pattern is answered in time, exactly`, async () => {
        const headers = headersFor(`${mount.prefix}/leads`);
        for (const pattern of PATTERNS) {
          const lead = leadRequest({
            firstName: fill(pattern, 100),
            lastName: fill(pattern, 100),
            phoneNumbers: Array.from({ length: 10 }, () => ({ type: 'MOBILE', number: `+${'4'.repeat(31)}` })),
            message: '',
          });
          lead.message = fill(pattern, limit - Buffer.byteLength(JSON.stringify(lead)));
          const body = JSON.stringify(lead);
          await sleep(50);
          await measured(
            `POST ${mount.prefix}/leads`,
            `a message of 1 MiB of "${pattern}"`,
            () => ({ method: 'POST', path: `${mount.prefix}/leads`, body, headers }),
            (result) => {
              assert.equal(result.status, 200, result.text.slice(0, 1000));
              const { requestId } = result.body as { requestId: string };
              assert.match(requestId, /^[0-9a-f-]{36}$/);
              assert.deepEqual(result.body, { title: 'Lead submitted', requestId });
            },
          );
        }
      });
    }
  });

  describe('the OpenImmo intake: a file of 8 MiB of the worst XML (nesting past any depth, a text past any length) is stored and acknowledged in time', () => {
    const hostile = [
      { name: '8 MiB of nested elements', xml: `<openimmo>${'<a>'.repeat(2_700_000)}` },
      {
        name: 'a text of 8 MiB',
        xml: `<openimmo><uebertragung/><anbieter><firma>${'x'.repeat(8 * 1024 * 1024)}</firma></anbieter></openimmo>`,
      },
    ];
    for (const mount of [
      { name: 'production', prefix: '/import-listings/v1' },
      { name: 'console', prefix: '/console/api/clim' },
    ]) {
      it(`${mount.name}: each is answered 202 in time, read only by the worker (on a thread of its own)`, async () => {
        const path = `${mount.prefix}/openimmo-imports`;
        for (const { name, xml } of hostile) {
          await measuredWork(
            `POST ${path}`,
            name,
            () => () => send('POST', path, xml, headersFor(path, 'application/xml')),
            (result) => result.status,
            (result) => {
              assert.equal(result.status, 202, result.text.slice(0, 1000));
              const { importId } = result.body as { importId: string };
              assert.match(importId, /^[0-9a-f-]{36}$/);
            },
          );
        }
      });
    }
  });

  describe('the token endpoint: an audience of 1 MiB of slashes (the former /\\/+$/ took hours on it)', () => {
    it('is refused as an unknown audience in time', async () => {
      for (const [name, audience] of [
        ['slashes then a letter', `${'/'.repeat(limit - 400)}x`],
        ['slashes', '/'.repeat(limit - 400)],
      ] as const) {
        const body = JSON.stringify({
          grant_type: 'client_credentials',
          client_id: fixture.client.clientId,
          client_secret: fixture.client.secret,
          audience,
          intermediary_id: 'agency-1',
        });
        const known = APIS.flatMap((api) => ENVIRONMENTS.map((environment) => `${base}${rootPath(api, environment)}`));
        await measured(
          'POST /oauth/token',
          `an audience of 1 MiB of ${name}`,
          () => ({ method: 'POST', path: '/oauth/token', body, headers: { 'user-agent': USER_AGENT, 'content-type': 'application/json' } }),
          (result) => {
            assert.equal(result.status, 400);
            assert.deepEqual(result.body, {
              error: 'invalid_target',
              error_description: `audience "${audience}" is not an API root of this server; use one of ${known.join(', ')}`,
            });
          },
        );
      }
    });
  });

  describe('the operator: a client with every intermediary at its bounds', () => {
    for (const prefix of ['/admin', '/console/api/admin']) {
      it(`POST ${prefix}/clients with 100 intermediaries of 128 characters and a name of 200`, async () => {
        for (const pattern of PATTERNS.filter((candidate) => !candidate.includes('@'))) {
          const intermediaries = Array.from({ length: 100 }, (_, i) => `${i}`.padStart(3, '0') + fill(pattern, 125));
          const body = JSON.stringify({ name: fill(pattern, 200), intermediaries, scopes: [...ALL_SCOPES], environments: ['sandbox'] });
          await measured(
            `POST ${prefix}/clients`,
            `intermediaries of "${pattern}"`,
            () => ({ method: 'POST', path: `${prefix}/clients`, body, headers: headersFor(`${prefix}/clients`) }),
            (result) => {
              assert.equal(result.status, 201, result.text.slice(0, 1000));
              const created = result.body as { client: { clientId: string; createdAt: string }; clientSecret: string };
              assert.match(created.client.clientId, /^ig_[0-9a-f]{24}$/);
              assert.deepEqual(result.body, {
                client: {
                  clientId: created.client.clientId,
                  name: fill(pattern, 200),
                  intermediaries,
                  scopes: [...ALL_SCOPES],
                  environments: ['sandbox'],
                  createdAt: created.client.createdAt,
                  disabledAt: null,
                  secretRotatedAt: null,
                },
                clientSecret: created.clientSecret,
              });
            },
          );
        }
      });
    }
  });

  describe('pipelined unknown paths without a token, 20 on one socket (issue 34: the 404 path cost 45 ms a request)', () => {
    const PIPELINED = 20;
    const LIMIT = MAX_REQUEST_TARGET_BYTES;
    const TOO_LONG = {
      type: '/problems/uri-too-long',
      title: 'URI too long',
      detail: `The request target (path and query) exceeds ${LIMIT} bytes`,
    };
    const shapes: { name: string; method?: string; target: string; answer: (target: string) => [number, Record<string, unknown>] }[] = [
      { name: '15,000 characters in one segment', target: targetOf('/', 15_000, 'a'), answer: () => [414, TOO_LONG] },
      { name: '15,000 characters of "/a"', target: targetOf('', 15_000, '/a'), answer: () => [414, TOO_LONG] },
      { name: '15,000 characters under an API root', target: targetOf('/sandbox/caas/v4/', 15_000, 'a/'), answer: () => [414, TOO_LONG] },
      ...[
        { name: `${LIMIT} bytes in one segment`, target: targetOf('/', LIMIT, 'a') },
        { name: `${LIMIT} bytes of "/a"`, target: targetOf('', LIMIT, '/a') },
        { name: `${LIMIT} bytes under an API root`, target: targetOf('/sandbox/caas/v4/', LIMIT, 'a/') },
        {
          name: `${LIMIT} bytes beneath a route with parameters`,
          target: targetOf('/sandbox/caas/v4/classifieds/x/statuses/', LIMIT, 'a/'),
        },
      ].map((shape) => ({
        ...shape,
        answer: (target: string): [number, Record<string, unknown>] => [
          404,
          { type: '/problems/not-found', title: 'Not found', detail: `No resource at GET ${target}` },
        ],
      })),
      {
        name: `a known path with another method, ${LIMIT} bytes with its query`,
        method: 'PATCH',
        target: targetOf('/sandbox/caas/v4/webhooks?x=', LIMIT, 'a'),
        answer: () => [
          405,
          { type: '/problems/method-not-allowed', title: 'Method not allowed', detail: 'PATCH is not allowed here; allowed: DELETE, PUT' },
        ],
      },
    ];
    for (const shape of shapes) {
      it(shape.name, async () => {
        const method = shape.method ?? 'GET';
        const [status, members] = shape.answer(shape.target);
        await measuredWork(
          `${PIPELINED} × ${method} (pipelined, no token)`,
          shape.name,
          () => {
            const requests = Array.from({ length: PIPELINED }, () => requestText(method, shape.target));
            return () => pipelined(requests);
          },
          (answers) => answers[0]?.status ?? 0,
          (answers) => {
            assert.equal(answers.length, PIPELINED);
            for (const [i, answer] of answers.entries()) assertRawProblem(answer, status, members, `${shape.name}, answer ${i + 1}`);
          },
        );
      });
    }
  });

  describe('targets at the limit to every route, pipelined without a token (issue 34)', () => {
    it('beneath each route and with its query at 4,096 bytes: never a 5xx, no probe over 100 ms', async () => {
      const app = fixture.server.services.app;
      assert.ok(app);
      // A parameter at the router's bound of 100 characters; a wildcard gets one segment.
      const targets = routesOf(app)
        .filter((route) => route.method !== 'HEAD')
        .flatMap((route) => {
          const path = route.url.replace(/:[A-Za-z]+/g, fill('0b1bd6d4-', 100)).replace(/\*$/, 'x');
          return [
            { method: route.method, target: targetOf(`${path}/`, MAX_REQUEST_TARGET_BYTES, 'a/'), route: route.url },
            { method: route.method, target: targetOf(`${path}?x=`, MAX_REQUEST_TARGET_BYTES, 'a'), route: route.url },
          ];
        });
      assert.ok(targets.length > 200, `${targets.length} targets`);
      const BATCH = 20;
      for (let start = 0; start < targets.length; start += BATCH) {
        const batch = targets.slice(start, start + BATCH);
        await measuredWork(
          `${batch.length} routes pipelined (no token)`,
          `from ${batch[0]!.method} ${batch[0]!.route}`,
          () => {
            const requests = batch.map(({ method, target }) => requestText(method, target));
            return () => pipelined(requests);
          },
          (answers) => Math.max(...answers.map((answer) => answer.status)),
          (answers) => {
            const ended = answers.length < batch.length ? batch[answers.length] : undefined;
            assert.equal(
              ended,
              undefined,
              `the server ended the socket before answering ${ended?.method} ${ended?.route}, after ${JSON.stringify(answers.at(-1)?.headers)}`,
            );
            for (const [i, answer] of answers.entries()) {
              const { method, route } = batch[i]!;
              const where = `${method} ${route} (${i % 2 === 0 ? 'beneath it' : 'its query'})`;
              assert.ok(answer.status < 500, `${where}: ${answer.status} ${answer.text.slice(0, 300)}`);
              if (answer.headers['content-type']?.startsWith('application/problem+json')) {
                const body = JSON.parse(answer.text) as Record<string, unknown>;
                assert.equal(body.status, answer.status, where);
                assert.equal(body.instance, answer.headers.traceparent, where);
              }
            }
          },
        );
      }
    });
  });

  // Bounded by the schemas (maxLength on date-times, ids to their format, cursors range-checked on
  // decode): before, the date-time held /ready 100-400 ms, the ids and cursors answered 500.
  describe('maximal date-times, ids and cursors: 4xx at once', () => {
    const refused = (result: HttpResult, name: string, reason: string, errorSource: string) =>
      assertProblem(result, 400, 'Bad request', 'Your request has not been validated', { errors: [{ name, reason }], errorSource });

    for (const prefix of ['/seeker-leads/v1', '/sandbox/seeker-leads/v1', '/console/api/leads']) {
      it(`POST ${prefix}/leads with a submittedDate of 1,040,000 characters`, async () => {
        const body = JSON.stringify(leadRequest({ submittedDate: `2026-11-22${'T'.repeat(1_040_000)}` }));
        await sleep(50);
        await measured(
          `POST ${prefix}/leads`,
          'a submittedDate of "2026-11-22" and 1,040,000 × "T"',
          () => ({ method: 'POST', path: `${prefix}/leads`, body, headers: headersFor(`${prefix}/leads`) }),
          (result) => refused(result, '/submittedDate', 'must NOT have more than 64 characters.', 'body'),
        );
      });
    }

    const uuid = '0b1bd6d4-5bd9-4f4e-9a51-1e1dc3a4b0a7';
    const uuidReason = 'must match format "uuid".';
    const cursorReason = 'is not a cursor this feed returned.';
    for (const [route, path, name, reason] of [
      ['GET /sandbox/seeker-leads/v1/leads/:leadId', `/sandbox/seeker-leads/v1/leads/urn:uuid:${uuid}`, 'leadId', uuidReason],
      ['GET /sandbox/caas/v4/classifieds/:classifiedId', `/sandbox/caas/v4/classifieds/urn:uuid:${uuid}`, 'classifiedId', uuidReason],
      ['GET /sandbox/caas/v4/events', `/sandbox/caas/v4/events?after=${encodeToken(`e1::0:${'9'.repeat(19)}`)}`, 'after', cursorReason],
      ['GET /sandbox/caas/v4/events', `/sandbox/caas/v4/events?after=${encodeToken(`e1::${'9'.repeat(20)}:0`)}`, 'after', cursorReason],
      ['GET /sandbox/caas/v4/events', `/sandbox/caas/v4/events?after=${encodeToken(`e1::0:${'9'.repeat(30)}`)}`, 'after', cursorReason],
    ] as const) {
      it(`${route}: ${path.slice(path.lastIndexOf('/') + 1)}`, async () => {
        await sleep(50);
        await measured(
          route,
          path,
          () => ({ method: 'GET', path, body: '', headers: headersFor(path) }),
          (result) => refused(result, name, reason, 'requestParameter'),
        );
      });
    }
  });
});
