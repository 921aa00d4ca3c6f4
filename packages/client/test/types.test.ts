/*
 * The checked-in generated types are exactly what openapi-typescript writes from the documents a
 * real immogate serves: a change to a route schema or to the classifieds document fails here
 * until `npm run generate -w @immogate/client` is run and its output committed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useServer } from '../../../test/helpers.js';
import { DOCUMENTS, GENERATED_DIR, servedDocuments, typesOf } from '../scripts/openapi-types.js';

const fixture = useServer();

/** The first line where two texts differ, to name in the failure (the whole files would bury it). */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const b = expected.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: checked in ${JSON.stringify(a[at] ?? '(end)')}, served ${JSON.stringify(b[at] ?? '(end)')}`;
}

describe('generated types', () => {
  it('are those of the OpenAPI documents immogate serves', async () => {
    const documents = await servedDocuments(fixture.server.base);
    for (const { root, file } of DOCUMENTS) {
      const served = await typesOf(documents.get(file) ?? '', root);
      const checkedIn = fs.readFileSync(path.join(GENERATED_DIR, file), 'utf8');
      assert.ok(
        checkedIn === served,
        `src/generated/${file} drifted from ${root}/openapi.json (${firstDifference(checkedIn, served)}): run npm run generate -w @immogate/client`,
      );
    }
  });
});
