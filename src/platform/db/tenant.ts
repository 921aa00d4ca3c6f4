/*
 * Tenant confinement: a request's queries run in a transaction that sets its environment and
 * agency, and row-level security shows them only that tenant's rows.
 */
import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { inTransaction, transaction, type ResultsOf, type Statement } from './pool.js';
import { readTogether } from './readTogether.js';

/** Whom a request acts for: the environment of the API root it called and the agency of its token. */
export interface Tenant {
  readonly environment: Environment;
  readonly agencyId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

export type TenantScope = Pick<Tenant, 'environment' | 'agencyId'>;

/**
 * Confines the rest of a transaction to the tenant: the role immogate_tenant, with the tenant's
 * environment and agency in the settings that row-level security compares every row of a tenant
 * table with (see immogate_isolate_tenant in the migrations). A query that forgets its WHERE
 * clause still sees only the tenant's rows, and an INSERT or UPDATE that names another tenant is
 * refused by the database.
 */
export function confineTo(tenant: TenantScope): Statement {
  return {
    name: 'immogate.confine_to_tenant',
    text: `SELECT set_config('role', 'immogate_tenant', true), set_config('immogate.environment', $1, true), set_config('immogate.agency_id', $2, true)`,
    values: [tenant.environment, tenant.agencyId],
  };
}

/**
 * Runs `fn` in a transaction confined to the tenant (see confineTo). Opening it travels with
 * `fn`'s first query: no round trip of its own.
 */
export function withTenant<T>(pool: pg.Pool, tenant: TenantScope, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, ['BEGIN', confineTo(tenant)]);
}

/**
 * The same confinement for a transaction whose statements are all known up front: one round
 * trip in all (see transaction()). Resolves to each statement's result.
 */
export function tenantTransaction<S extends readonly Statement[]>(
  pool: pg.Pool,
  tenant: TenantScope,
  statements: readonly [...S],
): Promise<ResultsOf<S>> {
  return transaction(pool, statements, [confineTo(tenant)]);
}

/**
 * A read confined to the tenant, known up front: one transaction like tenantTransaction's, sent
 * with the other reads of the moment on the same connection (see readTogether.ts). For statements
 * that only read.
 */
export function tenantRead<S extends readonly Statement[]>(
  pool: pg.Pool,
  tenant: TenantScope,
  statements: readonly [...S],
): Promise<ResultsOf<S>> {
  return readTogether(pool, statements, [confineTo(tenant)]);
}
