/* What tracing offers the rest of immogate (index.ts), apart from its OpenTelemetry side (otlp.ts). */
import type { IncomingMessage } from 'node:http';

/** What the server and the worker ask of tracing (statements are traced by db/pool.ts traceQueries); no OpenTelemetry type shows here. */
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
