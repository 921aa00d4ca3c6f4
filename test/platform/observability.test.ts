/*
 * What an operator watches: /health and /ready, /metrics, the OpenAPI documents and /docs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APIS, rootPath, type ApiDescriptor } from '../../src/platform/catalogue.js';
import type { ApiModule } from '../../src/platform/module.js';
import { scheduleDelivery } from '../../src/platform/delivery/index.js';
import { oauthScheme } from '../../src/platform/http/openapiDocs.js';
import {
  TRACEPARENT,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  type TestServer,
  sealedWebhookSecret,
  useServer,
} from '../helpers.js';

function api(id: ApiDescriptor['id']): ApiDescriptor {
  const found = APIS.find((candidate) => candidate.id === id);
  assert.ok(found);
  return found;
}

// A route of the classifieds API with a schema, to see the OpenAPI document generated from it.
const things: ApiModule = {
  api: api('caas'),
  async routes(app) {
    app.get(
      '/things/:id',
      {
        config: { scope: 'caas:classifieds:read' },
        schema: {
          summary: 'Read a thing',
          params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
          response: { 200: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
        },
      },
      async (request) => ({ id: (request.params as { id: string }).id }),
    );
  },
};

const fixture = useServer({ apis: [things] });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

describe('GET /health and /ready', () => {
  it('/health answers ok', async () => {
    const result = await http('GET', `${server.base}/health`);
    assert.equal(result.status, 200);
    assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.match(result.headers.get('traceparent') ?? '', TRACEPARENT);
    assert.deepEqual(result.body, { status: 'ok' });
  });

  it('/ready answers ready when the database is reachable', async () => {
    const result = await http('GET', `${server.base}/ready`);
    assert.equal(result.status, 200);
    assert.deepEqual(result.body, { status: 'ready', database: 'ok' });
  });

  it('/ready answers a 503 problem when the database is gone, while /health still answers', async () => {
    const doomed = await createTestDatabase();
    const other = await startTestServer(doomed);
    try {
      await doomed.drop();
      const ready = await http('GET', `${other.base}/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.deepEqual(ready.body, {
        type: '/problems/service-unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database is not reachable',
        instance: ready.headers.get('traceparent'),
      });
      const health = await http('GET', `${other.base}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      // Metrics still scrape; only the queue depth, read from the database, is missing.
      const metrics = await http('GET', `${other.base}/metrics`);
      assert.equal(metrics.status, 200);
      assert.deepEqual(samples(metrics.text, 'immogate_job_queue_depth'), []);
      assert.deepEqual(samples(metrics.text, 'immogate_http_requests_total'), [
        'immogate_http_requests_total{method="GET",route="/health",status="200"} 1',
        'immogate_http_requests_total{method="GET",route="/ready",status="503"} 1',
      ]);
    } finally {
      await other.close();
    }
  });
});

/** The samples of one metric family, as `name{labels} value` lines. */
function samples(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${prefix}{`) || line.startsWith(`${prefix} `))
    .sort();
}

describe('GET /metrics', () => {
  let fresh: TestServer;
  let text: string;

  // A server of its own, so the counters hold exactly the requests made here.
  before(async () => {
    fresh = await startTestServer(fixture.database, { apis: [things] });
    await http('GET', `${fresh.base}/health`);
    await http('GET', `${fresh.base}/health`);
    await http('GET', `${fresh.base}/nope`);
    await http('GET', `${fresh.base}/caas/v4/things/abc`);
    await http('GET', `${fresh.base}/caas/v4/things/def`);
    const client = await makeClient(fresh.pool, ['agency-m'], ['caas:*']);
    const token = await getToken(fresh, client, { root: '/sandbox/caas/v4', intermediary: 'agency-m' });
    const read = await http('GET', `${fresh.base}/sandbox/caas/v4/things/xyz`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(read.status, 200);
    // One delivery due now and one waiting for a retry an hour away (no worker runs here).
    const delivery = {
      source: 'test',
      environment: 'sandbox',
      agencyId: 'agency-m',
      subscriptionId: 's',
      url: 'https://receiver.example/x',
      payload: {},
      secret: sealedWebhookSecret('k'),
    } as const;
    await scheduleDelivery(fresh.pool, delivery);
    const later = await scheduleDelivery(fresh.pool, delivery);
    await fresh.pool.query("UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1", [later]);
    const result = await http('GET', `${fresh.base}/metrics`);
    assert.equal(result.status, 200);
    assert.equal(result.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    text = result.text;
  });

  after(async () => {
    await fresh.pool.query('DELETE FROM webhook_deliveries');
    await fresh.close();
  });

  it('counts requests by method, route pattern and status', () => {
    assert.match(text, /^# TYPE immogate_http_requests_total counter$/m);
    assert.deepEqual(samples(text, 'immogate_http_requests_total'), [
      'immogate_http_requests_total{method="GET",route="/caas/v4/things/:id",status="401"} 2',
      'immogate_http_requests_total{method="GET",route="/health",status="200"} 2',
      'immogate_http_requests_total{method="GET",route="/sandbox/caas/v4/things/:id",status="200"} 1',
      'immogate_http_requests_total{method="GET",route="unmatched",status="404"} 1',
      'immogate_http_requests_total{method="POST",route="/oauth/token",status="200"} 1',
    ]);
  });

  it('times requests in a latency histogram with the same labels', () => {
    assert.match(text, /^# TYPE immogate_http_request_duration_seconds histogram$/m);
    const health = samples(text, 'immogate_http_request_duration_seconds_bucket').filter((line) => line.includes('route="/health"'));
    const les = health.map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    assert.deepEqual(
      les.sort(),
      ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf'].sort(),
    );
    assert.ok(health.includes('immogate_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health",status="200"} 2'));
    assert.deepEqual(samples(text, 'immogate_http_request_duration_seconds_count'), [
      'immogate_http_request_duration_seconds_count{method="GET",route="/caas/v4/things/:id",status="401"} 2',
      'immogate_http_request_duration_seconds_count{method="GET",route="/health",status="200"} 2',
      'immogate_http_request_duration_seconds_count{method="GET",route="/sandbox/caas/v4/things/:id",status="200"} 1',
      'immogate_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1',
      'immogate_http_request_duration_seconds_count{method="POST",route="/oauth/token",status="200"} 1',
    ]);
    for (const line of samples(text, 'immogate_http_request_duration_seconds_sum')) {
      assert.ok(Number(line.split(' ').at(-1)) >= 0, line);
    }
  });

  it('never labels by raw URL', () => {
    assert.doesNotMatch(text, /things\/(abc|def|xyz)|route="\/nope"/);
  });

  it('counts issued tokens by API and environment', () => {
    assert.match(text, /^# TYPE immogate_tokens_issued_total counter$/m);
    assert.deepEqual(samples(text, 'immogate_tokens_issued_total'), ['immogate_tokens_issued_total{api="caas",environment="sandbox"} 1']);
  });

  it('reports the work queue depth by stream and state', () => {
    assert.match(text, /^# TYPE immogate_job_queue_depth gauge$/m);
    assert.deepEqual(samples(text, 'immogate_job_queue_depth'), [
      'immogate_job_queue_depth{stream="platform:webhooks",state="locked"} 0',
      'immogate_job_queue_depth{stream="platform:webhooks",state="ready"} 1',
      'immogate_job_queue_depth{stream="platform:webhooks",state="scheduled"} 1',
    ]);
  });

  it('includes the process metrics', () => {
    assert.match(text, /^process_cpu_seconds_total \d/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
  });
});

const PROBLEM_RESPONSE = {
  description: 'A problem (RFC 7807)',
  content: {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'instance'],
        properties: {
          type: { type: 'string', minLength: 1 },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          instance: { type: 'string', description: 'The traceparent of the request' },
          errors: {
            type: 'array',
            items: { type: 'object', required: ['name', 'reason'], properties: { name: { type: 'string' }, reason: { type: 'string' } } },
          },
          errorSource: { type: 'string', enum: ['body', 'requestParameter', 'header', 'contentType'] },
        },
      },
    },
  },
};

/** The document of an API whose module brings no docs: its routes as they are, the servers, both schemes. */
function expectedDocument(descriptor: ApiDescriptor, paths: Record<string, unknown>) {
  return {
    openapi: '3.0.3',
    info: { title: descriptor.title, version: descriptor.version },
    components: {
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: oauthScheme(descriptor, server.base, undefined).description,
          flows: {
            clientCredentials: {
              tokenUrl: `${server.base}/oauth/token`,
              scopes: Object.fromEntries(descriptor.scopes.map((scope) => [scope, ''])),
            },
          },
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token obtained from the token service yourself.',
        },
      },
      schemas: {},
    },
    paths,
    servers: [
      { url: server.base + rootPath(descriptor, 'sandbox'), description: 'sandbox' },
      { url: server.base + rootPath(descriptor, 'production'), description: 'production' },
    ],
  };
}

describe('GET {root}/openapi.json', () => {
  const thingsPaths = {
    '/things/{id}': {
      get: {
        summary: 'Read a thing',
        parameters: [{ schema: { type: 'string', minLength: 1 }, in: 'path', name: 'id', required: true }],
        security: [{ oauth2: ['caas:classifieds:read'] }, { bearerAuth: [] }],
        'x-scope': 'caas:classifieds:read',
        responses: {
          200: {
            description: 'Default Response',
            content: {
              'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
            },
          },
          '4XX': PROBLEM_RESPONSE,
          '5XX': PROBLEM_RESPONSE,
        },
      },
    },
  };

  for (const descriptor of APIS) {
    for (const environment of ['production', 'sandbox'] as const) {
      const root = rootPath(descriptor, environment);
      it(`${root}/openapi.json is the ${descriptor.id} document, without a token, listing both servers`, async () => {
        const result = await http('GET', `${server.base}${root}/openapi.json`, { headers: { 'user-agent': 'curl/8.5.0' } });
        assert.equal(result.status, 200);
        assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.match(result.headers.get('traceparent') ?? '', TRACEPARENT);
        // Every root also serves the platform's event feed (test/platform/events.test.ts reads it): here, that it is there.
        const { '/events': feed, ...paths } = (result.body as { paths: Record<string, { get: Record<string, unknown> }> }).paths;
        assert.equal(feed?.get['x-immogate-extension'], true);
        assert.deepEqual({ ...(result.body as object), paths }, expectedDocument(descriptor, descriptor.id === 'caas' ? thingsPaths : {}));
      });
    }
  }

  it('needs no User-Agent from the lead API (its spec names none) or the classifieds API (not an operation of its contract); the listing import firewall still wants one', async () => {
    for (const root of ['/seeker-leads/v1', '/caas/v4']) {
      assert.equal((await http('GET', `${server.base}${root}/openapi.json`, { headers: { 'user-agent': '' } })).status, 200, root);
    }
    const result = await http('GET', `${server.base}/import-listings/v1/openapi.json`, { headers: { 'user-agent': '' } });
    assert.equal(result.status, 403);
    assert.deepEqual(result.body, {
      type: '/problems/forbidden',
      title: 'Forbidden',
      status: 403,
      detail: 'Requests without a User-Agent header are refused',
      instance: result.headers.get('traceparent'),
    });
  });
});

describe('GET /docs', () => {
  it('renders Swagger UI over the three documents', async () => {
    const page = await fetch(`${server.base}/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.match(html, /<title>immogate API documentation<\/title>/);
    assert.match(html, /<div id="swagger-ui"><\/div>/);
    const src = /<script src="([^"]*swagger-initializer\.js)"/.exec(html)?.[1];
    assert.ok(src, html);

    const initializer = await fetch(new URL(src, page.url));
    assert.equal(initializer.status, 200);
    const script = await initializer.text();
    // The configuration is JavaScript (its plugins are functions): its list of documents is JSON.
    const urls = /const config = \{"urls":(\[.*?\]),/.exec(script)?.[1];
    assert.ok(urls, script);
    assert.deepEqual(JSON.parse(urls), [
      { url: '/caas/v4/openapi.json', name: 'Classifieds ingestion API 4.0.2' },
      { url: '/import-listings/v1/openapi.json', name: 'Listing import API (German market) 1.0.7' },
      { url: '/seeker-leads/v1/openapi.json', name: 'Lead API 1.4.0' },
    ]);
    assert.match(script, /"plugins":\[function downloadUrlPlugin\(system\) \{.*\},function clientCredentialsPlugin\(system\) \{/s);

    // What the browser then loads: the bundle, and each document (a browser sends a User-Agent).
    const bundle = await fetch(new URL(src.replace('swagger-initializer.js', 'swagger-ui-bundle.js'), page.url));
    assert.equal(bundle.status, 200);
    await bundle.arrayBuffer();
    for (const { url, name } of JSON.parse(urls) as Array<{ url: string; name: string }>) {
      const document = await http('GET', new URL(url, page.url).toString(), { headers: { 'user-agent': 'Mozilla/5.0' } });
      assert.equal(document.status, 200);
      const info = (document.body as { info: { title: string; version: string } }).info;
      assert.equal(`${info.title} ${info.version}`, name);
    }
  });
});
