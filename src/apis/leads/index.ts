/* The Lead API module (lead API v1), served under /seeker-leads/v1 and /sandbox/seeker-leads/v1. */
import { apiById } from '../../platform/catalogue.js';
import type { ApiModule } from '../../platform/module.js';
import { WEBHOOK_SECRET } from '../../platform/secrets/stored.js';
import { leadDocs } from './docs.js';
import { DELIVERY_SOURCE } from './model/subscription.js';
import { leadAdminRoutes } from './routes/admin.js';
import { consoleRoutes } from './routes/console.js';
import { leadRoutes } from './routes/leads.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { deliveryHooks } from './services/subscriptions.js';

export const leadsApi: ApiModule = {
  api: apiById('leads'),
  docs: leadDocs,
  sealedColumns: [{ table: 'lead_webhook_subscriptions', column: 'api_key', key: 'id', purpose: () => WEBHOOK_SECRET }],
  deliverySources: { [DELIVERY_SOURCE]: deliveryHooks },
  async routes(app, deps) {
    await leadRoutes(app, deps);
    await subscriptionRoutes(app, deps);
  },
  consoleRoutes,
  adminRoutes: leadAdminRoutes,
};
