/*
 * A server span per request (telemetry/index.ts), current while the request's hooks and handler
 * run, so that its statements and outbound calls are its children.
 */
import type { FastifyInstance } from 'fastify';
import type { Telemetry } from './types.js';

export function traceRequests(app: FastifyInstance, tracing: Telemetry): void {
  // Callback hooks, so that what follows runs inside the span's context. Entered twice: a body is
  // read on the connection's events, whose context is not the request's, so the handler would lose it.
  app.addHook('onRequest', (request, _reply, done) => tracing.enterRequest(request.raw, done));
  app.addHook('preHandler', (request, _reply, done) => tracing.enterRequest(request.raw, done));
  app.addHook('onResponse', async (request, reply) => {
    tracing.endRequest(request.raw, request.routeOptions.url, reply.statusCode);
  });
}
