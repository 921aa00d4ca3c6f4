/*
 * The console's reads of listings (mounted only under /console/api/clim): the listings newest
 * first, as the console's other lists are, and one listing's warnings, media and retention.
 */
import Type from 'typebox';
import { tenantOf } from '../../../platform/auth/guard.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ListingDetails } from '../model/console.js';
import { ExternalListingIdParams, PAGE_SIZE, PageQuery } from '../model/listing.js';
import { listingDetails } from '../services/console.js';
import { listListings } from '../services/listings.js';

const RecentListings = Type.Object({
  externalListingIds: Type.Array(Type.String(), { description: `Newest first, at most ${PAGE_SIZE} a page` }),
  nextPageToken: Type.Union([Type.String(), Type.Null()]),
});

export async function consoleRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get(
    '/recent-listings',
    { config: { scope: 'clim:listings:read' }, schema: { querystring: PageQuery, response: { 200: RecentListings } } },
    async (request) => listListings(pool, tenantOf(request), request.query.nextPageToken, 'newest'),
  );
  app.get(
    '/listings/:externalListingId/details',
    { config: { scope: 'clim:listings:read' }, schema: { params: ExternalListingIdParams, response: { 200: ListingDetails } } },
    async (request) => listingDetails(pool, tenantOf(request), request.params.externalListingId),
  );
}
