/*
 * The load generator, forked by run.ts so autocannon never shares an event loop (or a core's
 * scheduling) with the server it measures. Receives one Load, answers one Measurement, exits.
 */
import autocannon from 'autocannon';
import { classifiedJson } from './body.js';

export interface Load {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /**
   * A fixed body, or 'classified': a fresh ~5 KB classified with a unique offererEstateId per
   * request, its media under `mediaBase` (a CDN name unless set), publishable if asked.
   */
  body?: string | { classified: string; mediaBase?: string; publishable?: boolean };
  /** Paths taken in turn, one per request, instead of `path` (pages at several cursors). */
  paths?: string[];
  connections: number;
  seconds: number;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Socket errors, timeouts and 4xx/5xx answers (a 304 is a success). */
  errors: number;
  total: number;
  /** End-to-end scenarios: acknowledged work that never arrived (or never finished) within the grace period. */
  lost?: number;
  /** End-to-end scenarios: work still pending in its queue when the load stopped. */
  backlog?: number;
  /** What else a scenario measured, kept in the JSON (not in the table). */
  details?: Record<string, unknown>;
  /**
   * The part of the run the figures are about, when the run does more (starts a process first):
   * µs of CLOCK_MONOTONIC (cpuProfile.ts, monotonicUs). A profile is read over this stretch only.
   */
  window?: { from: number; to: number };
}

async function measure(load: Load): Promise<Measurement> {
  const { body, paths } = load;
  let counter = 0;
  const request =
    typeof body === 'object'
      ? {
          setupRequest: (req: object) => ({
            ...req,
            body: classifiedJson(`${body.classified}-${process.pid}-${++counter}`, body.mediaBase, {
              publishable: body.publishable ?? false,
            }),
          }),
        }
      : paths && paths.length > 0
        ? { body, setupRequest: (req: object) => ({ ...req, path: paths[counter++ % paths.length]! }) }
        : { body };
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    requests: [{ method: load.method, path: load.path, headers: load.headers, ...request }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.timeouts + result['4xx'] + result['5xx'],
    total: result.requests.total,
  };
}

process.once('message', (load: Load) => {
  measure(load).then(
    (measurement) => process.send!(measurement, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
