import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import type { Logger } from '../log.js';
import {
  PROBLEM_CONTENT_TYPE,
  Problem,
  badRequest,
  internalError,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  unsupportedMediaType,
} from './problems.js';
import { validationProblem } from './validation.js';

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply
    .code(problem.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem.body(reply.request.id)));
}

/** Maps anything thrown while handling a request onto one problem; nothing internal leaks on 5xx. */
export function toProblem(error: FastifyError | Problem | Error, request: FastifyRequest, bodyLimit: number): Problem {
  if (error instanceof Problem) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return validationProblem(fastifyError.validation as never, fastifyError.validationContext ?? 'body');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request.headers['content-type'], ['application/json']);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest([{ name: '', reason: 'The body is empty but the content type is application/json.' }], 'body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest([{ name: 'Content-Length', reason: 'does not match the length of the body.' }], 'header');
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new Problem(status, STATUS_CODES[status] ?? 'Client error', fastifyError.message);
  }
  return internalError();
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The JSON body as it was sent, once parsed: a handler storing the body as JSON passes this
     * text on instead of serialising the parsed value again (validation neither adds defaults to
     * a body nor coerces it, so the two are the same document).
     */
    rawJson: string | null;
  }
}

/**
 * JSON bodies parsed with the parser's own message kept ("Unexpected token } in JSON at
 * position 41"), so a client learns where its document broke; prototype-poisoning keys refused.
 */
function parseJson(request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.length === 0) {
    done(badRequest([{ name: '', reason: 'The body is empty but the content type is application/json.' }], 'body'));
    return;
  }
  let value: unknown;
  try {
    value = sjson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    // Well-formed JSON is refused only for a member that could poison prototypes once merged.
    done(
      wellFormed(body)
        ? badRequest([{ name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' }], 'body')
        : badRequest([{ name: '', reason: `is not valid JSON: ${(error as Error).message}.` }], 'body', 'The body is not valid JSON'),
    );
    return;
  }
  // JSON may carry U+0000 as \u0000; PostgreSQL text and jsonb cannot store it. The raw text
  // tells cheaply whether to look for where it is.
  const nul = body.includes('\\u0000') ? nulPointer(value, '') : undefined;
  if (nul !== undefined) {
    done(badRequest([{ name: nul, reason: 'must not contain the NUL character (\\u0000).' }], 'body'));
    return;
  }
  request.rawJson = body;
  done(null, value);
}

/** The JSON pointer of the first member name or string holding U+0000. */
function nulPointer(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? pointer : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, member] of Object.entries(value)) {
    const path = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key.includes('\u0000')) return path;
    const found = nulPointer(member, path);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Query and path parameters holding U+0000 (sent as %00) are refused the same way, before any handler. */
function refuseNulParameters(request: FastifyRequest): void {
  if (!request.url.includes('%00')) return;
  for (const values of [request.query, request.params]) {
    for (const [name, value] of Object.entries((values ?? {}) as Record<string, unknown>)) {
      const texts = Array.isArray(value) ? value : [value];
      if (texts.some((text) => typeof text === 'string' && text.includes('\u0000')) || name.includes('\u0000')) {
        throw badRequest([{ name, reason: `must not contain the NUL character (%00).` }], 'requestParameter');
      }
    }
  }
}

function wellFormed(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** Error rendering, JSON parsing, 404 and 405 for the whole app. */
export function installErrorHandling(app: FastifyInstance, logger: Logger, bodyLimit: number): void {
  // JSON only: the APIs speak nothing else (the token endpoint adds form encoding for itself).
  app.removeAllContentTypeParsers();
  app.decorateRequest('rawJson', null);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);

  app.addHook('preValidation', async (request) => refuseNulParameters(request));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = toProblem(error, request, bodyLimit);
    if (problem.status >= 500) logger.error({ err: error, traceparent: request.id, url: request.url }, 'request failed');
    return sendProblem(reply, problem);
  });

  // Paths known with other methods get 405 with Allow; a path unknown altogether gets 404.
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of methods) known.add(method);
    methodsByPath.set(route.url, known);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    for (const [pattern, methods] of methodsByPath) {
      if (matches(pattern, path)) return sendProblem(reply, methodNotAllowed(request.method, [...methods].sort()));
    }
    return sendProblem(reply, notFound(`No resource at ${request.method} ${path}`));
  });
}

function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return false;
  return a.every((segment, i) => segment.startsWith(':') ? (b[i] ?? '') !== '' : segment === b[i]);
}
