/*
 * The OpenTelemetry side of telemetry/index.ts, loaded only when traces are exported: a tracer
 * provider with a batching OTLP/HTTP (JSON) exporter, server spans continuing the caller's
 * traceparent, SQL spans from the pool's connections, client spans for undici's outbound calls
 * (through its diagnostics channels, which also send the traceparent on), and a span per work item.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import {
  context,
  diag,
  DiagLogLevel,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { traceQueries } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { Telemetry } from './types.js';

/** What undici's diagnostics channels carry of a request (undici:request:*). */
interface UndiciRequest {
  origin: string | URL;
  method: string;
  path: string;
  addHeader(name: string, value: string): unknown;
}

export function startOtlp(env: NodeJS.ProcessEnv, role: string, logger: Logger): Telemetry {
  // The SDK's own troubles (a collector that refuses or is down) go to our log at warn, not to the console.
  diag.setLogger(
    {
      error: (message) => logger.warn({ telemetry: message }, 'trace export failed'),
      warn: (message) => logger.warn({ telemetry: message }, 'telemetry'),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (adding /v1/traces) and OTEL_EXPORTER_OTLP_HEADERS
  // itself, and the provider OTEL_TRACES_SAMPLER (parent-based, always on, by default).
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME || 'immogate', 'immogate.role': role }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  const tracer = provider.getTracer('immogate');
  const requests = new WeakMap<IncomingMessage, { span: Span; context: Context }>();

  traceQueries((text, name) => {
    // Only within a request or a work item: the worker's polls and the pool's housekeeping would
    // otherwise each be a trace of one statement, every second.
    if (!trace.getSpan(context.active())) return ignore;
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
    const span = tracer.startSpan(name ?? operation, {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: text,
      },
    });
    return (error) => endSpan(span, error);
  });

  const outbound = new WeakMap<UndiciRequest, Span>();
  const onCreate = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    const origin = new URL(String(request.origin));
    const span = tracer.startSpan(request.method, {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        // Without the query: a signed media URL's signature is no span attribute.
        [ATTR_URL_FULL]: `${origin.origin}${request.path.split('?')[0]}`,
        [ATTR_SERVER_ADDRESS]: origin.hostname,
        [ATTR_SERVER_PORT]: Number(origin.port || (origin.protocol === 'https:' ? 443 : 80)),
      },
    });
    outbound.set(request, span);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    for (const [name, value] of Object.entries(carrier)) request.addHeader(name, value);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number } };
    const span = outbound.get(request);
    span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
    if (span && response.statusCode >= 400)
      span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute(ATTR_ERROR_TYPE, String(response.statusCode));
  };
  // The call ends when its body has been read (trailers) or it failed.
  const onTrailers = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    outbound.get(request)?.end();
    outbound.delete(request);
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: UndiciRequest; error: unknown };
    const span = outbound.get(request);
    outbound.delete(request);
    if (span) endSpan(span, error);
  };
  const channels = {
    'undici:request:create': onCreate,
    'undici:request:headers': onHeaders,
    'undici:request:trailers': onTrailers,
    'undici:request:error': onError,
  };
  for (const [name, listener] of Object.entries(channels)) diagnostics.subscribe(name, listener);

  return {
    startRequest(request) {
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      const span = tracer.startSpan(
        request.method ?? 'HTTP',
        {
          kind: SpanKind.SERVER,
          attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: (request.url ?? '/').split('?')[0] },
        },
        parent,
      );
      requests.set(request, { span, context: trace.setSpan(parent, span) });
      const { traceId, spanId, traceFlags } = span.spanContext();
      return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
    },
    enterRequest(request, next) {
      const entry = requests.get(request);
      if (entry) context.with(entry.context, next);
      else next();
    },
    endRequest(request, route, status) {
      const entry = requests.get(request);
      if (!entry) return;
      requests.delete(request);
      const { span } = entry;
      if (route) span.updateName(`${request.method} ${route}`).setAttribute(ATTR_HTTP_ROUTE, route);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute(ATTR_ERROR_TYPE, String(status));
      span.end();
    },
    work(stream, run) {
      // Each item is a trace of its own: what enqueued it has answered long ago.
      return tracer.startActiveSpan(
        `work ${stream}`,
        { kind: SpanKind.CONSUMER, root: true, attributes: { 'immogate.stream': stream } },
        (span) =>
          run().then(
            (value) => {
              span.end();
              return value;
            },
            (error: unknown) => {
              endSpan(span, error);
              throw error;
            },
          ),
      );
    },
    async shutdown() {
      for (const [name, listener] of Object.entries(channels)) diagnostics.unsubscribe(name, listener);
      traceQueries(undefined);
      await provider.shutdown();
    },
  };
}

const ignore = () => undefined;

function endSpan(span: Span, error: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error');
  }
  span.end();
}
