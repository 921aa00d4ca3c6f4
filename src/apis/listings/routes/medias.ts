import type { FastifyInstance } from 'fastify';
import type { Environment } from '../../../platform/catalogue.js';
import type { ApiDependencies } from '../../../platform/module.js';
import { LocalBlobStore } from '../../../platform/blobs/local.js';
import {
  createMedia,
  MAX_MEDIA_BYTES,
  MEDIA_CONTENT_TYPES,
  mediaStore,
  receiveUpload,
  UPLOAD_URL_SECONDS,
  type NewMedia,
} from '../medias.js';
import { tenantOf } from '../../../platform/auth/guard.js';

export interface MediaRouteOptions {
  /** The upload size limit; MAX_MEDIA_BYTES (40 MiB) unless a test wants a small one. */
  maxBytes?: number;
}

/** Where the local backend's presigned PUTs go, relative to the API root. */
export const UPLOAD_PATH = '/media-uploads';

const createBody = {
  type: 'object',
  required: ['externalMediaId', 'fileName'],
  additionalProperties: false,
  properties: {
    externalMediaId: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._:-]+$',
      description:
        'Your identifier of the media, unique per agency and environment; a listing references the media by it (media[].externalMediaId)',
    },
    fileName: {
      type: 'string',
      minLength: 3,
      maxLength: 255,
      pattern: '^[^/\\\\\\u0000-\\u001f]+\\.[A-Za-z0-9]+$',
      description: `The file's name; its extension gives the Content-Type the upload must carry: ${Object.entries(MEDIA_CONTENT_TYPES)
        .map(([extension, type]) => `${extension} ${type}`)
        .join(', ')}`,
    },
  },
} as const;

const createdResponse = {
  type: 'object',
  required: ['externalMediaId', 'presignedURL'],
  properties: {
    externalMediaId: { type: 'string' },
    presignedURL: {
      type: 'string',
      format: 'uri',
      description: `PUT the file's bytes here within ${UPLOAD_URL_SECONDS} seconds, with the Content-Type of its extension; one upload, at most ${MAX_MEDIA_BYTES} bytes`,
    },
  },
} as const;

/** POST /medias and the presigned upload endpoint of the local blob store. */
export async function mediaRoutes(app: FastifyInstance, deps: ApiDependencies, options: MediaRouteOptions = {}): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_MEDIA_BYTES;
  const store = await mediaStore(deps);
  // Registered once per environment: the prefix says which one this is.
  const environment: Environment = app.prefix.startsWith('/sandbox/') ? 'sandbox' : 'production';
  const uploadBaseUrl = `${deps.config.publicUrl}${app.prefix}${UPLOAD_PATH}`;

  app.post<{ Body: NewMedia }>(
    '/medias',
    {
      config: { scope: 'clim:medias:create' },
      schema: {
        summary: 'Request a presigned URL to upload one media file',
        body: createBody,
        response: { 201: createdResponse },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createMedia(deps.pool, store, tenantOf(request), request.body, { uploadBaseUrl, maxBytes })),
  );

  if (!(store instanceof LocalBlobStore)) return;
  // The upload takes raw bytes of any declared type, unread by Fastify: its own context, so the
  // API's JSON-only parsing stays as it is everywhere else.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    uploads.put<{ Params: { '*': string }; Querystring: Record<string, string | string[] | undefined> }>(
      `${UPLOAD_PATH}/*`,
      // Authorised by the URL's signature, not by a token; an opaque detail of POST /medias.
      { config: { public: true, streamedBody: true }, schema: { hide: true } },
      async (request, reply) => {
        // An answer before the whole body was read ends the connection: the rest of a refused
        // upload is not worth reading, and the socket could not serve another request anyway.
        reply.header('connection', 'close');
        const result = await receiveUpload(
          deps.pool,
          store,
          {
            environment,
            key: request.params['*'],
            expires: single(request.query.expires),
            signature: single(request.query.signature),
            contentType: request.headers['content-type'],
            contentLength: request.headers['content-length'],
            body: request.raw,
          },
          maxBytes,
        );
        reply.removeHeader('connection');
        return reply.code(200).header('etag', result.etag).send();
      },
    );
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
