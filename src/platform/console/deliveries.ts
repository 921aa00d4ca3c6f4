/*
 * GET /console/api/deliveries: the signed-in agency's deliveries of every webhook its client may
 * see, in one list newest first, so a page need not know which kinds of webhook are in use. Each
 * source is included only when the session's token for the API that owns it passes that API's
 * guard with the source's scope, exactly as /console/api/<api>/deliveries would.
 */
import type { FastifyRequest } from 'fastify';
import type { TokenAuthorizer } from '../auth/guard.js';
import { rootPath } from '../catalogue.js';
import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import { type Tenant, withTenant } from '../db/tenant.js';
import { DeliveryPage, page, TenantQuery } from '../delivery/routes.js';
import { eventReaderOf } from '../delivery/views.js';
import { forbidden, Problem } from '../http/problems.js';
import { deliverySourcesOf, type ApiApp, type ApiModule } from '../module.js';
import { sessionOf } from './sessions.js';

export async function allDeliveriesRoute(
  app: ApiApp,
  deps: { config: Config; pool: Pool; modules: readonly ApiModule[]; authorize: TokenAuthorizer },
): Promise<void> {
  const { config, pool, modules, authorize } = deps;
  const eventOf = eventReaderOf(deliverySourcesOf(modules));

  /** The sources the session may read, and its tenant; 403 when it may read none. */
  async function readable(request: FastifyRequest): Promise<{ tenant: Tenant; sources: string[] }> {
    const session = sessionOf(request);
    if (session.kind !== 'integrator') throw forbidden('Operators do not act for an agency: sign in with a client to use the APIs');
    let tenant: Tenant | undefined;
    const sources: string[] = [];
    for (const module of modules) {
      const descriptor = module.api;
      const held = session.tokens.find((token) => token.audience === config.publicUrl + rootPath(descriptor, session.environment));
      if (!held) continue;
      for (const [source, hooks] of Object.entries(module.deliverySources ?? {})) {
        try {
          tenant = await authorize(request, held.token, descriptor, session.environment, hooks.scope);
          sources.push(source);
        } catch (error) {
          // A scope the client lacks hides that source; a token no longer valid ends the request (401).
          if (!(error instanceof Problem && error.status === 403)) throw error;
        }
      }
    }
    if (tenant === undefined) throw forbidden('The client holds no scope that manages webhook subscriptions');
    return { tenant, sources };
  }

  app.get('/deliveries', { schema: { querystring: TenantQuery, response: { 200: DeliveryPage } } }, async (request) => {
    const { tenant, sources } = await readable(request);
    const filter = { ...request.query, sources, environment: tenant.environment, agencyId: tenant.agencyId };
    return withTenant(pool, tenant, (client) => page(client, filter, eventOf));
  });
}
