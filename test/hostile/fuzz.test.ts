/*
 * A property-based fuzzer over every operation of the three served OpenAPI documents: requests
 * generated from each operation's own schemas (path and query parameters, JSON body), valid and
 * bent. Whatever is sent, the answer is never a 5xx; a 2xx body is valid against the documented
 * response schema; a 4xx is a problem. FUZZ_RUNS sets the cases per operation (CI: the default).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { ALL_SCOPES } from '../../src/platform/catalogue.js';
import { realisticClassified } from '../fixtures/classifieds.js';
import { readAsIntended } from '../fixtures/contract.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { USER_AGENT, type TestServer, useServer } from '../helpers.js';
import { bent, valid, type OpenApiDocument, type Operation, type Schema } from './arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const ROOTS = ['/sandbox/caas/v4', '/sandbox/import-listings/v1', '/sandbox/seeker-leads/v1'];

const fixture = useServer({ env: { ALLOW_PRIVATE_TARGETS: 'false' }, client: { intermediaries: ['agency-1'], scopes: [...ALL_SCOPES] } });
let server: TestServer;
const tokens: Record<string, string> = {};
const documents: Record<string, OpenApiDocument> = {};

before(async () => {
  await fixture.ready();
  server = fixture.server;
  for (const root of ROOTS) {
    tokens[root] = await fixture.token({ root, intermediary: 'agency-1' });
    documents[root] = (await (await fetch(`${server.base}${root}/openapi.json`)).json()) as OpenApiDocument;
  }
});

/** Bodies known to pass every check of their route. */
const SEEDS: Record<string, unknown> = {
  'post /classifieds': realisticClassified(),
  'post /listings': berlinRentApartment(),
  'post /leads': leadRequest(),
  'post /webhook/subscriptions': { url: 'https://203.0.113.7/leads', apiKey: 'a-key-of-twenty-chars' },
  'post /medias': { externalMediaId: 'img-1', fileName: 'living.jpg' },
  'put /webhooks': { url: 'https://203.0.113.7/hooks', secret: 'a-secret-of-twenty-chars' },
};

interface Generated {
  path: Record<string, string>;
  query: Array<[string, string]>;
  body: unknown;
}

function requestArbitrary(document: OpenApiDocument, method: string, route: string, operation: Operation): fc.Arbitrary<Generated> {
  const parameters = operation.parameters ?? [];
  const text = (schema: Schema | undefined) =>
    fc.oneof(valid(document, schema ?? { type: 'string' }).map(String), fc.string({ maxLength: 40 }));
  const path = fc.record(Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, text(p.schema)])));
  const query = fc
    .tuple(
      ...parameters
        .filter((p) => p.in === 'query')
        .map((p) =>
          fc.option(
            text(p.schema).map((value) => [p.name, value] as [string, string]),
            { nil: undefined },
          ),
        ),
    )
    .map((pairs) => pairs.filter((pair): pair is [string, string] => pair !== undefined));
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return fc.record({ path, query, body: fc.constant(undefined) });
  // Generated bodies rarely pass the business rules; a known good one, as is and bent, reaches the handlers too.
  const seed = SEEDS[`${method} ${route}`];
  const generated = valid(document, schema);
  const seeds = seed ? [fc.constant(seed).map((value) => structuredClone(value)), bent(fc.constant(seed))] : [];
  const body = fc.oneof(generated, bent(generated), ...seeds);
  return fc.record({ path, query, body });
}

/**
 * The documented schema of a status, compiled against the whole document so its $refs resolve,
 * read as its authors meant it: an allOf assembles one object from its parts (the classified plus
 * classifiedId; a price from PriceCommon, PriceInformation and Accounting), so a part's
 * additionalProperties: false applies to the assembled object, not to each part alone.
 */
function responseValidators(document: OpenApiDocument): (path: string, method: string, status: number) => ValidateFunction | undefined {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  const base = 'https://immogate.test/served.json';
  ajv.addSchema(readAsIntended(document as unknown as Schema, base));
  const pointerStep = (step: string) => step.replace(/~/g, '~0').replace(/\//g, '~1');
  return (path, method, status) => {
    const content = document.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json'];
    if (!content) return undefined;
    const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
      .map(pointerStep)
      .join('/');
    return ajv.compile({ $ref: `${base}#/${pointer}` });
  };
}

const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'instance'];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('fuzzing every operation from its own schemas', () => {
  for (const root of ROOTS) {
    it(`${root}: no 5xx, 2xx as documented, 4xx a problem (${RUNS} requests per operation)`, async () => {
      const document = documents[root] as OpenApiDocument;
      const responseSchema = responseValidators(document);
      const summary: string[] = [];
      for (const [path, methods] of Object.entries(document.paths)) {
        // A path item's operations; its other members (an extension's mark) are not methods.
        for (const [method, operation] of Object.entries(methods).filter(([name]) => HTTP_METHODS.includes(name))) {
          const statuses = new Map<number, number>();
          await fc.assert(
            fc.asyncProperty(requestArbitrary(document, method, path, operation), async (generated) => {
              const url = new URL(
                server.base + root + path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(generated.path[name] ?? 'x')),
              );
              for (const [name, value] of generated.query) url.searchParams.append(name, value);
              // The lead API allows 10 requests per 200 ms per caller.
              if (root.includes('seeker-leads')) await sleep(25);
              const response = await fetch(url, {
                method: method.toUpperCase(),
                headers: {
                  authorization: `Bearer ${tokens[root]}`,
                  'user-agent': USER_AGENT,
                  ...(generated.body === undefined ? {} : { 'content-type': 'application/json' }),
                },
                body: generated.body === undefined ? undefined : JSON.stringify(generated.body),
              });
              const text = await response.text();
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
              const what = `${method.toUpperCase()} ${url.pathname}${url.search} ${text.slice(0, 500)}`;
              assert.ok(response.status < 500, `${response.status} for ${what}`);
              if (response.status >= 400) {
                assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8', what);
                const problem = JSON.parse(text) as Record<string, unknown>;
                for (const member of PROBLEM_MEMBERS) assert.ok(member in problem, `${member} missing: ${what}`);
                assert.equal(problem.status, response.status, what);
              } else if (response.status >= 200 && response.status < 300 && text !== '') {
                const validate = responseSchema(path, method, response.status);
                if (validate) assert.ok(validate(JSON.parse(text)), `${JSON.stringify(validate.errors)} for ${what}`);
              }
            }),
            { numRuns: RUNS, includeErrorInReport: true },
          );
          summary.push(`${method.toUpperCase()} ${path}: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}`);
        }
      }
      process.stderr.write(`fuzz ${root}\n  ${summary.join('\n  ')}\n`);
    });
  }
});
