/* The console's read of one listing (mounted only under /console/api/clim): its warnings, media and retention. */
import { tenantOf } from '../../../platform/auth/guard.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ListingDetails } from '../model/console.js';
import { ExternalListingIdParams } from '../model/listing.js';
import { listingDetails } from '../services/console.js';

export async function consoleRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get(
    '/listings/:externalListingId/details',
    { config: { scope: 'clim:listings:read' }, schema: { params: ExternalListingIdParams, response: { 200: ListingDetails } } },
    async (request) => listingDetails(pool, tenantOf(request), request.params.externalListingId),
  );
}
