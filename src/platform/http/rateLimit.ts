/*
 * @fastify/rate-limit with its counters in PostgreSQL, so the limit holds across every server
 * process of a scale-out deployment, not per process. Time comes from the database clock for
 * the same reason. Routes opt in with `config.rateLimit: { max, timeWindow }`, or with perMinute
 * (the expensive extension routes): a budget per client or subscription that every mount of the
 * route (its sandbox and production roots, the console) counts against together.
 */
import rateLimit, { type FastifyRateLimitOptions, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tenant } from '../db/tenant.js';
import type pg from 'pg';
import { onlyRow } from '../db/pool.js';
import { tooManyRequests } from './problems.js';

function postgresStore(pool: pg.Pool): FastifyRateLimitStoreCtor {
  return class PostgresRateLimitStore implements FastifyRateLimitStore {
    private readonly prefix: string;
    // The plugin constructs the store with its options; a route's child (below) with its key prefix.
    constructor(options: FastifyRateLimitOptions | string) {
      this.prefix = typeof options === 'string' ? options : '';
    }

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      pool
        .query<{ hits: number; ttl: number }>(
          `WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
           INSERT INTO rate_limit_windows AS w (key, window_start, window_end, hits)
           SELECT $1, ms - ms % $2, ms - ms % $2 + $2, 1 FROM now
           ON CONFLICT (key, window_start) DO UPDATE SET hits = w.hits + 1
           RETURNING hits, (window_end - (SELECT ms FROM now))::int AS ttl`,
          [this.prefix + key, timeWindow],
        )
        .then(({ rows }) => {
          const row = onlyRow(rows);
          callback(null, { current: row.hits, ttl: Math.max(row.ttl, 1) });
        }, callback);
    }

    // The plugin passes the merged route settings with the route under `routeInfo` (its typings say
    // otherwise). A group's routes share their counters, whatever path they are mounted at.
    child(settings: object): FastifyRateLimitStore {
      const group: unknown = Reflect.get(settings, 'groupId');
      if (typeof group === 'string') return new PostgresRateLimitStore(`group ${group}|`);
      const route: unknown = Reflect.get(settings, 'routeInfo');
      const member = (key: string) => (typeof route === 'object' && route !== null ? Reflect.get(route, key) : undefined);
      return new PostgresRateLimitStore(`${String(member('method'))} ${String(member('url'))}|`);
    }
  };
}

/** The caller is the API client and agency of the token; before authentication, the address. */
function callerKey(request: FastifyRequest): string {
  const tenant = request.tenant;
  return tenant ? `${tenant.environment}|${tenant.clientId}|${tenant.agencyId}` : `ip|${request.ip}`;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whose budget a perMinute route counts against, as its 429 names it. */
    limitedPer?: LimitedPer;
  }
}

const MINUTE_MS = 60_000;

function windowOf(request: FastifyRequest): string {
  const options = request.routeOptions.config.rateLimit;
  const timeWindow = options ? options.timeWindow : undefined;
  if (timeWindow === MINUTE_MS) return 'minute';
  if (typeof timeWindow === 'number') return `${timeWindow} ms`;
  return typeof timeWindow === 'string' ? timeWindow : 'minute';
}

/** Whose budget a limit is: the token's client (in its environment), a webhook subscription, or the operator's address. */
export type LimitedPer = 'client' | 'subscription' | 'operator';

/**
 * The route config of a limit of `max` requests a minute counted by `key`: every route given the
 * same `group` counts against one budget per key, wherever it is mounted (the API's two roots and
 * the console's copy of it), so the console is no way around the API's limit.
 */
export function perMinute(group: string, max: number, per: LimitedPer, key: (request: FastifyRequest) => string) {
  return { limitedPer: per, rateLimit: { max, timeWindow: MINUTE_MS, groupId: group, keyGenerator: key } };
}

/** The tenant of a guarded request; the rate-limit hook runs after the guard, so a route with a scope has one. */
function tenantFor(request: FastifyRequest): Tenant {
  if (request.tenant === null) throw new Error(`${request.routeOptions.url ?? request.url} is rate-limited per client but has no tenant`);
  return request.tenant;
}

/** Counted per client of the token, in its environment, whichever agency it acts for. */
export function byClient(request: FastifyRequest): string {
  const tenant = tenantFor(request);
  return `client|${tenant.environment}|${tenant.clientId}`;
}

/** Counted per webhook subscription: `subscriptionId` names it within the tenant's agency and environment. */
export function bySubscription(subscriptionId: (request: FastifyRequest) => string): (request: FastifyRequest) => string {
  return (request) => {
    const tenant = tenantFor(request);
    // Counted before validation lower-cases the id: 40 spellings of one id are one subscription.
    return `subscription|${tenant.environment}|${tenant.agencyId}|${subscriptionId(request).toLowerCase()}`;
  };
}

/** Counted per operator, known by address (ADMIN_TOKEN and an operator session name nobody). */
export function byOperator(request: FastifyRequest): string {
  return `operator|${request.ip}`;
}

export async function installRateLimiting(app: FastifyInstance, pool: pg.Pool): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    // After onRequest, where the guard has identified the caller.
    hook: 'preParsing',
    store: postgresStore(pool),
    keyGenerator: callerKey,
    // A broken counter store must not take the API down with it.
    skipOnError: true,
    // The plugin's context.after is the time left in the window, not the window: read the route's own.
    errorResponseBuilder: (request, context) =>
      tooManyRequests(
        Math.max(1, Math.ceil(context.ttl / 1000)),
        `At most ${context.max} requests per ${windowOf(request)} are allowed for this ${request.routeOptions.config.limitedPer ?? 'caller'}; retry later`,
      ),
  });
}

/** Deletes windows that have ended; run by a periodic job. */
export async function pruneRateLimitWindows(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    'DELETE FROM rate_limit_windows WHERE window_end < floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint',
  );
  return rowCount ?? 0;
}
