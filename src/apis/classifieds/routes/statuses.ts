/* GET /classifieds/{classifiedId}/statuses: a page of a classified's statuses. */
import { tenantOf } from '../../../platform/auth/guard.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ClassifiedIdParams } from '../model/classified.js';
import { SCOPES } from '../model/scopes.js';
import { StatusPage, StatusesQuery } from '../model/statuses.js';
import { listStatuses } from '../services/statuses.js';

export async function statusRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get(
    '/classifieds/:classifiedId/statuses',
    {
      config: { scope: SCOPES.getClassifiedStatuses },
      schema: {
        operationId: 'getClassifiedStatuses',
        params: ClassifiedIdParams,
        querystring: StatusesQuery,
        response: { 200: StatusPage },
      },
    },
    (request) => listStatuses(pool, tenantOf(request), request.params.classifiedId, request.query),
  );
}
