/*
 * POST /openimmo-imports and GET /openimmo-imports/{importId}: the OpenImmo intake, an extension
 * of the listing import (openimmo/intake.ts). The file is read by the handler, not by a parser of
 * the API's: its own limit (OpenImmo ZIPs carry pictures), answered 413 as soon as it is passed,
 * and a deadline stretched by its declared length as uploads have (slowClients.ts).
 */
import { tenantOf } from '../../../platform/auth/guard.js';
import { apiById, rootPath } from '../../../platform/catalogue.js';
import { Problem, payloadTooLarge } from '../../../platform/http/problems.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ImportAccepted, ImportIdParams, ImportPage, OpenImmoImport } from '../model/openimmo.js';
import { PageQuery } from '../model/listing.js';
import { acceptImport, kindOf, listImports, readImport } from '../openimmo/intake.js';
import { DEFAULT_OPENIMMO_LIMITS } from '../openimmo/limits.js';

const CLIM = apiById('clim');

/** Files received at once by one process: each is held in memory until committed. */
export const RECEIVING_AT_ONCE = 4;
const BUSY_RETRY_AFTER_SECONDS = 5;

export interface OpenImmoRouteOptions {
  /** The largest file taken; DEFAULT_OPENIMMO_LIMITS.maxBodyBytes unless a test wants a small one. */
  maxBodyBytes?: number;
}

async function readBody(stream: AsyncIterable<Buffer>, declared: string | undefined, maxBytes: number): Promise<Buffer> {
  if (declared !== undefined && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes) throw payloadTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export async function openimmoRoutes(app: ApiApp, { pool, config }: ApiDependencies, options: OpenImmoRouteOptions = {}): Promise<void> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_OPENIMMO_LIMITS.maxBodyBytes;
  let receiving = 0;

  // Raw bytes of any declared type, unread by Fastify: its own context, so the API's JSON-only
  // parsing stays as it is everywhere else; the handler judges the type.
  await app.register(async (files) => {
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    files.post(
      '/openimmo-imports',
      {
        config: { scope: 'clim:listings:create', streamedBody: true },
        schema: {
          operationId: 'createOpenImmoImport',
          'x-immogate-extension': true,
          response: { 202: ImportAccepted },
        },
      },
      async (request, reply) => {
        const tenant = tenantOf(request);
        // An answer before the whole body was read ends the connection: the rest of a refused file is not worth reading.
        reply.header('connection', 'close');
        const kind = kindOf(request.headers['content-type']);
        if (receiving >= RECEIVING_AT_ONCE) {
          throw new Problem(
            503,
            'Service unavailable',
            'This server is receiving other OpenImmo files; retry in a few seconds',
            {},
            undefined,
            {
              'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
            },
          );
        }
        receiving += 1;
        let importId: string;
        try {
          const body = await readBody(request.raw, request.headers['content-length'], maxBodyBytes);
          importId = await acceptImport(pool, tenant, kind, body);
          reply.removeHeader('connection');
        } finally {
          receiving -= 1;
        }
        const location = `${config.publicUrl}${rootPath(CLIM, tenant.environment)}/openimmo-imports/${importId}`;
        return reply
          .code(202)
          .header('location', location)
          .send({ importId, links: [{ rel: 'self', href: location }] });
      },
    );
  });

  app.get(
    '/openimmo-imports/:importId',
    {
      config: { scope: 'clim:listings:read' },
      schema: {
        operationId: 'getOpenImmoImport',
        'x-immogate-extension': true,
        params: ImportIdParams,
        response: { 200: OpenImmoImport },
      },
    },
    async (request) => readImport(pool, tenantOf(request), request.params.importId),
  );

  app.get(
    '/openimmo-imports',
    {
      config: { scope: 'clim:listings:read' },
      schema: {
        operationId: 'listOpenImmoImports',
        'x-immogate-extension': true,
        querystring: PageQuery,
        response: { 200: ImportPage },
      },
    },
    async (request) => listImports(pool, tenantOf(request), request.query.nextPageToken),
  );
}
