/*
 * Cache-Control: no-store on every answer of a part of the app that carries personal data or
 * secrets (the lead API, the console's backend, /admin, the token endpoint): no browser, proxy or
 * CDN may keep a copy, whatever the answer (an error too: it may repeat what was sent).
 */
import type { FastifyInstance } from 'fastify';

export function sendNoStore(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
}
