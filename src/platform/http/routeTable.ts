/*
 * Every route the app serves, as Fastify registered it (full path, methods, schema). Fastify keeps
 * no list one can read back (printRoutes draws a tree for people), so the app records one while its
 * routes are added. The hostile tests derive their lists from it (every route that takes a body,
 * every pattern Ajv compiles), so a route added later is covered without editing a test.
 */
import type { FastifyInstance, FastifySchema, HTTPMethods } from 'fastify';

export interface RouteEntry {
  method: HTTPMethods;
  /** The route pattern with its prefix, as request.routeOptions.url names it ("/admin/clients/:clientId"). */
  url: string;
  schema?: FastifySchema;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Records the routes registered on `app` and its plugins from now on; call before any route. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.push({ method, url: route.url, schema: route.schema });
    }
  });
}

/** The routes recorded for `app`, in the order they were registered. */
export function routesOf(app: FastifyInstance): readonly RouteEntry[] {
  const table = tables.get(app);
  if (table === undefined) throw new Error('routesOf: recordRoutes was not called on this app');
  return table;
}
