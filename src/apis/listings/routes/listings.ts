import type { FastifyInstance } from 'fastify';
import { apiById, rootPath } from '../../../platform/catalogue.js';
import type { ApiDependencies } from '../../../platform/module.js';
import type { BlobStore } from '../../../platform/blobs/index.js';
import { createListing, deleteListing, listListings, PAGE_SIZE, readListing, updateListing } from '../listings.js';
import { mediaStore } from '../medias.js';
import { LISTING_REQUEST_SCHEMA_ID } from '../model/schema.js';
import type { ListingRequest } from '../model/types.js';
import { tenantOf } from '../../../platform/auth/guard.js';

const CLIM = apiById('clim');

const body = { $ref: `${LISTING_REQUEST_SCHEMA_ID}#` };

const externalListingIdParams = {
  type: 'object',
  required: ['externalListingId'],
  additionalProperties: false,
  properties: {
    // No listing can have U+0000 in its id (PostgreSQL text cannot hold it): refused before any query.
    externalListingId: { type: 'string', minLength: 1, description: 'The offererEstateId the listing was created with' },
  },
} as const;

interface ExternalListingIdParams {
  externalListingId: string;
}

const writeAcknowledgement = {
  requestId: { type: 'string', format: 'uuid', description: 'Identifies this write request' },
  listingId: { type: 'string', format: 'uuid', description: 'The portal identifier of the listing' },
  externalListingId: { type: 'string', description: 'The offererEstateId the listing was created with' },
} as const;

const accepted = {
  type: 'object',
  required: ['requestId', 'listingId', 'externalListingId'],
  additionalProperties: false,
  properties: writeAcknowledgement,
} as const;

const created = {
  type: 'object',
  required: ['requestId', 'listingId', 'externalListingId', 'warnings', 'links'],
  additionalProperties: false,
  properties: {
    ...writeAcknowledgement,
    warnings: {
      type: 'array',
      description: 'Non-blocking findings: the listing was stored all the same',
      items: {
        type: 'object',
        required: ['type', 'message'],
        additionalProperties: false,
        properties: { type: { type: 'string' }, message: { type: 'string' } },
      },
    },
    links: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rel', 'href'],
        additionalProperties: false,
        properties: {
          rel: { type: 'string', enum: ['self'] },
          href: { type: 'string', format: 'uri', description: 'GET it to read the listing back' },
        },
      },
    },
  },
  headers: { Location: { type: 'string', format: 'uri', description: 'The listing' } },
} as const;

const page = {
  type: 'object',
  required: ['externalListingIds', 'nextPageToken'],
  additionalProperties: false,
  properties: {
    externalListingIds: { type: 'array', items: { type: 'string' }, description: `Oldest first, at most ${PAGE_SIZE} a page` },
    nextPageToken: { type: 'string', nullable: true, description: 'Send it as nextPageToken for the next page; null on the last page' },
  },
} as const;

/** GET /listings/{externalListingId}: the spec refuses additional properties in it. */
export const listingResponse = {
  type: 'object',
  required: ['listing'],
  additionalProperties: false,
  properties: {
    listing: {
      type: 'object',
      description: 'The last accepted apiRequest plus the service-side members',
      required: ['data', 'metadata', 'listingId', 'externalListingId', 'isPublished', 'creationDate', 'lastUpdateDate'],
      additionalProperties: false,
      properties: {
        data: { $ref: `${LISTING_REQUEST_SCHEMA_ID}#/properties/data` },
        metadata: { $ref: `${LISTING_REQUEST_SCHEMA_ID}#/properties/metadata` },
        media: { $ref: `${LISTING_REQUEST_SCHEMA_ID}#/properties/media` },
        contact: { $ref: `${LISTING_REQUEST_SCHEMA_ID}#/properties/contact` },
        listingId: writeAcknowledgement.listingId,
        externalListingId: writeAcknowledgement.externalListingId,
        isPublished: { type: 'boolean', description: 'false: stored and served to its agency, not published on the portal' },
        creationDate: { type: 'string', format: 'date-time' },
        lastUpdateDate: {
          type: 'string',
          format: 'date-time',
          description: 'The last write (create or update); sandbox listings are deleted 90 days after it',
        },
      },
    },
  },
} as const;

// The stored request is served as stored: the schema documents the route, and this serialiser keeps
// fast-json-stringify from compiling (and filtering by) the whole listing model.
const documentedOnly = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

/** POST /listings, GET /listings, GET/PUT/DELETE /listings/{externalListingId}. */
export async function listingRoutes(app: FastifyInstance, { pool, config }: ApiDependencies): Promise<void> {
  // Opened only for a body with media: a listing without media does not depend on the blob store.
  const storeFor = async (body: ListingRequest): Promise<BlobStore | undefined> =>
    body.media !== undefined && body.media.length > 0 ? mediaStore({ pool, config }) : undefined;

  app.post<{ Body: ListingRequest }>(
    '/listings',
    { config: { scope: 'clim:listings:create' }, schema: { body, response: { 201: created } } },
    async (request, reply) => {
      const ack = await createListing(pool, tenantOf(request), request.body, await storeFor(request.body));
      const location = `${config.publicUrl}${rootPath(CLIM, tenantOf(request).environment)}/listings/${encodeURIComponent(ack.externalListingId)}`;
      return reply
        .code(201)
        .header('location', location)
        .send({ ...ack, links: [{ rel: 'self', href: location }] });
    },
  );

  app.get<{ Querystring: { nextPageToken?: string } }>(
    '/listings',
    {
      config: { scope: 'clim:listings:read' },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            nextPageToken: { type: 'string', description: 'The nextPageToken of the previous page; omit it for the first page' },
          },
        },
        response: { 200: page },
      },
    },
    async (request) => listListings(pool, tenantOf(request), request.query.nextPageToken),
  );

  app.get<{ Params: ExternalListingIdParams }>(
    '/listings/:externalListingId',
    {
      config: { scope: 'clim:listings:read' },
      ...documentedOnly,
      schema: { params: externalListingIdParams, response: { 200: listingResponse } },
    },
    async (request) => ({ listing: await readListing(pool, tenantOf(request), request.params.externalListingId) }),
  );

  app.put<{ Body: ListingRequest; Params: ExternalListingIdParams }>(
    '/listings/:externalListingId',
    { config: { scope: 'clim:listings:update' }, schema: { params: externalListingIdParams, body, response: { 202: accepted } } },
    async (request, reply) =>
      reply
        .code(202)
        .send(await updateListing(pool, tenantOf(request), request.params.externalListingId, request.body, await storeFor(request.body))),
  );

  app.delete<{ Params: ExternalListingIdParams }>(
    '/listings/:externalListingId',
    { config: { scope: 'clim:listings:delete' }, schema: { params: externalListingIdParams, response: { 202: accepted } } },
    async (request, reply) => reply.code(202).send(await deleteListing(pool, tenantOf(request), request.params.externalListingId)),
  );
}
