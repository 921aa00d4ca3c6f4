/* HTTP of the leads resource: POST /leads, GET /leads, GET /leads/{leadId} and its OpenImmo-Feedback form. */
import { tenantOf } from '../../../platform/auth/guard.js';
import { apiById, rootPath } from '../../../platform/catalogue.js';
import { WEBHOOKS_STREAM } from '../../../platform/delivery/index.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { CreateLeadRequest, Lead, LeadIdParams, LeadPage, LeadQuery, LeadSubmitted, OpenImmoFeedbackAnswer } from '../model/lead.js';
import { createLead, listLeads, readLead } from '../services/leads.js';
import { readLeadFeedback, XML_CONTENT_TYPE } from '../services/openimmoFeedback.js';

const LEADS_API = apiById('leads');

/** The spec's limit on these routes: 10 requests per 200 ms per caller. */
const rateLimited = { scope: 'leads:read', rateLimit: { max: 10, timeWindow: 200 } };

export async function leadRoutes(app: ApiApp, { pool, config }: ApiDependencies): Promise<void> {
  app.post(
    '/leads',
    {
      config: { scope: 'leads:create', addsWork: [WEBHOOKS_STREAM] },
      schema: { operationId: 'createLead', body: CreateLeadRequest, response: { 200: LeadSubmitted } },
    },
    async (request) => {
      const { requestId } = await createLead(pool, tenantOf(request), request.body);
      return { title: 'Lead submitted', requestId };
    },
  );

  app.get(
    '/leads',
    { config: rateLimited, schema: { operationId: 'getLeads', querystring: LeadQuery, response: { 200: LeadPage } } },
    async (request) => {
      const query = request.query;
      const page = await listLeads(pool, tenantOf(request), query);
      // Absolute links: a client follows them as they are, whatever base it was configured with.
      const link = (start: string | undefined) => {
        const params = new URLSearchParams({ minDate: String(query.minDate), maxDate: String(query.maxDate), limit: String(query.limit) });
        if (start !== undefined) params.set('start', start);
        return `${config.publicUrl}${rootPath(LEADS_API, tenantOf(request).environment)}/leads?${params}`;
      };
      return {
        metadata: { count: page.items.length, limit: query.limit, minDate: query.minDate, maxDate: query.maxDate, start: query.start },
        links: { self: link(query.start), next: page.next === undefined ? undefined : link(page.next) },
        items: page.items,
      };
    },
  );

  app.get(
    '/leads/:leadId',
    { config: rateLimited, schema: { operationId: 'getLead', params: LeadIdParams, response: { 200: Lead } } },
    async (request) => readLead(pool, tenantOf(request), request.params.leadId),
  );

  // An extension: the same lead as an OpenImmo-Feedback document, for CRMs that import those. Same
  // scope, limit, tenancy and answers as GET /leads/{leadId}, whose reading it shares.
  app.get(
    '/leads/:leadId/openimmo-feedback',
    {
      config: rateLimited,
      schema: {
        operationId: 'getLeadOpenImmoFeedback',
        'x-immogate-extension': true,
        params: LeadIdParams,
        response: { 200: OpenImmoFeedbackAnswer },
      },
    },
    async (request, reply) => reply.type(XML_CONTENT_TYPE).send(await readLeadFeedback(pool, tenantOf(request), request.params.leadId)),
  );
}
