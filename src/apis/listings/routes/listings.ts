/* POST /listings, GET /listings, GET/PUT/DELETE /listings/{externalListingId}, and POST /listings/validate (an extension). */
import { tenantOf } from '../../../platform/auth/guard.js';
import type { BlobStore } from '../../../platform/blobs/index.js';
import { apiById, rootPath } from '../../../platform/catalogue.js';
import { byClient, perMinute } from '../../../platform/http/rateLimit.js';
import { validationProblem } from '../../../platform/http/validation.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ListingValidation } from '../model/console.js';
import {
  ExternalListingIdParams,
  ListingCreated,
  ListingPage,
  type ListingRequest,
  ListingRequestRef,
  ListingResponse,
  PageQuery,
  WriteAcknowledgement,
} from '../model/listing.js';
import { createListing, deleteListing, listListings, readListing, updateListing } from '../services/listings.js';
import { mediaStore } from '../services/medias.js';
import { RuleChecks } from '../ruleChecks.js';
import { validateListing } from '../services/validation.js';

const CLIM = apiById('clim');

// The stored request is served as stored: the schema documents the route, and this serialiser keeps
// fast-json-stringify from compiling (and filtering by) the whole listing model.
const documentedOnly = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

export async function listingRoutes(app: ApiApp, { pool, config }: ApiDependencies): Promise<void> {
  // The rules of a body with much text run on worker threads (ruleChecks.ts), ended with the app.
  const rules = new RuleChecks();
  app.addHook('onClose', () => rules.close());
  // Opened only for a body with media: a listing without media does not depend on the blob store.
  const storeFor = async (body: ListingRequest): Promise<BlobStore | undefined> =>
    body.media !== undefined && body.media.length > 0 ? mediaStore({ pool, config }) : undefined;

  app.post(
    '/listings',
    {
      config: { scope: 'clim:listings:create' },
      schema: { operationId: 'createListing', body: ListingRequestRef, response: { 201: ListingCreated } },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const ack = await createListing(pool, tenant, request.body, rules, await storeFor(request.body));
      const location = `${config.publicUrl}${rootPath(CLIM, tenant.environment)}/listings/${encodeURIComponent(ack.externalListingId)}`;
      return reply
        .code(201)
        .header('location', location)
        .send({ ...ack, links: [{ rel: 'self', href: location }] });
    },
  );

  app.get(
    '/listings',
    {
      config: { scope: 'clim:listings:read' },
      schema: { operationId: 'getListings', querystring: PageQuery, response: { 200: ListingPage } },
    },
    async (request) => listListings(pool, tenantOf(request), request.query.nextPageToken),
  );

  app.get(
    '/listings/:externalListingId',
    {
      config: { scope: 'clim:listings:read' },
      ...documentedOnly,
      schema: { operationId: 'getListing', params: ExternalListingIdParams, response: { 200: ListingResponse } },
    },
    async (request) => ({ listing: await readListing(pool, tenantOf(request), request.params.externalListingId) }),
  );

  app.put(
    '/listings/:externalListingId',
    {
      config: { scope: 'clim:listings:update' },
      schema: {
        operationId: 'updateListing',
        params: ExternalListingIdParams,
        body: ListingRequestRef,
        response: { 202: WriteAcknowledgement },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await updateListing(pool, tenantOf(request), request.params.externalListingId, request.body, rules, await storeFor(request.body)),
        ),
  );

  app.delete(
    '/listings/:externalListingId',
    {
      config: { scope: 'clim:listings:delete' },
      schema: { operationId: 'deleteListing', params: ExternalListingIdParams, response: { 202: WriteAcknowledgement } },
    },
    async (request, reply) => reply.code(202).send(await deleteListing(pool, tenantOf(request), request.params.externalListingId)),
  );

  // An extension: the checks of a POST reported instead of applied (the route's schema is the
  // POST's, so attachValidation hands over what it found); a budget per client, as a write's work.
  app.post(
    '/listings/validate',
    {
      config: {
        scope: 'clim:listings:create',
        ...perMinute('clim-validate', config.rateLimits.validationsPerMinute, 'client', byClient),
      },
      attachValidation: true,
      schema: {
        operationId: 'validateListing',
        'x-immogate-extension': true,
        body: ListingRequestRef,
        response: { 200: ListingValidation },
      },
    },
    async (request) => {
      const found = request.validationError?.validation;
      const schemaErrors = found ? (validationProblem(found, 'body').extra.errors ?? []) : [];
      const store = schemaErrors.length === 0 ? await storeFor(request.body) : undefined;
      return validateListing(pool, tenantOf(request), request.body, schemaErrors, rules, store);
    },
  );
}
