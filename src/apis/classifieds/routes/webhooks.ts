/* PUT /webhooks and DELETE /webhooks: the status webhook subscription of the calling client; POST /webhooks/test-events (an extension) sends it a sample. */
import type { FastifyReply } from 'fastify';
import { tenantOf } from '../../../platform/auth/guard.js';
import { Delivery } from '../../../platform/delivery/index.js';
import { bySubscription, perMinute } from '../../../platform/http/rateLimit.js';
import { WEBHOOKS_STREAM } from '../../../platform/delivery/index.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { sealerFor } from '../../../platform/secrets/sealer.js';
import { SCOPES } from '../model/scopes.js';
import { Subscription, Success } from '../model/webhooks.js';
import { sendTestEvent, subscribe, unsubscribe } from '../services/webhooks.js';

/** The contract's answer is the JSON string "success"; a bare string would go out as text/plain. */
function sendSuccess(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify('success'));
}

export async function webhookRoutes(app: ApiApp, { pool, config }: ApiDependencies): Promise<void> {
  const sealer = sealerFor(config);
  app.put(
    '/webhooks',
    {
      config: { scope: SCOPES.createSubscriptionToWebhook },
      schema: { operationId: 'createSubscriptionToWebhook', body: Subscription, response: { 200: Success } },
    },
    async (request, reply) => {
      await subscribe(pool, sealer, config, tenantOf(request), request.body);
      return sendSuccess(reply);
    },
  );

  app.delete(
    '/webhooks',
    {
      config: { scope: SCOPES.deleteSubscriptionToWebhook },
      schema: { operationId: 'deleteSubscriptionToWebhook', response: { 200: Success } },
    },
    async (request, reply) => {
      await unsubscribe(pool, tenantOf(request));
      return sendSuccess(reply);
    },
  );

  app.post(
    '/webhooks/test-events',
    {
      config: {
        scope: SCOPES.createSubscriptionToWebhook,
        addsWork: [WEBHOOKS_STREAM],
        // Each test event is an outbound POST: a budget per subscription (one per client here).
        ...perMinute(
          'caas-test-events',
          config.rateLimits.testEventsPerMinute,
          'subscription',
          bySubscription((request) => tenantOf(request).clientId),
        ),
      },
      schema: { operationId: 'sendWebhookTestEvent', 'x-immogate-extension': true, response: { 202: Delivery } },
    },
    async (request, reply) => reply.code(202).send(await sendTestEvent(pool, tenantOf(request))),
  );
}
