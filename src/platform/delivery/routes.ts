/*
 * The delivery views over HTTP: a tenant's deliveries of one source (mounted in the console beside
 * the API that owns the source, behind that API's webhook scope) and every agency's (under /admin).
 * Both read through views.ts and redeliver through redelivery.ts, as the CLI does.
 */
import Type, { type Static } from 'typebox';
import { ENVIRONMENTS } from '../catalogue.js';
import type { Pool } from '../db/pool.js';
import { withTenant } from '../db/tenant.js';
import { tenantOf } from '../auth/guard.js';
import { badRequest, notFound } from '../http/problems.js';
import { byClient, perMinute } from '../http/rateLimit.js';
import { TOKEN_MAX_LENGTH } from '../http/cursors.js';
import { stringEnum, withDefaults } from '../http/schemas.js';
import type { ApiApp } from '../http/apiApp.js';
import type { DeliverySources } from './deliveryStream.js';
import { WEBHOOKS_STREAM } from './deliveries.js';
import { redeliverWebhooks } from './redelivery.js';
import { Delivery, DeliverySummary } from './model.js';
import {
  BadCursor,
  DELIVERY_STATES,
  deliveryDetail,
  eventReaderOf,
  listDeliveries,
  type DeliveryFilter,
  type EventReader,
} from './views.js';

const MAX_PAGE = 100;

export const DeliveryPage = Type.Object({ items: Type.Array(DeliverySummary), nextCursor: Type.Optional(Type.String()) });

const pageMembers = {
  state: Type.Optional(stringEnum(DELIVERY_STATES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'nextCursor of the previous page' })),
};

export const TenantQuery = withDefaults(
  Type.Object(
    { subscriptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), ...pageMembers },
    { additionalProperties: false },
  ),
  'limit',
);

const AdminQuery = withDefaults(
  Type.Object(
    {
      agency: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      environment: Type.Optional(stringEnum(ENVIRONMENTS)),
      source: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
      subscriptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      ...pageMembers,
    },
    { additionalProperties: false },
  ),
  'limit',
);

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

export const RedeliveryResult = Type.Object({
  redelivered: Type.Array(Type.String()),
  skipped: Type.Array(Type.Object({ deliveryId: Type.String(), reason: Type.String() })),
});

/** A page of deliveries, a garbled cursor answered as the query's fault. */
export async function page(client: Parameters<typeof listDeliveries>[0], filter: DeliveryFilter, eventOf: EventReader) {
  try {
    return await listDeliveries(client, filter, eventOf);
  } catch (error) {
    if (error instanceof BadCursor) throw badRequest([{ name: 'cursor', reason: error.message }], 'requestParameter');
    throw error;
  }
}

function noDelivery(id: string) {
  return notFound(`No delivery ${id}`);
}

/**
 * One source's deliveries of the signed-in tenant, behind `scope` (the scope that manages the
 * source's subscriptions): the list, one delivery, and its redelivery, which sends again and so
 * has a budget per client (`redeliveriesPerMinute`, shared by every source).
 */
export async function tenantDeliveryRoutes(
  app: ApiApp,
  options: { pool: Pool; source: string; scope: string; sources: DeliverySources; redeliveriesPerMinute: number },
): Promise<void> {
  const { pool, source, scope, sources } = options;
  const config = { scope };
  const eventOf = eventReaderOf(sources);
  app.get('/deliveries', { config, schema: { querystring: TenantQuery, response: { 200: DeliveryPage } } }, async (request) => {
    const tenant = tenantOf(request);
    const filter = { ...request.query, source, environment: tenant.environment, agencyId: tenant.agencyId };
    return withTenant(pool, tenant, (client) => page(client, filter, eventOf));
  });
  app.get('/deliveries/:id', { config, schema: { params: IdParams, response: { 200: Delivery } } }, async (request) => {
    const tenant = tenantOf(request);
    const filter = { source, environment: tenant.environment, agencyId: tenant.agencyId };
    const found = await withTenant(pool, tenant, (client) => deliveryDetail(client, request.params.id, filter, eventOf));
    if (!found) throw noDelivery(request.params.id);
    return found;
  });
  app.post(
    '/deliveries/:id/redeliveries',
    {
      config: { scope, addsWork: [WEBHOOKS_STREAM], ...perMinute('redeliveries', options.redeliveriesPerMinute, 'client', byClient) },
      schema: { params: IdParams, response: { 200: RedeliveryResult } },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { id } = request.params;
      const filter = { source, environment: tenant.environment, agencyId: tenant.agencyId };
      // Another agency's delivery is as unknown as one that does not exist.
      const found = await withTenant(pool, tenant, (client) => deliveryDetail(client, id, filter, eventOf));
      if (!found) throw noDelivery(id);
      return redeliverWebhooks(pool, { deliveryId: id, source }, sources);
    },
  );
}

export type AdminDeliveryQuery = Static<typeof AdminQuery>;

/** Every agency's deliveries, for the operator (under /admin); redelivery is redeliveryAdminRoutes'. */
export async function adminDeliveryRoutes(app: ApiApp, { pool, sources }: { pool: Pool; sources: DeliverySources }): Promise<void> {
  const eventOf = eventReaderOf(sources);
  app.get('/deliveries', { schema: { querystring: AdminQuery, response: { 200: DeliveryPage } } }, async (request) => {
    const { agency, ...rest } = request.query;
    return page(pool, { ...rest, agencyId: agency }, eventOf);
  });
  app.get('/deliveries/:id', { schema: { params: IdParams, response: { 200: Delivery } } }, async (request) => {
    const found = await deliveryDetail(pool, request.params.id, {}, eventOf);
    if (!found) throw noDelivery(request.params.id);
    return found;
  });
}
