/* Listing import v1 (German market), served under /import-listings/v1 and /sandbox/import-listings/v1. */
import { apiById } from '../../platform/catalogue.js';
import type { ApiModule } from '../../platform/module.js';
import { listingDocs } from './docs.js';
import { mediaSweepTask, openimmoRetentionTask, openimmoStream, retentionTask } from './jobs.js';
import { ListingRequest } from './model/listing.js';
import { consoleRoutes } from './routes/console.js';
import { healthRoutes } from './routes/health.js';
import { listingRoutes } from './routes/listings.js';
import { mediaRoutes } from './routes/medias.js';
import { openimmoRoutes } from './routes/openimmo.js';

export const listingsApi: ApiModule = {
  api: apiById('clim'),
  docs: listingDocs,
  schemas: [ListingRequest],
  streams: [openimmoStream],
  tasks: [retentionTask, mediaSweepTask, openimmoRetentionTask],
  async routes(app, deps) {
    await listingRoutes(app, deps);
    await mediaRoutes(app, deps);
    await openimmoRoutes(app, deps);
    await healthRoutes(app, deps);
  },
  consoleRoutes,
};
