/*
 * Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry SDK is loaded by import()
 * only then (otlp.ts), so a start without it loads none of it and pays one undefined check per
 * request and work item (statements are traced by patching the pool's client class, only then).
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log.js';

/** What the server, the pool and the worker ask of tracing; no OpenTelemetry type shows here. */
export interface Telemetry {
  /** Starts a request's server span, continuing a valid incoming traceparent; answers the span's own traceparent. */
  startRequest(request: IncomingMessage): string;
  /** Runs `next` (the rest of the request's hooks and its handler) with the request's span as the current one. */
  enterRequest(request: IncomingMessage, next: () => void): void;
  /** Names the span by its route pattern (`POST /v4/classifieds`), records the status and ends it. */
  endRequest(request: IncomingMessage, route: string | undefined, status: number): void;
  /** A span around one work item of a stream, the parent of its statements and outbound calls. */
  work<T>(stream: string, run: () => Promise<T>): Promise<T>;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

let current: Telemetry | undefined;

/** The process's tracing, or undefined when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
export function telemetry(): Telemetry | undefined {
  return current;
}

/**
 * Starts tracing when the environment asks for it (OTEL_EXPORTER_OTLP_ENDPOINT or its traces-only
 * variant); `role` ('server', 'worker', 'server+worker') goes on every span's resource.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv, role: string, logger: Logger): Promise<Telemetry | undefined> {
  if (current) return current;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const { startOtlp } = await import('./otlp.js');
  current = startOtlp(env, role, logger);
  return current;
}

/** Flushes and forgets the process's tracing (at shutdown). */
export async function stopTelemetry(): Promise<void> {
  const stopping = current;
  current = undefined;
  await stopping?.shutdown();
}
