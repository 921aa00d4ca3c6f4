/*
 * The operator endpoints under /admin (GDPR erasure and the like) act across every agency, so no
 * client token opens them: only `Authorization: Bearer <ADMIN_TOKEN>`. Without ADMIN_TOKEN they
 * answer 404, as if they did not exist. Wrong tokens are counted per address (authFailures.ts), on
 * /admin and at the console's operator sign-in alike: past the limit the address gets 429 before
 * anything it sends is compared.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { notFound, tooManyRequests, unauthorized } from '../http/problems.js';
import { operatorLockedFor, recordOperatorFailure, type AuthFailureLimits } from './authFailures.js';

/** Whether a given string is the ADMIN_TOKEN: undefined when there is none (operators are then shut out). */
export function adminTokenCheck(adminToken: string | undefined): ((given: string) => boolean) | undefined {
  if (adminToken === undefined) return undefined;
  // Compared as hashes: equal length, so timingSafeEqual applies whatever was sent.
  const expected = createHash('sha256').update(adminToken).digest();
  return (given) => timingSafeEqual(createHash('sha256').update(given).digest(), expected);
}

export interface AdminTokenOptions {
  adminToken: string | undefined;
  pool: pg.Pool;
  limits: AuthFailureLimits;
}

/**
 * Whether what a request presents is the ADMIN_TOKEN, undefined when there is none. Throws the
 * 429 problem when the request's address has given too many wrong ones lately, before comparing;
 * a wrong one is counted and logged at warn with the address and route, never with what was sent.
 * Nothing presented is no guess: refused by the caller, not counted.
 */
export type AdminTokenGate = (request: FastifyRequest, given: string | undefined) => Promise<boolean>;

export function adminTokenGate(options: AdminTokenOptions): AdminTokenGate | undefined {
  const matches = adminTokenCheck(options.adminToken);
  if (matches === undefined) return undefined;
  const { pool, limits } = options;
  return async (request, given) => {
    const retryAfter = await operatorLockedFor(pool, request.ip, limits);
    if (retryAfter !== undefined) {
      throw tooManyRequests(retryAfter, `Too many wrong admin tokens from this address lately; retry in ${retryAfter} seconds`);
    }
    if (given === undefined) return false;
    if (matches(given)) return true;
    await recordOperatorFailure(pool, request.ip, limits.windowSeconds);
    request.log.warn({ address: request.ip, route: `${request.method} ${request.routeOptions.url ?? request.url}` }, 'wrong ADMIN_TOKEN');
    return false;
  };
}

export function installAdminGuard(app: FastifyInstance, options: AdminTokenOptions): void {
  const admits = adminTokenGate(options);
  app.addHook('onRequest', async (request) => {
    if (admits === undefined) throw notFound(`No resource at ${request.method} ${request.url.split('?')[0]}`);
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!(await admits(request, given))) throw unauthorized('The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>');
  });
}
