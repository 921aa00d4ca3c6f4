/* GET /health: public, so a monitor needs no token; 503 with the same body when a component fails. */
import type { ApiDependencies, ApiApp } from '../../../platform/module.js';
import { Health, type HealthStatus } from '../model/health.js';
import { databaseStatus } from '../services/health.js';

export async function healthRoutes(app: ApiApp, { pool }: ApiDependencies): Promise<void> {
  app.get(
    '/health',
    { config: { public: true }, schema: { operationId: 'getHealth', response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const components = [{ name: 'database', status: await databaseStatus(pool) }];
      const overall: HealthStatus = components.every((component) => component.status === 'PASS') ? 'PASS' : 'FAIL';
      return reply
        .code(overall === 'PASS' ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: overall, components });
    },
  );
}
