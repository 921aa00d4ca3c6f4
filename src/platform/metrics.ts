/*
 * Prometheus metrics at /metrics.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WorkStream } from './work/stream.js';

/** Why a request was turned away without being handled: README "When things fail". */
export type RefusalReason = 'database_unavailable' | 'database_busy' | 'database_deadline' | 'overloaded' | 'disk_low' | 'shutting_down';

const REFUSAL_REASONS: readonly RefusalReason[] = [
  'database_unavailable',
  'database_busy',
  'database_deadline',
  'disk_low',
  'shutting_down',
];

export interface Metrics {
  registry: Registry;
  tokensIssued: Counter<'api' | 'environment'>;
  requestsRefused: Counter<'reason'>;
}

/**
 * Prometheus metrics: HTTP by route and status, token issuance, work queue depth, process. `pool`
 * answers the scrape's queries: a small one of its own with the probe's limits (db/limits.ts), so
 * that a scrape takes a second at most whatever the request pool is doing.
 */
export function createMetrics(pool: pg.Pool, streams: readonly WorkStream<unknown>[]): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const tokensIssued = new Counter({
    name: 'immogate_tokens_issued_total',
    help: 'Access tokens issued, by API and environment',
    labelNames: ['api', 'environment'] as const,
    registers: [registry],
  });
  const requestsRefused = new Counter({
    name: 'immogate_requests_refused_total',
    help: 'Requests answered 503 or 507 without being handled, by reason (database_unavailable, database_busy, database_deadline, overloaded, disk_low, shutting_down)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // Each reason shows from the first scrape, at 0: an alert on its rate needs the series to exist.
  for (const reason of REFUSAL_REASONS) requestsRefused.inc({ reason }, 0);
  new Gauge({
    name: 'immogate_job_queue_depth',
    help: 'Work items waiting or running, by stream and state (ready: may be claimed now; scheduled: waiting for a retry; locked: held by a worker)',
    labelNames: ['stream', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      // Without the database a depth is unknown: leave it out rather than fail the whole scrape.
      const depths = await Promise.all(streams.map((stream) => stream.depth(pool).catch(() => undefined)));
      streams.forEach((stream, index) => {
        const depth = depths[index];
        if (!depth) return;
        for (const [state, value] of Object.entries(depth)) this.set({ stream: stream.name, state }, value);
      });
    },
  });
  return { registry, tokensIssued, requestsRefused };
}

/** Counts and times every request by its route pattern (not its raw URL, to bound cardinality). */
export function instrumentHttp(app: FastifyInstance, metrics: Metrics): void {
  const requests = new Counter({
    name: 'immogate_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'immogate_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
