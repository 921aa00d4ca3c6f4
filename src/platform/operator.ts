/*
 * Everything an operator may do over HTTP, across every agency: registered under /admin behind
 * ADMIN_TOKEN, and under the console's operator pages behind an operator session. The platform's
 * own (clients and their token report, deliveries and redelivery, the pipeline) and what each API
 * module adds.
 */
import Type from 'typebox';
import type { Config } from '../config.js';
import { clientAdminRoutes } from './auth/clientRoutes.js';
import type { Pool } from './db/pool.js';
import { adminDeliveryRoutes } from './delivery/routes.js';
import { redeliveryAdminRoutes } from './delivery/admin.js';
import { deliveryStream } from './delivery/deliveryStream.js';
import { deliveryCounts } from './delivery/views.js';
import type { Logger } from './log.js';
import { deliverySourcesOf, type ApiApp, type ApiModule } from './module.js';
import { nullable } from './http/schemas.js';

export const Pipeline = Type.Object({
  streams: Type.Array(
    Type.Object({
      name: Type.String(),
      ready: Type.Integer({ description: 'Claimable now' }),
      scheduled: Type.Integer({ description: 'Waiting for a retry after a failed run' }),
      locked: Type.Integer({ description: 'Held by a worker' }),
    }),
  ),
  deliveries: Type.Object({
    pending: Type.Integer(),
    oldestPendingAt: nullable(Type.String({ format: 'date-time' })),
    failed: Type.Integer({ description: 'Retries used up; redeliver them once the receiver is fixed' }),
    deliveredToday: Type.Integer({ description: 'Since midnight UTC' }),
  }),
});

export interface OperatorDependencies {
  config: Config;
  pool: Pool;
  logger: Logger;
  modules: readonly ApiModule[];
}

export async function operatorRoutes(app: ApiApp, { config, pool, logger, modules }: OperatorDependencies): Promise<void> {
  const sources = deliverySourcesOf(modules);
  const streams = [...modules.flatMap((module) => module.streams ?? []), deliveryStream({ sources })];
  await clientAdminRoutes(app, { pool });
  await adminDeliveryRoutes(app, { pool, sources });
  await redeliveryAdminRoutes(app, { pool, sources, perMinute: config.rateLimits.redeliveriesPerMinute });
  app.get('/pipeline', { schema: { response: { 200: Pipeline } } }, async () => ({
    streams: await Promise.all(streams.map(async (stream) => ({ name: stream.name, ...(await stream.depth(pool)) }))),
    deliveries: await deliveryCounts(pool),
  }));
  for (const module of modules) await module.adminRoutes?.(app, { config, pool, logger });
}
