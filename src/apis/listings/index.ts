/* Listing import v1 (German market), served under /import-listings/v1 and /sandbox/import-listings/v1. */
import { apiById } from '../../platform/catalogue.js';
import type { ApiModule } from '../../platform/module.js';
import { mediaSweepTask, retentionTask } from './jobs.js';
import { ListingRequest } from './model/listing.js';
import { consoleRoutes } from './routes/console.js';
import { healthRoutes } from './routes/health.js';
import { listingRoutes } from './routes/listings.js';
import { mediaRoutes } from './routes/medias.js';

export const listingsApi: ApiModule = {
  api: apiById('clim'),
  schemas: [ListingRequest],
  tasks: [retentionTask, mediaSweepTask],
  async routes(app, deps) {
    await listingRoutes(app, deps);
    await mediaRoutes(app, deps);
    await healthRoutes(app, deps);
  },
  consoleRoutes,
};
