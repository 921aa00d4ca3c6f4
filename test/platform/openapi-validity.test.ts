/*
 * Every served OpenAPI document, on every root, is a valid OpenAPI 3.0 document as an independent
 * validator (@seriousme/openapi-schema-validator, the specification's own JSON Schema) reads it,
 * and each of its internal $refs resolves. Generators and validators refuse a document that is not.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { APIS, rootPath } from '../../src/platform/catalogue.js';
import { http, type TestServer, useServer } from '../helpers.js';

type Node = Record<string, unknown>;

const fixture = useServer();
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

/** Every root that serves a document: each API's production root and its sandbox. */
const ROOTS = APIS.flatMap((api) => [rootPath(api, 'production'), rootPath(api, 'sandbox')]);

async function served(root: string): Promise<Node> {
  const result = await http('GET', `${server.base}${root}/openapi.json`);
  assert.equal(result.status, 200, `${root}: ${result.text}`);
  return result.body as Node;
}

/** The validator's errors, short enough to read in a failed assertion: where, and what it says. */
function readable(errors: unknown): unknown {
  if (!Array.isArray(errors)) return errors;
  return errors.map((error: Node) => `${String(error.instancePath)}: ${String(error.message)} ${JSON.stringify(error.params)}`);
}

/** Every `$ref` of a document, with where it is. */
function refs(node: unknown, at = '', found: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) refs(item, `${at}/${i}`, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push([at, value]);
      else refs(value, `${at}/${key}`, found);
    }
  }
  return found;
}

describe('the served OpenAPI documents', () => {
  it('are each served on both roots', () => {
    assert.deepEqual(ROOTS, [
      '/caas/v4',
      '/sandbox/caas/v4',
      '/import-listings/v1',
      '/sandbox/import-listings/v1',
      '/seeker-leads/v1',
      '/sandbox/seeker-leads/v1',
    ]);
  });

  for (const root of ROOTS) {
    it(`${root}/openapi.json is valid OpenAPI 3.0.3 and its $refs resolve`, async () => {
      const document = await served(root);
      assert.equal(document.openapi, '3.0.3');
      const validator = new Validator();
      const result = await validator.validate(document);
      assert.deepEqual(readable(result.errors), undefined, root);
      assert.equal(result.valid, true);
      assert.equal(validator.version, '3.0');
      // Every reference is internal (the document is whole: nothing to fetch) and resolves.
      assert.deepEqual(
        refs(document).filter(([, ref]) => !ref.startsWith('#/')),
        [],
        root,
      );
      assert.doesNotThrow(() => validator.resolveRefs({ specification: document }), root);
    });
  }
});
