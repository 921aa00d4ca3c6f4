/* The classifieds ingestion API v4, served under /caas/v4 and /sandbox/caas/v4. */
import { apiById } from '../../platform/catalogue.js';
import type { ApiModule } from '../../platform/module.js';
import { WEBHOOK_SECRET } from '../../platform/secrets/stored.js';
import { classifiedDocs } from './docs.js';
import { processingStream, retentionTask } from './jobs.js';
import { CLASSIFIED_SCHEMA_ID, classifiedSchema } from './model/classified.js';
import { SCOPES } from './model/scopes.js';
import { WEBHOOK_SOURCE } from './model/webhooks.js';
import { classifiedsOpenApi } from './openapi.js';
import { classifiedRoutes } from './routes/classifieds.js';
import { consoleRoutes } from './routes/console.js';
import { statusRoutes } from './routes/statuses.js';
import { webhookRoutes } from './routes/webhooks.js';
import { lockGone, removeGone, statusEventOf, subscriptionStates } from './services/webhooks.js';

export const classifiedsApi: ApiModule = {
  api: apiById('caas'),
  docs: classifiedDocs,
  schemas: [{ ...classifiedSchema, $id: CLASSIFIED_SCHEMA_ID }],
  streams: [processingStream],
  tasks: [retentionTask],
  sealedColumns: [{ table: 'caas_webhook_subscriptions', column: 'secret', key: 'subscription_id', purpose: () => WEBHOOK_SECRET }],
  deliverySources: {
    [WEBHOOK_SOURCE]: {
      scope: SCOPES.createSubscriptionToWebhook,
      lockGone: (client, subscriptionId) => lockGone(client, subscriptionId),
      onGone: (client, subscriptionId) => removeGone(client, subscriptionId),
      subscriptionStates,
      eventOf: statusEventOf,
    },
  },
  openApiDocument: classifiedsOpenApi,
  async routes(app, deps) {
    await classifiedRoutes(app, deps);
    await statusRoutes(app, deps);
    await webhookRoutes(app, deps);
  },
  consoleRoutes,
};
