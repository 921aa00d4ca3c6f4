/*
 * The plan PostgreSQL keeps for GET /classifieds/{id} after an agency's bulk import, with the
 * statistics of before it (autovacuum's ANALYZE comes later): the primary key, not the agency's
 * listing index, whose every entry the read would otherwise walk (see READ_CLASSIFIED).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { READ_CLASSIFIED } from '../../src/apis/classifieds/repository.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { confineTo } from '../../src/platform/db/tenant.js';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;

const BULK = { environment: 'production', agencyId: 'bulk-agency' } as const;

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 2);
  const insert = `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload)
                  SELECT gen_random_uuid(), $1, $2, $2 || '-' || g, 1, '{"data": {}}'::jsonb FROM generate_series(1, $3::int) g`;
  // Statistics taken while the table held a few classifieds of another agency, then the import.
  await pool.query(insert, ['sandbox', 'other-agency', 5]);
  await pool.query('ANALYZE classifieds');
  await pool.query(insert, [BULK.environment, BULK.agencyId, 20_000]);
});

after(async () => {
  await pool.end();
  await database.drop();
});

/** The plan a connection keeps for `text` (a generic one, as after five executions), as the bulk agency's tenant. */
async function keptPlan(text: string): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const confine = confineTo(BULK);
    await client.query(confine.text, [...(confine.values ?? [])]);
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE kept(uuid, text[]) AS ${text}`);
    // EXECUTE takes no bound parameters: a constant id of the test's own.
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      "EXPLAIN (FORMAT JSON) EXECUTE kept('00000000-0000-4000-8000-000000000000', '{}')",
    );
    return JSON.stringify(rows[0]?.['QUERY PLAN']);
  } finally {
    await client.query('ROLLBACK');
    // A prepared statement outlives the transaction: gone before the connection serves again.
    await client.query('DEALLOCATE ALL');
    client.release();
  }
}

describe('reading one classified after a bulk import, on stale statistics', () => {
  it('takes the primary key', async () => {
    const plan = await keptPlan(READ_CLASSIFIED);
    assert.match(plan, /"Index Name":"classifieds_pkey"/);
    assert.doesNotMatch(plan, /classifieds_listing/);
  });

  it('where the same read with deleted_at IS NULL in its WHERE clause walks the agency listing index (why READ_CLASSIFIED has not)', async () => {
    const plan = await keptPlan(READ_CLASSIFIED.replace('WHERE id = $1', 'WHERE id = $1 AND deleted_at IS NULL'));
    assert.match(plan, /"Index Name":"classifieds_listing"/);
  });
});
