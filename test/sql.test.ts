import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPool, type Pool } from '../src/platform/db/pool.js';
import { and, jsonb, literal, script, sql } from '../src/platform/db/sql.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

let database: TestDatabase;
let pool: Pool;

before(async () => {
  database = await createTestDatabase({ empty: true });
  pool = createPool(database.url, 1);
});

after(async () => {
  await pool.end();
  await database.drop();
});

const STRINGS = ["o'reilly", 'back\\slash', "both \\' and '\\", "''", '\\', 'x\\\\y', 'line\nbreak\ttab', 'ünïcødé 🏠', '', 'NULL', '$1', '$$ dollar $$', "'; DROP TABLE x; --"];
const ARRAYS = [[], ['a', 'b'], ['with "quotes"', 'with \\backslash', 'comma,brace{}', 'NULL', ' spaced ', "o'reilly", '']];
const JSON_VALUES = [{ text: 'he said "hi" \\ \'ok\'', nested: { list: [1, 2.5, null, true], emoji: '🏠' } }, [], 'string', 42];

/** Each value read back through the server's own parser, under both settings of standard_conforming_strings. */
async function readBack(settings: string, text: string): Promise<unknown> {
  const results = (await pool.query(`SET standard_conforming_strings = ${settings}; SELECT ${text} AS v`)) as unknown as { rows: { v: unknown }[] }[];
  return results[1]!.rows[0]!.v;
}

describe('sql literals', () => {
  for (const setting of ['on', 'off']) {
    it(`read back as the same value with standard_conforming_strings ${setting}`, async () => {
      for (const value of STRINGS) assert.equal(await readBack(setting, literal(value)), value, JSON.stringify(value));
      for (const value of ARRAYS) assert.deepEqual(await readBack(setting, `${literal(value)}::text[]`), value, JSON.stringify(value));
      for (const value of JSON_VALUES) assert.deepEqual(await readBack(setting, jsonb(value).text), value, JSON.stringify(value));
      assert.deepEqual(await readBack(setting, `${literal([1, -2.5])}::float8[]`), [1, -2.5]);
      assert.equal(await readBack(setting, literal(-12.75)), '-12.75');
      assert.equal(await readBack(setting, literal(true)), true);
      assert.equal(await readBack(setting, literal(null)), null);
      assert.equal(await readBack(setting, literal(undefined)), null);
      const date = new Date('2026-11-22T10:11:12.345Z');
      assert.deepEqual(await readBack(setting, `${literal(date)}::timestamptz`), date);
    });
  }

  it('builds statements and fragments from templates', async () => {
    const name = "o'reilly";
    const statement = sql`SELECT ${name}::text AS name WHERE ${and([sql`1 = ${1}`, sql`${'a'} <> ${'b'}`])}`;
    assert.equal(statement.text, "SELECT 'o''reilly'::text AS name WHERE (1 = 1) AND ('a' <> 'b')");
    assert.deepEqual((await pool.query(statement.text)).rows, [{ name }]);
    assert.equal(script([sql`SELECT 1`, sql`SELECT ${2}`]), 'SELECT 1;\nSELECT 2');
  });

  it('refuses numbers that have no SQL literal', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      assert.throws(() => literal(value), { name: 'TypeError', message: `not a finite number: ${value}` });
    }
  });
});
