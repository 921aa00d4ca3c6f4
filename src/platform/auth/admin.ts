/*
 * The operator endpoints under /admin (GDPR erasure and the like) act across every agency, so no
 * client token opens them: only `Authorization: Bearer <ADMIN_TOKEN>`. Without ADMIN_TOKEN they
 * answer 404, as if they did not exist.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { notFound, unauthorized } from '../http/problems.js';

export function installAdminGuard(app: FastifyInstance, adminToken: string | undefined): void {
  // Compared as hashes: equal length, so timingSafeEqual applies whatever was sent.
  const expected = adminToken === undefined ? undefined : createHash('sha256').update(adminToken).digest();
  app.addHook('onRequest', async (request) => {
    if (expected === undefined) throw notFound(`No resource at ${request.method} ${request.url.split('?')[0]}`);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(given, expected)) throw unauthorized('The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>');
  });
}
