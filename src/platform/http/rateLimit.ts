/*
 * @fastify/rate-limit with its counters in PostgreSQL, so the limit holds across every server
 * process of a scale-out deployment, not per process. Time comes from the database clock for
 * the same reason. Routes opt in with `config.rateLimit: { max, timeWindow }`.
 */
import rateLimit, { type FastifyRateLimitOptions, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

    // The plugin passes the merged route settings with the route under `routeInfo` (its typings say otherwise).
    child(settings: object): FastifyRateLimitStore {
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

function windowOf(request: FastifyRequest): string {
  const options = request.routeOptions.config.rateLimit;
  const timeWindow = options ? options.timeWindow : undefined;
  if (typeof timeWindow === 'number') return `${timeWindow} ms`;
  return typeof timeWindow === 'string' ? timeWindow : 'minute';
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
        `At most ${context.max} requests per ${windowOf(request)} are allowed for this caller; retry later`,
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
