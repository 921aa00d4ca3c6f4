import { WEBHOOK_SECRET } from '../../platform/secrets/stored.js';
import { apiById } from '../../platform/catalogue.js';
import type { ApiModule } from '../../platform/module.js';
import { classifiedsOpenApi } from './openapi.js';
import { processingStream } from './processing.js';
import { retentionTask } from './retention.js';
import { readRoutes } from './routes/reads.js';
import { CLASSIFIED_SCHEMA_ID } from './routes/shared.js';
import { webhookRoutes } from './routes/webhooks.js';
import { writeRoutes } from './routes/writes.js';
import { classifiedSchema } from './model/classified.js';
import { removeGone, SOURCE, subscriptionStates } from './webhooks.js';

/** Classifieds ingestion v4, served under /caas/v4 and /sandbox/caas/v4. */
export const classifiedsApi: ApiModule = {
  api: apiById('caas'),
  schemas: [{ ...classifiedSchema, $id: CLASSIFIED_SCHEMA_ID }],
  streams: [processingStream],
  tasks: [retentionTask],
  sealedColumns: [{ table: 'caas_webhook_subscriptions', column: 'secret', key: 'subscription_id', purpose: () => WEBHOOK_SECRET }],
  deliverySources: { [SOURCE]: { onGone: (client, subscriptionId) => removeGone(client, subscriptionId), subscriptionStates } },
  openApiDocument: classifiedsOpenApi,
  async routes(app, deps) {
    await writeRoutes(app, deps);
    await readRoutes(app, deps);
    await webhookRoutes(app, deps);
  },
};
