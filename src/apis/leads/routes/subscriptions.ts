import { sealerFor } from '../../../platform/secrets/sealer.js';
import type { FastifyInstance } from 'fastify';
import { checkTargetUrl, OutboundError } from '../../../platform/delivery/index.js';
import { badRequest } from '../../../platform/http/problems.js';
import type { ApiDependencies } from '../../../platform/module.js';
import {
  auditSubscription,
  createSubscription,
  deleteSubscription,
  listSubscriptions,
  updateSubscription,
  type NewSubscription,
  type SubscriptionChanges,
} from '../subscriptions.js';
import { tenantOf } from '../../../platform/auth/guard.js';

const SCOPE = 'leads:webhooks';
// The spec's limit for POST /webhook/subscriptions (as for GET /leads): 10 per 200 ms per caller.
const RATE_LIMIT = { max: 10, timeWindow: 200 };
export const MAX_PAGE_SIZE = 100;

const status = { type: 'string', enum: ['ACTIVE', 'INACTIVE'] } as const;
// The spec: a required string. Visible ASCII only: it travels as an HTTP header value, and
// deliveries are signed with its bytes, which the standardwebhooks package reads one character
// per byte. 1,024 characters at most: our bound, the spec sets none.
export const API_KEY_MAX_LENGTH = 1024;
const apiKey = {
  type: 'string',
  minLength: 1,
  maxLength: API_KEY_MAX_LENGTH,
  pattern: '^[!-~]*$',
  writeOnly: true,
  description:
    'Write-only: sent as X-Api-Key with every notification and the key of its Standard Webhooks signature (HMAC-SHA256 of its ASCII bytes)',
} as const;

const subscription = {
  type: 'object',
  required: ['subscriptionId', 'url', 'status', 'createdAt', 'updatedAt'],
  properties: {
    subscriptionId: { type: 'string', format: 'uuid', minLength: 1 },
    url: { type: 'string', format: 'uri' },
    status,
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
} as const;

const idParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', format: 'uuid', description: 'The subscriptionId' } },
} as const;

const createBody = {
  type: 'object',
  required: ['url', 'apiKey'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', format: 'uri', maxLength: 2048, description: 'Where new leads are POSTed' },
    apiKey,
    status: { ...status, default: 'ACTIVE', description: 'ACTIVE when omitted' },
  },
} as const;

const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { apiKey, status },
} as const;

const listResponse = {
  type: 'object',
  required: ['metadata', 'items'],
  properties: {
    metadata: {
      type: 'object',
      required: ['count', 'limit'],
      properties: {
        count: { type: 'integer', description: 'Items in this page' },
        limit: { type: 'integer' },
        nextToken: { type: 'string', description: 'Present when another page follows: pass it as nextToken' },
      },
    },
    items: { type: 'array', items: subscription },
  },
} as const;

const deleted = {
  type: 'object',
  required: [...subscription.required, 'message'],
  properties: { ...subscription.properties, message: { type: 'string' } },
} as const;

const nullable = (type: string) => ({ type, nullable: true });

const audit = {
  type: 'object',
  required: [...subscription.required, 'lastSuccessTimestamp', 'recentEvents'],
  properties: {
    ...subscription.properties,
    lastSuccessTimestamp: { type: 'string', format: 'date-time', nullable: true },
    recentEvents: {
      type: 'array',
      description: 'Notification attempts, most recent first',
      items: {
        type: 'object',
        required: ['timestamp', 'deliveryId', 'leadId', 'attempt', 'statusCode', 'latencyMs', 'error'],
        properties: {
          timestamp: { type: 'string', format: 'date-time' },
          deliveryId: { type: 'string', description: 'The webhook-id header of the notification, the same on each of its attempts' },
          leadId: nullable('string'),
          attempt: { type: 'integer', minimum: 1 },
          statusCode: { ...nullable('integer'), description: "The receiver's HTTP status; null when none came" },
          latencyMs: nullable('integer'),
          error: { ...nullable('string'), description: 'Why the attempt failed; null on success' },
        },
      },
    },
  },
} as const;

interface IdParams {
  id: string;
}

/** The one URL check the schema cannot make: scheme, credentials, private addresses (ALLOW_PRIVATE_TARGETS). */
function checkUrl(url: string, policy: ApiDependencies['config']): void {
  try {
    checkTargetUrl(url, policy);
  } catch (error) {
    if (error instanceof OutboundError) throw badRequest([{ name: '/url', reason: `${error.message}.` }], 'body');
    throw error;
  }
}

/** POST, GET, PUT, DELETE /webhook/subscriptions[/{id}] and GET /webhook/subscriptions/{id}/audit. */
export async function subscriptionRoutes(app: FastifyInstance, { pool, config }: ApiDependencies): Promise<void> {
  const sealer = sealerFor(config);
  app.post<{ Body: NewSubscription }>(
    '/webhook/subscriptions',
    { config: { scope: SCOPE, rateLimit: RATE_LIMIT }, schema: { body: createBody, response: { 201: subscription } } },
    async (request, reply) => {
      checkUrl(request.body.url, config);
      return reply.code(201).send(await createSubscription(pool, sealer, tenantOf(request), request.body));
    },
  );

  app.get<{ Querystring: { limit: number; nextToken?: string } }>(
    '/webhook/subscriptions',
    {
      config: { scope: SCOPE },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE },
            nextToken: { type: 'string', description: 'metadata.nextToken of the previous page' },
          },
        },
        response: { 200: listResponse },
      },
    },
    async (request) => listSubscriptions(pool, tenantOf(request), request.query),
  );

  app.put<{ Params: IdParams; Body: SubscriptionChanges }>(
    '/webhook/subscriptions/:id',
    { config: { scope: SCOPE }, schema: { params: idParams, body: updateBody, response: { 200: subscription } } },
    async (request) => updateSubscription(pool, sealer, tenantOf(request), request.params.id, request.body),
  );

  app.delete<{ Params: IdParams }>(
    '/webhook/subscriptions/:id',
    { config: { scope: SCOPE }, schema: { params: idParams, response: { 200: deleted } } },
    async (request) => ({
      ...(await deleteSubscription(pool, tenantOf(request), request.params.id)),
      message: 'The subscription was deleted',
    }),
  );

  app.get<{ Params: IdParams; Querystring: { limit: number } }>(
    '/webhook/subscriptions/:id/audit',
    {
      config: { scope: SCOPE },
      schema: {
        params: idParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many recent events to return' },
          },
        },
        response: { 200: audit },
      },
    },
    async (request) => auditSubscription(pool, tenantOf(request), request.params.id, request.query.limit),
  );
}
