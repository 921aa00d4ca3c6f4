import { BOUND_MARK, BOUND_NOTE } from '../model/bounds.js';
import { sealerFor } from '../../../platform/secrets/sealer.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { checkTargetUrl, OutboundError } from '../../../platform/delivery/index.js';
import { badRequest } from '../../../platform/http/problems.js';
import type { ApiDependencies } from '../../../platform/module.js';
import { STATUSES } from '../statuses.js';
import { subscribe, unsubscribe, type Subscription } from '../webhooks.js';
import { SCOPES } from './shared.js';
import { tenantOf } from '../../../platform/auth/guard.js';

// Open as the contract's Webhook is: members it does not name are accepted and ignored.
export const subscriptionBody = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    // The contract's Webhook.statuses has no uniqueness rule: repeats are accepted and stored once.
    statuses: { type: 'array', maxItems: 100, [BOUND_MARK]: BOUND_NOTE, items: { type: 'string', enum: [...STATUSES] } },
    secret: {
      type: 'string',
      minLength: 16,
      maxLength: 256,
      description: 'immogate extension: the key of the Standard Webhooks signature of each delivery. Generated when absent.',
    },
  },
} as const;

const success = { 200: { type: 'string', enum: ['success'] } } as const;

/** The contract's answer is the JSON string "success"; a bare string would go out as text/plain. */
function sendSuccess(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify('success'));
}

/** PUT /webhooks and DELETE /webhooks; both need caas:* or caas:classifieds:*. */
export async function webhookRoutes(app: FastifyInstance, { pool, config }: ApiDependencies): Promise<void> {
  const sealer = sealerFor(config);
  app.put<{ Body: Subscription }>(
    '/webhooks',
    { config: { scope: SCOPES.createSubscriptionToWebhook }, schema: { body: subscriptionBody, response: success } },
    async (request, reply) => {
      try {
        checkTargetUrl(request.body.url, config);
      } catch (error) {
        if (error instanceof OutboundError) throw badRequest([{ name: '/url', reason: `${error.message}.` }], 'body');
        throw error;
      }
      await subscribe(pool, sealer, tenantOf(request), request.body);
      return sendSuccess(reply);
    },
  );

  app.delete(
    '/webhooks',
    { config: { scope: SCOPES.deleteSubscriptionToWebhook }, schema: { response: success } },
    async (request, reply) => {
      await unsubscribe(pool, tenantOf(request));
      return sendSuccess(reply);
    },
  );
}
