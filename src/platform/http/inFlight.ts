/*
 * Requests in flight, per server process: at most HTTP_MAX_IN_FLIGHT at once. One more is answered
 * 503 with Retry-After at once, not queued: a queue in front of a full server only makes every
 * request late, and a client told to come back can go to another process meanwhile.
 *
 * What must answer whatever the load (/health, /ready, /metrics) is not counted, nor is a long poll
 * of the event feed: it waits for an event holding nothing, and has caps of its own.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import { sendProblem } from './errors.js';
import { Problem } from './problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Not counted among the requests in flight (see http/inFlight.ts). */
    uncounted?: boolean;
  }
}

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** A request past HTTP_MAX_IN_FLIGHT: the server has as much as it takes now. */
export function overloaded(max: number): Problem {
  return new Problem(
    503,
    'Service unavailable',
    `The server is handling as many requests as it takes (${max}); retry in a second`,
    {},
    undefined,
    {
      'retry-after': '1',
    },
  );
}

export function limitInFlight(app: FastifyInstance, max: number, metrics: Metrics): void {
  let inFlight = 0;
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.uncounted === true || PROBES.has(request.routeOptions.url ?? '')) return done();
    if (inFlight >= max) {
      metrics.requestsRefused.inc({ reason: 'overloaded' });
      sendProblem(reply, overloaded(max));
      return;
    }
    inFlight += 1;
    // Once, however the request ends: answered, failed, or its connection gone.
    reply.raw.once('close', () => {
      inFlight -= 1;
    });
    done();
  });
}
