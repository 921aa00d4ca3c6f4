import pg from 'pg';
import type { Environment } from '../../apis/catalogue.js';
import { inTransaction } from './pool.js';

/** Whom a request acts for: the environment of the API root it called and the agency of its token. */
export interface Tenant {
  readonly environment: Environment;
  readonly agencyId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

const { escapeLiteral } = pg;

/**
 * Runs `fn` in a transaction confined to the tenant: as the role immogate_tenant, with the
 * tenant's environment and agency in the settings that row-level security compares every row
 * of a tenant table with (see immogate_isolate_tenant in the migrations). A query that forgets
 * its WHERE clause still sees only the tenant's rows, and an INSERT or UPDATE that names another
 * tenant is refused by the database. Set-up costs one round trip.
 */
export function withTenant<T>(pool: pg.Pool, tenant: Pick<Tenant, 'environment' | 'agencyId'>, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const begin =
    'BEGIN; SET LOCAL ROLE immogate_tenant; ' +
    `SELECT set_config('immogate.environment', ${escapeLiteral(tenant.environment)}, true), ` +
    `set_config('immogate.agency_id', ${escapeLiteral(tenant.agencyId)}, true)`;
  return inTransaction(pool, fn, begin);
}
