/*
 * Slow clients are bounded: a deadline per request body (stretched for uploads by their declared
 * size) and a cap on open connections.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import { answerClientError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The handler reads the body itself (a media upload): its deadline is stretched by the
     * declared Content-Length at MIN_UPLOAD_BYTES_PER_SECOND and lasts until the answer.
     */
    streamedBody?: boolean;
  }
}

/** The slowest upload served in full: a 40 MiB file may take 20 minutes, a trickle of bytes may not. */
export const MIN_UPLOAD_BYTES_PER_SECOND = 32 * 1024;

/**
 * A deadline for receiving each request's body, HTTP_REQUEST_TIMEOUT_SECONDS after its headers
 * (which Node bounds by headersTimeout). Node's own requestTimeout is one value for every route,
 * too short for a large upload or too long for a JSON body trickled a byte at a time; this one is
 * per route. A request still receiving at its deadline is answered 408 and its connection closed.
 */
export function installRequestDeadlines(app: FastifyInstance, seconds: number): void {
  const deadlines = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  const clear = (request: FastifyRequest) => clearTimeout(deadlines.get(request));

  app.addHook('onRequest', (request, reply, done) => {
    // Without a body the whole request is in once its headers are (Node bounds those by headersTimeout).
    const length = request.headers['content-length'];
    if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return done();
    const streamed = request.routeOptions.config.streamedBody === true;
    const declared = Number(request.headers['content-length'] ?? 0);
    const ms = 1000 * (streamed && Number.isFinite(declared) ? seconds + declared / MIN_UPLOAD_BYTES_PER_SECOND : seconds);
    const timer = setTimeout(() => {
      const socket = request.raw.socket;
      if (reply.raw.headersSent) socket.destroy();
      else answerClientError(Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    }, ms);
    timer.unref();
    deadlines.set(request, timer);
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
  // Past validation the body has arrived: what the handler then takes is the server's time, not the client's.
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.routeOptions.config.streamedBody !== true) clear(request);
    done();
  });
}

/**
 * A connection sits idle at most HTTP_IDLE_TIMEOUT_SECONDS, but never while its request is being
 * handled: a handler waiting on the database has its own deadlines (db/limits.ts), and closing the
 * socket under it would drop a request that may still commit, unanswered (a client retrying it
 * without an Idempotency-Key writes twice). The idle clock stops when a request's headers are in
 * and runs again once its answer starts going out, so a client that does not read an answer is
 * still cut off.
 */
export function pauseIdleTimeoutWhileHandling(app: FastifyInstance, idleSeconds: number): void {
  // A request the app injects itself (the console asking the token endpoint) has a stand-in socket without timeouts.
  const idleClock = (request: FastifyRequest, ms: number) => {
    const socket = request.raw.socket as Partial<Socket> | undefined;
    if (typeof socket?.setTimeout === 'function') socket.setTimeout(ms);
  };
  app.addHook('onRequest', (request, _reply, done) => {
    idleClock(request, 0);
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    idleClock(request, idleSeconds * 1000);
    done(null, payload);
  });
}

/** At most `max` connections per process; a refusal is logged at most once a minute, so a flood cannot flood the log. */
export function limitConnections(server: Server, max: number, logger: Logger): void {
  server.maxConnections = max;
  let refused = 0;
  let lastLog = 0;
  server.on('drop', () => {
    refused += 1;
    const now = Date.now();
    if (now - lastLog < 60_000) return;
    lastLog = now;
    logger.warn(
      { maxConnections: max, refusedSinceLastWarning: refused },
      'connection limit reached: new connections are refused (HTTP_MAX_CONNECTIONS)',
    );
    refused = 0;
  });
}
