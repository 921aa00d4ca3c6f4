/*
 * The operator endpoints under /admin (GDPR erasure and the like) act across every agency, so no
 * client token opens them: only `Authorization: Bearer <ADMIN_TOKEN>`. Without ADMIN_TOKEN they
 * answer 404, as if they did not exist.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { notFound, unauthorized } from '../http/problems.js';

/** Whether a given string is the ADMIN_TOKEN: undefined when there is none (operators are then shut out). */
export function adminTokenCheck(adminToken: string | undefined): ((given: string) => boolean) | undefined {
  if (adminToken === undefined) return undefined;
  // Compared as hashes: equal length, so timingSafeEqual applies whatever was sent.
  const expected = createHash('sha256').update(adminToken).digest();
  return (given) => timingSafeEqual(createHash('sha256').update(given).digest(), expected);
}

export function installAdminGuard(app: FastifyInstance, adminToken: string | undefined): void {
  const matches = adminTokenCheck(adminToken);
  app.addHook('onRequest', async (request) => {
    if (matches === undefined) throw notFound(`No resource at ${request.method} ${request.url.split('?')[0]}`);
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !matches(given)) throw unauthorized('The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>');
  });
}
