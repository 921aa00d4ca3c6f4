/*
 * Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry SDK is loaded by import()
 * only then (otlp.ts), so a start without it loads none of it and pays one undefined check per
 * request and work item (statements are traced by patching the pool's client class, only then).
 */
import type { Logger } from '../log.js';
import type { Telemetry } from './types.js';

export type { Telemetry };

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
  if (!stopping) return;
  // A collector that does not answer must not hold the shutdown for the exporter's 10 s timeout.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_AT_SHUTDOWN_MS);
    }),
  ]);
  clearTimeout(timer);
}

/** How long the spans still buffered at shutdown have to reach the collector. */
const FLUSH_AT_SHUTDOWN_MS = 3_000;
