/*
 * HTTP of the webhook subscriptions: POST, GET, PUT, DELETE /webhook/subscriptions[/{id}], GET
 * /webhook/subscriptions/{id}/audit, and POST /webhook/subscriptions/{id}/test-events (an extension).
 */
import type { FastifyRequest } from 'fastify';
import { tenantOf } from '../../../platform/auth/guard.js';
import type { Environment } from '../../../platform/catalogue.js';
import { addressPolicy, checkTargetUrl, Delivery, OutboundError } from '../../../platform/delivery/index.js';
import { badRequest } from '../../../platform/http/problems.js';
import { bySubscription, perMinute } from '../../../platform/http/rateLimit.js';
import { WEBHOOKS_STREAM } from '../../../platform/delivery/index.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { sealerFor } from '../../../platform/secrets/sealer.js';
import {
  Audit,
  AuditQuery,
  CreateSubscriptionRequest,
  DeletedSubscription,
  Subscription,
  SubscriptionIdParams,
  SubscriptionListQuery,
  SubscriptionPage,
  SUBSCRIPTION_SCOPE,
  UpdateSubscriptionRequest,
} from '../model/subscription.js';
import {
  auditSubscription,
  createSubscription,
  deleteSubscription,
  listSubscriptions,
  sendTestEvent,
  updateSubscription,
} from '../services/subscriptions.js';

// The spec's limit for POST /webhook/subscriptions (as for GET /leads): 10 per 200 ms per caller.
const RATE_LIMIT = { max: 10, timeWindow: 200 };

/** The subscription a test event is asked for, as the route's path names it (before its schema has checked it). */
function subscriptionIdOf(request: FastifyRequest): string {
  const id: unknown = typeof request.params === 'object' && request.params !== null ? Reflect.get(request.params, 'id') : undefined;
  return String(id);
}

/** The one URL check the schema cannot make: scheme, credentials, private addresses (the environment's address policy). */
function checkUrl(url: string, config: ApiDependencies['config'], environment: Environment): void {
  try {
    checkTargetUrl(url, addressPolicy(config, environment));
  } catch (error) {
    if (error instanceof OutboundError) throw badRequest([{ name: '/url', reason: `${error.message}.` }], 'body');
    throw error;
  }
}

export async function subscriptionRoutes(app: ApiApp, { pool, config }: ApiDependencies): Promise<void> {
  const sealer = sealerFor(config);
  app.post(
    '/webhook/subscriptions',
    {
      config: { scope: SUBSCRIPTION_SCOPE, rateLimit: RATE_LIMIT },
      schema: { operationId: 'createWebhookSubscription', body: CreateSubscriptionRequest, response: { 201: Subscription } },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      checkUrl(request.body.url, config, tenant.environment);
      return reply.code(201).send(await createSubscription(pool, sealer, tenant, request.body));
    },
  );

  app.get(
    '/webhook/subscriptions',
    {
      config: { scope: SUBSCRIPTION_SCOPE },
      schema: { operationId: 'getWebhookSubscriptions', querystring: SubscriptionListQuery, response: { 200: SubscriptionPage } },
    },
    async (request) => listSubscriptions(pool, tenantOf(request), request.query),
  );

  app.put(
    '/webhook/subscriptions/:id',
    {
      config: { scope: SUBSCRIPTION_SCOPE },
      schema: {
        operationId: 'updateWebhookSubscription',
        params: SubscriptionIdParams,
        body: UpdateSubscriptionRequest,
        response: { 200: Subscription },
      },
    },
    async (request) => updateSubscription(pool, sealer, tenantOf(request), request.params.id, request.body),
  );

  app.delete(
    '/webhook/subscriptions/:id',
    {
      config: { scope: SUBSCRIPTION_SCOPE },
      schema: { operationId: 'deleteWebhookSubscription', params: SubscriptionIdParams, response: { 200: DeletedSubscription } },
    },
    async (request) => ({
      ...(await deleteSubscription(pool, tenantOf(request), request.params.id)),
      message: 'The subscription was deleted',
    }),
  );

  app.get(
    '/webhook/subscriptions/:id/audit',
    {
      config: { scope: SUBSCRIPTION_SCOPE },
      schema: {
        operationId: 'getWebhookSubscriptionAudit',
        params: SubscriptionIdParams,
        querystring: AuditQuery,
        response: { 200: Audit },
      },
    },
    async (request) => auditSubscription(pool, tenantOf(request), request.params.id, request.query.limit),
  );

  app.post(
    '/webhook/subscriptions/:id/test-events',
    {
      config: {
        scope: SUBSCRIPTION_SCOPE,
        addsWork: [WEBHOOKS_STREAM],
        // Each test event is an outbound POST: a budget per subscription.
        ...perMinute('leads-test-events', config.rateLimits.testEventsPerMinute, 'subscription', bySubscription(subscriptionIdOf)),
      },
      schema: {
        operationId: 'sendWebhookSubscriptionTestEvent',
        'x-immogate-extension': true,
        params: SubscriptionIdParams,
        response: { 202: Delivery },
      },
    },
    async (request, reply) => reply.code(202).send(await sendTestEvent(pool, tenantOf(request), request.params.id)),
  );
}
