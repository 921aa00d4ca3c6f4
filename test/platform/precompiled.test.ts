/*
 * The validators and serializers the build generates (scripts/precompile.ts) are the ones
 * a start uses, every one of them, and each validator judges as Ajv compiling the same schema at
 * start would: the same verdict and the same errors, in the same order, for valid, empty and wrong
 * bodies, and as the schemas before they were split into functions of their own. (Every answer the
 * other tests compare whole goes through a generated serializer.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ValidateFunction } from 'ajv';
import type { FastifySchema } from 'fastify';
import { buildApp } from '../../src/app.js';
import { API_MODULES } from '../../src/apis/index.js';
import { loadConfig } from '../../src/config.js';
import { KeyStore } from '../../src/platform/auth/keys.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { cachingSerializerFactory } from '../../src/platform/http/serializers.js';
import { createValidators, newAjv, type Part, type Validators } from '../../src/platform/http/validation.js';
import { createLogger } from '../../src/platform/log.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { sealerFor } from '../../src/platform/secrets/sealer.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { leadRequest } from '../fixtures/leads.js';
import { minimalClassified, realisticClassified } from '../fixtures/classifieds.js';
import { createTestDatabase, TEST_SECRETS_KEY, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;
let validators: Validators;
let serializersCompiled = 0;

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 2);
  // As a start builds it, with immogate's default settings.
  const config = loadConfig({ DATABASE_URL: database.url, SECRETS_KEY: TEST_SECRETS_KEY, DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' });
  validators = createValidators();
  const app = await buildApp({
    config,
    pool,
    keys: await KeyStore.open(pool, sealerFor(config)),
    metrics: createMetrics(pool, []),
    logger: createLogger(config),
    apis: API_MODULES,
    validators,
    serializers: cachingSerializerFactory({
      compiled: () => {
        serializersCompiled += 1;
      },
    }),
  });
  await app.ready();
  await app.close();
});

after(async () => {
  await pool.end();
  await database.drop();
});

/** What a validator says of `value`: its verdict and its errors, as Fastify reads them. */
function verdict(validate: ValidateFunction, value: unknown): unknown {
  const valid = validate(structuredClone(value));
  return { valid, errors: validate.errors ?? null };
}

const wrongClassified = { ...realisticClassified(), surprise: true, prices: 'many' };

/** Wrong at every depth: every other leaf of another type, and a member too many in every object. */
function scrambled(value: unknown, index = { n: 0 }): unknown {
  if (Array.isArray(value)) return value.map((item) => scrambled(item, index));
  if (typeof value === 'object' && value !== null) {
    return { ...Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrambled(item, index)])), unexpected: 1 };
  }
  index.n += 1;
  if (index.n % 2 === 0) return value;
  return typeof value === 'string' ? 12345 : 'text';
}
const BODIES: unknown[] = [
  {},
  [],
  'text',
  null,
  realisticClassified(),
  minimalClassified(),
  wrongClassified,
  scrambled(realisticClassified()),
  scrambled(berlinRentApartment()),
  berlinRentApartment(),
  { ...berlinRentApartment(), title: 'x'.repeat(300) },
  leadRequest(),
  leadRequest({ email: 'not an address' }),
];
const TEXTS: unknown[] = [{}, { limit: '10', offset: '-1' }, { limit: 'many' }, { since: '2026-01-01T00:00:00Z', status: ['A', 'B'] }];

describe('the precompiled validators', () => {
  it('serve every route schema of a start with the default settings: none is compiled at start', () => {
    const counts = validators.counts();
    assert.equal(counts.compiled, 0);
    assert.ok(counts.precompiled >= 30, `only ${counts.precompiled} validators`);
  });

  it("and the answers' serializers likewise: none is compiled at start", () => {
    assert.equal(serializersCompiled, 0);
  });

  it('judge every body and query as validators compiled at start do', () => {
    const { shared, schemas } = validators.recorded();
    const compiledHere = createValidators({ precompiled: false });
    for (const schema of shared) compiledHere.addSchema(schema);
    const compile = (set: Validators, part: Part, schema: object) =>
      set.compiler({ schema: schema as FastifySchema, httpPart: part === 'body' ? 'body' : 'querystring', method: 'POST', url: '/' });
    for (const { part, schema } of schemas) {
      const precompiled = compile(validators, part, schema) as ValidateFunction;
      const atStart = compile(compiledHere, part, schema) as ValidateFunction;
      assert.notEqual(precompiled, atStart);
      for (const value of part === 'body' ? BODIES : TEXTS) {
        assert.deepEqual(verdict(precompiled, value), verdict(atStart, value), `${part} ${JSON.stringify(schema).slice(0, 80)}`);
      }
    }
    assert.equal(compiledHere.counts().precompiled, 0);
  });

  it('judge as the schemas unsplit do (splitIntoFunctions): only the schemaPath of an error differs', () => {
    const { shared, schemas } = validators.recorded();
    const unsplit = { body: newAjv('body', { inlineRefs: true }), text: newAjv('text', { inlineRefs: true }) };
    for (const schema of shared) for (const ajv of Object.values(unsplit)) ajv.addSchema(schema);
    const withoutSchemaPath = (value: unknown) => {
      const { valid, errors } = value as { valid: boolean; errors: { schemaPath?: string }[] | null };
      return { valid, errors: errors?.map(({ schemaPath: _, ...error }) => error) ?? null };
    };
    for (const { part, schema } of schemas) {
      const split = validators.compiler({
        schema: schema as FastifySchema,
        httpPart: part === 'body' ? 'body' : 'querystring',
        method: 'POST',
        url: '/',
      }) as ValidateFunction;
      const whole = unsplit[part].compile(schema);
      for (const value of part === 'body' ? BODIES : TEXTS) {
        assert.deepEqual(
          withoutSchemaPath(verdict(split, value)),
          withoutSchemaPath(verdict(whole, value)),
          `${part} ${JSON.stringify(schema).slice(0, 80)}`,
        );
      }
    }
  });
});
