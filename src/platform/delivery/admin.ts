import type { FastifyInstance } from 'fastify';
import type { Pool } from '../db/pool.js';
import { badRequest } from '../http/problems.js';
import type { DeliverySources } from './deliveryStream.js';
import { redeliverWebhooks, type RedeliveryTarget } from './redelivery.js';

interface RedeliveryBody {
  deliveryId?: string;
  since?: string;
  api?: string;
  agency?: string;
  environment?: 'production' | 'sandbox';
}

function redeliveryRequest(apis: string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one of deliveryId and since; api, agency and environment narrow since',
    properties: {
      deliveryId: { type: 'string', format: 'uuid', description: 'The webhook-id of one delivery, redelivered whatever its state' },
      since: { type: 'string', format: 'date-time', description: 'Every FAILED delivery created since this time' },
      // An enum needs a member: a server without delivery sources takes any name, which matches nothing.
      api: apis.length > 0 ? { type: 'string', enum: apis } : { type: 'string' },
      agency: { type: 'string', minLength: 1, maxLength: 128 },
      environment: { type: 'string', enum: ['production', 'sandbox'] },
    },
  } as const;
}

const redeliveryResult = {
  type: 'object',
  required: ['redelivered', 'skipped'],
  properties: {
    redelivered: {
      type: 'array',
      items: { type: 'string' },
      description: 'The deliveries queued again, in creation order; a worker sends them',
    },
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        required: ['deliveryId', 'reason'],
        properties: { deliveryId: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
} as const;

const FILTERS = ['api', 'agency', 'environment'] as const;

/** The rules a JSON schema cannot phrase so that the problem names the field. */
function target(body: RedeliveryBody): RedeliveryTarget {
  const { deliveryId, since, api, agency, environment } = body;
  if ((deliveryId === undefined) === (since === undefined)) {
    const reason = 'give exactly one of deliveryId and since.';
    throw badRequest(
      [
        { name: '/deliveryId', reason },
        { name: '/since', reason },
      ],
      'body',
    );
  }
  if (deliveryId !== undefined) {
    const filters = FILTERS.filter((name) => body[name] !== undefined);
    if (filters.length > 0)
      throw badRequest(
        filters.map((name) => ({ name: `/${name}`, reason: 'applies only with since.' })),
        'body',
      );
    return { deliveryId };
  }
  return { since: new Date(since as string), source: api, agencyId: agency, environment };
}

/**
 * POST /admin/deliveries/redeliveries: the operator's redelivery of webhooks of every API (see
 * redelivery.ts), the same as `immogate deliveries redeliver`. Registered under /admin, behind
 * ADMIN_TOKEN, by the app.
 */
export async function redeliveryAdminRoutes(
  app: FastifyInstance,
  { pool, sources }: { pool: Pool; sources: DeliverySources },
): Promise<void> {
  app.post<{ Body: RedeliveryBody }>(
    '/deliveries/redeliveries',
    { schema: { body: redeliveryRequest(Object.keys(sources)), response: { 200: redeliveryResult } } },
    async (request) => redeliverWebhooks(pool, target(request.body), sources),
  );
}
