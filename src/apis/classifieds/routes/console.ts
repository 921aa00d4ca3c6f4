/*
 * The console's reads of classifieds (mounted only under /console/api/caas): summaries, a
 * classified's revisions, one revision, the changes between two, the status webhook subscription.
 */
import { tenantOf } from '../../../platform/auth/guard.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ClassifiedIdParams } from '../model/classified.js';
import {
  Changes,
  ChangesQuery,
  Revision,
  RevisionPage,
  RevisionParams,
  RevisionQuery,
  SummaryPage,
  SummaryQuery,
  WebhookAnswer,
} from '../model/console.js';
import { SCOPES } from '../model/scopes.js';
import { changesBetween, listRevisions, listSummaries, readRevision, readWebhook } from '../services/console.js';

const read = { scope: SCOPES.getClassifieds };

export async function consoleRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get('/summaries', { config: read, schema: { querystring: SummaryQuery, response: { 200: SummaryPage } } }, async (request) =>
    listSummaries(pool, tenantOf(request), request.query),
  );
  app.get(
    '/classifieds/:classifiedId/revisions',
    { config: read, schema: { params: ClassifiedIdParams, querystring: RevisionQuery, response: { 200: RevisionPage } } },
    async (request) => listRevisions(pool, tenantOf(request), request.params.classifiedId, request.query),
  );
  app.get(
    '/classifieds/:classifiedId/revisions/:revision',
    { config: read, schema: { params: RevisionParams, response: { 200: Revision } } },
    async (request) => readRevision(pool, tenantOf(request), request.params.classifiedId, request.params.revision),
  );
  app.get(
    '/classifieds/:classifiedId/changes',
    { config: read, schema: { params: ClassifiedIdParams, querystring: ChangesQuery, response: { 200: Changes } } },
    async (request) => changesBetween(pool, tenantOf(request), request.params.classifiedId, request.query.from, request.query.to),
  );
  app.get(
    '/webhook',
    { config: { scope: SCOPES.createSubscriptionToWebhook }, schema: { response: { 200: WebhookAnswer } } },
    async (request) => readWebhook(pool, tenantOf(request)),
  );
}
