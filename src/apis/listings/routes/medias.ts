/* POST /medias and the presigned upload endpoint of the local blob store. */
import { tenantOf } from '../../../platform/auth/guard.js';
import { LocalBlobStore } from '../../../platform/blobs/local.js';
import { apiById, ENVIRONMENTS, rootPath, type Environment } from '../../../platform/catalogue.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { MAX_MEDIA_BYTES, MediaCreated, NewMedia } from '../model/media.js';
import { createMedia, mediaStore, receiveUpload } from '../services/medias.js';

export interface MediaRouteOptions {
  /** The upload size limit; MAX_MEDIA_BYTES (40 MiB) unless a test wants a small one. */
  maxBytes?: number;
}

/** Where the local backend's presigned PUTs go, relative to the API root. */
export const UPLOAD_PATH = '/media-uploads';

const CLIM = apiById('clim');

export async function mediaRoutes(app: ApiApp, deps: ApiDependencies, options: MediaRouteOptions = {}): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_MEDIA_BYTES;
  // Opened by the first request that needs it, not here: registering the routes reads no row, so
  // the build can meet their schemas without a database (scripts/precompile.ts).
  // Uploads go to the API root of the caller's environment, wherever POST /medias was asked (the
  // console mounts these routes too).
  const uploadBaseUrl = (environment: Environment) => `${deps.config.publicUrl}${rootPath(CLIM, environment)}${UPLOAD_PATH}`;

  app.post(
    '/medias',
    {
      config: { scope: 'clim:medias:create' },
      schema: {
        operationId: 'createMedia',
        body: NewMedia,
        response: { 201: MediaCreated },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const options = { uploadBaseUrl: uploadBaseUrl(tenant.environment), maxBytes };
      return reply.code(201).send(await createMedia(deps.pool, await mediaStore(deps), tenant, request.body, options));
    },
  );

  // The upload endpoint is the API root's: registered where the routes are mounted at one.
  const environment = ENVIRONMENTS.find((candidate) => app.prefix === rootPath(CLIM, candidate));
  if (deps.config.s3 !== undefined || environment === undefined) return;
  // The upload takes raw bytes of any declared type, unread by Fastify: its own context, so the
  // API's JSON-only parsing stays as it is everywhere else.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    uploads.put(
      `${UPLOAD_PATH}/*`,
      // Authorised by the URL's signature, not by a token; an opaque detail of POST /medias. No
      // params or query schema: the signature check judges them.
      { config: { public: true, streamedBody: true }, schema: { hide: true } },
      async (request, reply) => {
        // An answer before the whole body was read ends the connection: the rest of a refused
        // upload is not worth reading, and the socket could not serve another request anyway.
        reply.header('connection', 'close');
        const store = await mediaStore(deps);
        // Registered only without S3 (above), where the store is the local one.
        if (!(store instanceof LocalBlobStore)) throw new Error('the upload endpoint serves the local blob store only');
        const result = await receiveUpload(
          deps.pool,
          store,
          {
            environment,
            key: stringMember(request.params, '*') ?? '',
            expires: stringMember(request.query, 'expires'),
            signature: stringMember(request.query, 'signature'),
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

/** `value[name]` when it is a single string (a repeated query parameter is an array: not one). */
function stringMember(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(name in value)) return undefined;
  const member: unknown = Reflect.get(value, name);
  return typeof member === 'string' ? member : undefined;
}
