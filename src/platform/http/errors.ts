/*
 * Error handling: anything thrown while handling a request becomes one problem+json answer (the
 * framework's, the parser's, ours); nothing internal leaks on a 5xx.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import {
  PROBLEM_CONTENT_TYPE,
  Problem,
  badRequest,
  internalError,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  contentTypeRefused,
  databaseBusy,
  databaseDeadline,
  databaseUnavailable,
} from './problems.js';
import { databaseRefusal, deadlineMet, type DatabaseRefusal } from '../db/unavailable.js';
import { EMPTY_BODY, installJsonBodies } from './jsonBody.js';
import { KnownPaths } from './knownPaths.js';
import { targetTooLong, uriTooLong } from './requestTarget.js';
import { continueTrace } from './tracing.js';
import { validationProblem } from './validation.js';

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply
    .code(problem.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem.body(reply.request.id)));
}

/** A request path that is no percent-encoded UTF-8. */
export function malformedPath(): Problem {
  return badRequest(
    [{ name: 'path', reason: 'must be percent-encoded UTF-8.' }],
    'requestParameter',
    'The request path is not a valid URL',
  );
}

/** Maps anything thrown while handling a request onto one problem; nothing internal leaks on 5xx. */
export function toProblem(error: FastifyError | Problem | Error, request: FastifyRequest, bodyLimit: number): Problem {
  if (error instanceof Problem) return error;
  // Every member optional: an error thrown by other code than Fastify's carries none of them.
  const fastifyError: Partial<FastifyError> = error;
  if (fastifyError.validation) return validationProblem(fastifyError.validation, fastifyError.validationContext ?? 'body');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return contentTypeRefused(request.headers['content-type']);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest([{ name: '', reason: EMPTY_BODY }], 'body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest([{ name: 'Content-Length', reason: 'does not match the length of the body.' }], 'header');
    case 'FST_ERR_BAD_URL':
      return malformedPath();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new Problem(414, 'URI too long', 'A segment of the request path is longer than any identifier of these APIs');
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new Problem(status, STATUS_CODES[status] ?? 'Client error', error.message);
  }
  switch (databaseRefusal(error)) {
    case 'busy':
      return databaseBusy();
    case 'deadline':
      return databaseDeadline(deadlineMet(error) ?? 'statement');
    case 'unavailable':
      return databaseUnavailable();
    default:
      return internalError();
  }
}

/** Query and path parameters holding U+0000 (sent as %00) are refused the same way, before any handler. */
function refuseNulParameters(request: FastifyRequest): void {
  if (!request.url.includes('%00')) return;
  for (const values of [request.query, request.params]) {
    for (const [name, value] of Object.entries(values ?? {})) {
      const texts = Array.isArray(value) ? value : [value];
      if (texts.some((text) => typeof text === 'string' && text.includes('\u0000')) || name.includes('\u0000')) {
        throw badRequest([{ name, reason: `must not contain the NUL character (%00).` }], 'requestParameter');
      }
    }
  }
}

/**
 * Error rendering, JSON parsing, 404 and 405 for the whole app. A request the database refused
 * (unavailable, busy, past its deadline) goes to `refused` (which counts it, and logs an outage
 * once) instead of being logged with its stack.
 */
export function installErrorHandling(
  app: FastifyInstance,
  logger: Logger,
  bodyLimit: number,
  refused: (error: unknown, why: DatabaseRefusal) => void = () => undefined,
): void {
  // JSON only: the APIs speak nothing else (the token endpoint adds form encoding for itself).
  app.removeAllContentTypeParsers();
  installJsonBodies(app);

  app.addHook('preValidation', (request, _reply, done) => {
    try {
      refuseNulParameters(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = toProblem(error, request, bodyLimit);
    const why = error instanceof Problem ? undefined : databaseRefusal(error);
    if (why !== undefined) refused(error, why);
    else if (problem.status >= 500) logger.error({ err: error, traceparent: request.id, url: request.url }, 'request failed');
    return sendProblem(reply, problem);
  });

  // Paths known with other methods get 405 with Allow; a path unknown altogether gets 404.
  const known = new KnownPaths();
  app.addHook('onRoute', (route) => known.add(route.url, Array.isArray(route.method) ? route.method : [route.method]));
  const answerUnrouted = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = known.methodsAt(path);
    if (allowed.length > 0) return sendProblem(reply, methodNotAllowed(request.method, allowed));
    return sendProblem(reply, notFound(`No resource at ${request.method} ${path}`));
  };
  // Answered as the request arrives, before Fastify reads a body for the not-found handler: with
  // one (or a QUERY without its Content-Type) the answer was the body's 400 or 415, not 404 or 405.
  app.addHook('onRequest', (request, reply, done) => {
    if (targetTooLong(request.raw)) sendProblem(reply, uriTooLong());
    else if (request.is404) answerUnrouted(request, reply);
    else done();
  });
  app.setNotFoundHandler(answerUnrouted);
}

const CLIENT_ERRORS: Record<string, { status: number; title: string; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: 'Request timeout', detail: 'The request was not received in time' },
  HPE_HEADER_OVERFLOW: { status: 431, title: 'Request header fields too large', detail: 'The request headers are too large' },
};

/**
 * Requests Node's HTTP parser refuses (a Content-Length shorter than the body leaves bytes that
 * are no request, a NUL in a header, a request sent too slowly) never reach Fastify; they are
 * answered here as problems too, and the connection closed, since the stream is out of step.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, title, detail } = CLIENT_ERRORS[error.code ?? ''] ?? {
    status: 400,
    title: 'Bad request',
    detail: `The request is not well-formed HTTP/1.1 (${error.code ?? 'parse error'})`,
  };
  const body = JSON.stringify(new Problem(status, title, detail).body(continueTrace(undefined)));
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
