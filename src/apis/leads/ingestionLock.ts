import type { Statement } from '../../platform/db/pool.js';

/**
 * The agency's lead ingestion lock, a transaction-scoped advisory lock. Every new lead takes it:
 * leads of an agency commit in ingestion order (what paging relies on, see leads.ts). A change to
 * one of its subscriptions (a new apiKey, INACTIVE, deleted) takes it too, so that it comes
 * either wholly before a lead (whose notifications see the change) or wholly after (and re-aims
 * or cancels that lead's notifications) without the leads locking the subscription rows they read.
 */
export function ingestionLock(environment: string, agencyId: string): Statement {
  return {
    name: 'leads.lock_ingestion',
    text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
    values: [`leads:${environment}:${agencyId}`],
  };
}
