/*
 * The baselines every ratio is measured against, in the same run: a bare node:http server (a), the
 * same with one INSERT per request (b), and one answering a row read by its primary key (r).
 */
import type { Scenario } from './types.js';
import { CONNECTIONS } from './types.js';

function baseline(name: string, which: 'a' | 'b', about: string): Scenario {
  return {
    name,
    about,
    baseline: which,
    async setup(context) {
      const server = await context.start('baseline', { DATABASE_URL: context.databaseUrl, BENCH_INSERT: which === 'b' ? '1' : '0' });
      return {
        load: {
          url: server.address,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json' },
          body: { classified: 'BASE' },
          connections: CONNECTIONS,
        },
        stop: server.stop,
      };
    },
  };
}

export const baselineA = baseline('baseline-a', 'a', 'bare node:http: read the 5 KB body, JSON.parse, 202 small JSON');
export const baselineB = baseline('baseline-b', 'b', 'baseline-a plus one INSERT of the body (jsonb) through a pg Pool of 10');

/** The read floor: what `get` would cost with nothing but node:http and one SELECT. */
export const baselineR: Scenario = {
  name: 'baseline-r',
  about: 'bare node:http: one primary-key SELECT of a ~5 KB jsonb body (as text) through a pg Pool of 10, 200 with it',
  baseline: 'r',
  async setup(context) {
    const server = await context.start('baseline', { DATABASE_URL: context.databaseUrl, BENCH_READ: '1' });
    return {
      load: { url: server.address, method: 'GET', path: '/', headers: {}, connections: CONNECTIONS },
      stop: server.stop,
    };
  },
};
