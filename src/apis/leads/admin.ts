import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../platform/module.js';
import { eraseAuthor } from './erasure.js';

const erasureRequest = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: { email: { type: 'string', format: 'email', maxLength: 254 } },
} as const;

const erasureResult = {
  type: 'object',
  required: ['email', 'leadsErased', 'notificationsScrubbed'],
  properties: {
    email: { type: 'string' },
    leadsErased: { type: 'integer', description: 'Leads whose personal data this request erased' },
    notificationsScrubbed: { type: 'integer', description: 'Stored webhook notifications whose payload this request scrubbed' },
  },
} as const;

/** POST /admin/leads/erasures: GDPR erasure of a lead author (see erasure.ts). The platform puts it behind ADMIN_TOKEN. */
export async function leadAdminRoutes(app: FastifyInstance, { pool }: ApiDependencies): Promise<void> {
  app.post<{ Body: { email: string } }>(
    '/leads/erasures',
    { schema: { body: erasureRequest, response: { 200: erasureResult } } },
    async (request) => eraseAuthor(pool, request.body.email),
  );
}
