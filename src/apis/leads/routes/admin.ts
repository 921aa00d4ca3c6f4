/* The lead API's operator routes: POST /admin/leads/erasures, GDPR erasure of a lead author. The platform puts them behind ADMIN_TOKEN. */
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import { ErasureRequest, ErasureResult } from '../model/erasure.js';
import { eraseAuthor } from '../services/erasure.js';

export async function leadAdminRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.post('/leads/erasures', { schema: { body: ErasureRequest, response: { 200: ErasureResult } } }, async (request) =>
    eraseAuthor(pool, request.body.email),
  );
}
