/*
 * Traces leave the process by OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: `immogate start`
 * (a server process and a worker process) exports to a collector on loopback the server span of
 * a request continuing the caller's traceparent, its SQL spans, and the worker's spans of the
 * work the request caused, with their outbound calls carrying the trace on. Unset, no process
 * loads any of OpenTelemetry.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { minimalClassified } from '../fixtures/classifieds.js';
import { createTestDatabase, freePort, http, type TestDatabase } from '../helpers.js';
import { tokensFor } from '../pipeline.js';
import { demoClientOf, killLaunched, launch, stop, waitReady, waitUntil } from '../processes.js';

const MODULE_LOG_HOOK = pathToFileURL(path.resolve(import.meta.dirname, '../fixtures/moduleLog.js')).href;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number };
  resource: Record<string, unknown>;
}

type KeyValue = { key: string; value: Record<string, unknown> };
const flatten = (list: KeyValue[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue))]),
  );

/** An OTLP/HTTP collector: every span of every JSON export POSTed to /v1/traces. */
class Collector {
  readonly spans: ExportedSpan[] = [];
  readonly contentTypes = new Set<string>();
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Collector> {
    let collector: Collector | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        collector!.contentTypes.add(String(request.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          resourceSpans: {
            resource: { attributes: KeyValue[] };
            scopeSpans: { spans: (Omit<ExportedSpan, 'attributes' | 'resource'> & { attributes: KeyValue[] })[] }[];
          }[];
        };
        for (const { resource, scopeSpans } of body.resourceSpans) {
          for (const { spans } of scopeSpans) {
            for (const span of spans)
              collector!.spans.push({ ...span, attributes: flatten(span.attributes), resource: flatten(resource.attributes) });
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector = new Collector(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return collector;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A 1x1 JPEG. */
const JPEG = Buffer.from(
  'ffd8ffe000104a46494600010101004800480000ffdb004300030202020203020202030303030406040404040408060605060908' +
    '0a0a090809090a0c0f0c0a0b0e0b09090d110d0e0f101011100a0c12131210130f101010ffc9000b080001000101011100ffcc00' +
    '06001010050fffda0008010100003f00d2cf20ffd9',
  'hex',
);

/** What the worker calls out to: media (a JPEG for any GET) and webhooks (204), recording each request's headers. */
class Target {
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Target> {
    let target: Target | undefined;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        target!.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
        if (request.method === 'GET') response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
        else response.writeHead(204).end();
      });
    });
    target = new Target(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return target;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  await killLaunched();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function moduleLog(): { file: string; modules: () => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-modules-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'modules.log');
  fs.writeFileSync(file, '');
  return { file, modules: () => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

function startEnv(database: TestDatabase, log: string, extra: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    DATA_DIR: '/nonexistent',
    ALLOW_PRIVATE_TARGETS: 'true',
    MODULE_LOG: log,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${MODULE_LOG_HOOK}`.trim(),
    ...extra,
  };
}

describe('OpenTelemetry traces', () => {
  it('are exported by OTLP/HTTP from the server and the worker, continuing the caller trace', { timeout: 90_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const [collector, target] = [await Collector.start(), await Target.start()];
    cleanups.push(
      () => collector.close(),
      () => target.close(),
    );
    const modules = moduleLog();
    const running = launch(
      ['start'],
      await freePort(),
      startEnv(database, modules.file, {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.base,
        OTEL_SERVICE_NAME: 'immogate-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    );
    await waitReady(running);
    const tokens = await tokensFor(running.base, demoClientOf(running.stdout));
    const auth = { authorization: `Bearer ${tokens.caas}` };
    const subscribed = await http('PUT', `${running.base}/sandbox/caas/v4/webhooks`, {
      headers: auth,
      body: { url: `${target.base}/caas`, secret: 'a-secret-to-verify-signatures' },
    });
    assert.equal(subscribed.status, 200, subscribed.text);

    const classified = minimalClassified();
    classified.media = [{ url: `${target.base}/img/front.jpg`, mediaType: 'PICTURE' }];
    const created = await http('POST', `${running.base}/sandbox/caas/v4/classifieds`, {
      headers: { ...auth, traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
      body: classified,
    });
    assert.equal(created.status, 202, created.text);
    const answered = created.headers.get('traceparent') ?? '';
    const [, answeredTrace, serverSpanId, flags] = answered.split('-');
    assert.equal(answeredTrace, TRACE_ID, answered);
    assert.equal(flags, '01');
    // A malformed traceparent starts a trace of our own, as without telemetry.
    const fresh = await http('GET', `${running.base}/health`, { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}` } });
    assert.equal(fresh.status, 200);
    assert.deepEqual(fresh.body, { status: 'ok' });
    const [, freshTrace, freshSpanId] = (fresh.headers.get('traceparent') ?? '').split('-');
    assert.notEqual(freshTrace, TRACE_ID);
    await waitUntil('the media download and a webhook', () => target.requests.some((request) => request.method === 'POST'), running);
    assert.deepEqual(await stop(running), { code: 0, signal: null });

    // The server span: the caller's trace and parent, the span id our traceparent answered.
    const server = collector.spans.find((span) => span.spanId === serverSpanId);
    assert.ok(server, `no span ${serverSpanId} among ${collector.spans.map((span) => span.name).join(', ')}`);
    assert.deepEqual(
      { traceId: server.traceId, parentSpanId: server.parentSpanId, name: server.name, kind: server.kind, status: server.status },
      { traceId: TRACE_ID, parentSpanId: CALLER_SPAN, name: 'POST /sandbox/caas/v4/classifieds', kind: 2, status: { code: 0 } },
    );
    assert.deepEqual(server.attributes, {
      'http.request.method': 'POST',
      'url.path': '/sandbox/caas/v4/classifieds',
      'http.route': '/sandbox/caas/v4/classifieds',
      'http.response.status_code': 202,
    });
    assert.deepEqual(server.resource['service.name'], 'immogate-under-test');
    assert.deepEqual(server.resource['immogate.role'], 'server');
    assert.deepEqual([...collector.contentTypes], ['application/json']);

    const health = collector.spans.find((span) => span.spanId === freshSpanId);
    assert.deepEqual(
      { traceId: health?.traceId, parentSpanId: health?.parentSpanId ?? '', name: health?.name },
      { traceId: freshTrace, parentSpanId: '', name: 'GET /health' },
    );

    // Its statements, children of it: text with $n placeholders, never the values.
    const statements = collector.spans.filter((span) => span.parentSpanId === serverSpanId);
    assert.ok(statements.length >= 2, statements.map((span) => span.name).join(', '));
    for (const statement of statements) {
      assert.equal(statement.traceId, TRACE_ID);
      assert.equal(statement.kind, 3, statement.name);
      assert.equal(statement.attributes['db.system.name'], 'postgresql');
      assert.equal(typeof statement.attributes['db.query.text'], 'string');
    }
    assert.ok(
      statements.some((span) => /INSERT/i.test(String(span.attributes['db.query.text']))),
      statements.map((span) => span.attributes['db.query.text']).join('\n'),
    );

    // The worker: a span per work item, its statements and its outbound calls, the call's
    // traceparent sent to the target naming the call's span.
    const work = collector.spans.filter((span) => span.name.startsWith('work '));
    assert.deepEqual(
      work.filter((span) => span.resource['immogate.role'] !== 'worker' || span.parentSpanId),
      [],
      'work items are root spans of the worker process',
    );
    const calls = collector.spans.filter((span) => span.kind === 3 && span.attributes['url.full'] !== undefined);
    const downloads = calls.filter((span) => span.attributes['url.full'] === `${target.base}/img/front.jpg`);
    const webhooks = calls.filter((span) => String(span.attributes['url.full']).startsWith(`${target.base}/caas/classifieds/`));
    assert.equal(downloads.length, 1, calls.map((span) => `${span.name} ${span.attributes['url.full']}`).join(', '));
    assert.ok(webhooks.length > 0, calls.map((span) => `${span.name} ${span.attributes['url.full']}`).join(', '));
    const withStatements = (item: { spanId: string }) =>
      collector.spans.some((span) => span.parentSpanId === item.spanId && span.attributes['db.system.name'] === 'postgresql');
    const webhookItems: (typeof work)[number][] = [];
    for (const call of [...downloads, ...webhooks]) {
      const item = work.find((span) => span.spanId === call.parentSpanId);
      assert.ok(item, `${call.attributes['url.full']} has no work item span as parent`);
      assert.equal(item.traceId, call.traceId);
      assert.equal(call.name, call === downloads[0] ? 'GET' : 'POST');
      const sent = target.requests.filter((request) => request.headers.traceparent === `00-${call.traceId}-${call.spanId}-01`);
      assert.equal(
        sent.length,
        1,
        `${call.attributes['url.full']}: ${JSON.stringify(target.requests.map((request) => request.headers.traceparent))}`,
      );
      assert.equal(call.attributes['http.response.status_code'], call === downloads[0] ? 200 : 204);
      // The item's own statements are its children too. A webhook's outcome is written in one
      // statement with those that finished at the same moment (a group commit, deliveryStream.ts),
      // under the item that began the group: some webhook item has them, not every one.
      if (call === downloads[0]) assert.ok(withStatements(item), 'the download has no statements as children of its work item');
      else webhookItems.push(item);
    }
    assert.ok(webhookItems.some(withStatements), 'no webhook work item has the statements of its outcome as children');
    assert.deepEqual([...new Set(work.map((span) => span.name))].sort(), ['work caas:processing', 'work platform:webhooks']);
    assert.ok(modules.modules().length > 0);
  });

  it('a collector that is not there fails no request, and the processes still stop cleanly (the flush at shutdown is bounded)', {
    timeout: 60_000,
  }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const modules = moduleLog();
    const running = launch(
      ['start'],
      await freePort(),
      startEnv(database, modules.file, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
    );
    await waitReady(running);
    for (let i = 0; i < 3; i += 1) {
      const health = await http('GET', `${running.base}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
    }
    assert.deepEqual(await stop(running), { code: 0, signal: null });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT, no process of immogate start loads OpenTelemetry', { timeout: 60_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const modules = moduleLog();
    const running = launch(['start'], await freePort(), startEnv(database, modules.file, { OTEL_EXPORTER_OTLP_ENDPOINT: '' }));
    await waitReady(running);
    const health = await http('GET', `${running.base}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    assert.deepEqual(await stop(running), { code: 0, signal: null });
    assert.deepEqual(modules.modules(), []);
  });
});
