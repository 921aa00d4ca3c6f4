import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { ApiDependencies } from '../../../platform/module.js';

type Status = 'PASS' | 'FAIL';

/** A database that does not answer within this long counts as down: a health check must not hang. */
const DATABASE_TIMEOUT_MS = 2000;

const status = { type: 'string', enum: ['PASS', 'FAIL'] } as const;

const health = {
  type: 'object',
  required: ['status', 'components'],
  additionalProperties: false,
  properties: {
    status: { ...status, description: 'PASS when every component passes' },
    components: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'status'],
        additionalProperties: false,
        properties: { name: { type: 'string' }, status },
      },
    },
  },
} as const;

async function databaseStatus(pool: pg.Pool): Promise<Status> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Status>((resolve) => {
    timer = setTimeout(() => resolve('FAIL'), DATABASE_TIMEOUT_MS);
  });
  const query = pool.query('SELECT 1').then(
    () => 'PASS' as const,
    () => 'FAIL' as const,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET /health: public, so a monitor needs no token; 503 with the same body when a component fails. */
export async function healthRoutes(app: FastifyInstance, { pool }: ApiDependencies): Promise<void> {
  app.get('/health', { config: { public: true }, schema: { response: { 200: health, 503: health } } }, async (_request, reply) => {
    const components = [{ name: 'database', status: await databaseStatus(pool) }];
    const overall: Status = components.every((component) => component.status === 'PASS') ? 'PASS' : 'FAIL';
    return reply
      .code(overall === 'PASS' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: overall, components });
  });
}
