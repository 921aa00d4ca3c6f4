/*
 * POST /admin/deliveries/redeliveries: the operator's redelivery of webhooks, for every API.
 */
import Type, { type Static } from 'typebox';
import type { Pool } from '../db/pool.js';
import { badRequest } from '../http/problems.js';
import { byOperator, perMinute } from '../http/rateLimit.js';
import { stringEnum } from '../http/schemas.js';
import type { ApiApp } from '../http/apiApp.js';
import type { DeliverySources } from './deliveryStream.js';
import { redeliverWebhooks, type RedeliveryTarget } from './redelivery.js';

function redeliveryRequest(apis: string[]) {
  return Type.Object(
    {
      deliveryId: Type.Optional(Type.String({ format: 'uuid', description: 'The id of one delivery, redelivered whatever its state' })),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'Every FAILED delivery created since this time' })),
      // An enum needs a member: a server without delivery sources takes any name, which matches nothing.
      api: Type.Optional(apis.length > 0 ? stringEnum(apis) : Type.String()),
      agency: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      environment: Type.Optional(stringEnum(['production', 'sandbox'])),
    },
    { additionalProperties: false, description: 'Exactly one of deliveryId and since; api, agency and environment narrow since' },
  );
}

type RedeliveryBody = Static<ReturnType<typeof redeliveryRequest>>;

const redeliveryResult = Type.Object({
  redelivered: Type.Array(Type.String(), { description: 'The deliveries queued again, in creation order; a worker sends them' }),
  skipped: Type.Array(Type.Object({ deliveryId: Type.String(), reason: Type.String() })),
});

const FILTERS = ['api', 'agency', 'environment'] as const;

/** The rules a JSON schema cannot phrase so that the problem names the field. */
function target(body: RedeliveryBody): RedeliveryTarget {
  const { deliveryId, since, api, agency, environment } = body;
  if (deliveryId !== undefined && since === undefined) {
    const filters = FILTERS.filter((name) => body[name] !== undefined);
    if (filters.length > 0)
      throw badRequest(
        filters.map((name) => ({ name: `/${name}`, reason: 'applies only with since.' })),
        'body',
      );
    return { deliveryId };
  }
  if (since === undefined || deliveryId !== undefined) {
    const reason = 'give exactly one of deliveryId and since.';
    throw badRequest(
      [
        { name: '/deliveryId', reason },
        { name: '/since', reason },
      ],
      'body',
    );
  }
  return { since: new Date(since), source: api, agencyId: agency, environment };
}

/**
 * POST /admin/deliveries/redeliveries: the operator's redelivery of webhooks of every API (see
 * redelivery.ts), the same as `immogate deliveries redeliver`. Registered under /admin, behind
 * ADMIN_TOKEN, and under the console's operator pages. One call may queue every failed delivery
 * since a time, so it has a budget per operator (`perMinute` calls a minute), shared by both mounts.
 */
export async function redeliveryAdminRoutes(
  app: ApiApp,
  { pool, sources, perMinute: max }: { pool: Pool; sources: DeliverySources; perMinute: number },
): Promise<void> {
  app.post(
    '/deliveries/redeliveries',
    {
      config: perMinute('redeliveries', max, 'operator', byOperator),
      schema: { body: redeliveryRequest(Object.keys(sources)), response: { 200: redeliveryResult } },
    },
    async (request) => redeliverWebhooks(pool, target(request.body), sources),
  );
}
