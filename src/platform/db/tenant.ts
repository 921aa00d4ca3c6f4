import type pg from 'pg';
import type { Environment } from '../../apis/catalogue.js';
import { inTransaction } from './pool.js';
import { literal, script, type Sql } from './sql.js';

/** Whom a request acts for: the environment of the API root it called and the agency of its token. */
export interface Tenant {
  readonly environment: Environment;
  readonly agencyId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

/** Opens a transaction confined to the tenant; three statements, see withTenant. */
function beginFor(tenant: Pick<Tenant, 'environment' | 'agencyId'>): string {
  return (
    'BEGIN; SET LOCAL ROLE immogate_tenant; ' +
    `SELECT set_config('immogate.environment', ${literal(tenant.environment)}, true), ` +
    `set_config('immogate.agency_id', ${literal(tenant.agencyId)}, true)`
  );
}
const BEGIN_STATEMENTS = 3;

/**
 * Runs `fn` in a transaction confined to the tenant: as the role immogate_tenant, with the
 * tenant's environment and agency in the settings that row-level security compares every row
 * of a tenant table with (see immogate_isolate_tenant in the migrations). A query that forgets
 * its WHERE clause still sees only the tenant's rows, and an INSERT or UPDATE that names another
 * tenant is refused by the database. Set-up costs one round trip.
 */
export function withTenant<T>(pool: pg.Pool, tenant: Pick<Tenant, 'environment' | 'agencyId'>, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, beginFor(tenant));
}

/**
 * The same confinement for a transaction whose statements are all known up front: opening it,
 * the statements and the COMMIT go to the database as one message, in one round trip, where
 * withTenant takes one per statement plus two. On the 2-core machine the round trips, not the
 * statements, were most of a classified POST's cost (bench/README.md). The first failing
 * statement aborts the rest and the whole transaction. Resolves to each statement's result.
 */
export async function tenantBatch(pool: pg.Pool, tenant: Pick<Tenant, 'environment' | 'agencyId'>, statements: Sql[]): Promise<pg.QueryResult[]> {
  const client = await pool.connect();
  try {
    const text = `${beginFor(tenant)};\n${script(statements)};\nCOMMIT`;
    // Several statements in one simple query: pg resolves to one result per statement.
    const results = (await client.query(text)) as unknown as pg.QueryResult[];
    return results.slice(BEGIN_STATEMENTS, BEGIN_STATEMENTS + statements.length);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
