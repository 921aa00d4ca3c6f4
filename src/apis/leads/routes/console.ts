/*
 * The console's reads of the lead API (mounted only under /console/api/leads): the period's leads
 * and the subscriptions, newest first as the console's other lists are (the API lists both oldest first).
 */
import Type from 'typebox';
import { tenantOf } from '../../../platform/auth/guard.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { Lead, LeadQuery } from '../model/lead.js';
import { SUBSCRIPTION_SCOPE, SubscriptionListQuery, SubscriptionPage } from '../model/subscription.js';
import { listLeads } from '../services/leads.js';
import { listSubscriptions } from '../services/subscriptions.js';

export const RecentLeads = Type.Object({
  items: Type.Array(Lead),
  nextCursor: Type.Optional(Type.String({ description: 'The leadId to continue after (start)' })),
});

export async function consoleRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get(
    '/recent-leads',
    // The limit of GET /leads: the console is one more caller of the same reads.
    {
      config: { scope: 'leads:read', rateLimit: { max: 10, timeWindow: 200 } },
      schema: { querystring: LeadQuery, response: { 200: RecentLeads } },
    },
    async (request) => {
      const page = await listLeads(pool, tenantOf(request), request.query, 'newest');
      return { items: page.items, nextCursor: page.next };
    },
  );
  app.get(
    '/recent-subscriptions',
    { config: { scope: SUBSCRIPTION_SCOPE }, schema: { querystring: SubscriptionListQuery, response: { 200: SubscriptionPage } } },
    async (request) => listSubscriptions(pool, tenantOf(request), request.query, 'newest'),
  );
}
