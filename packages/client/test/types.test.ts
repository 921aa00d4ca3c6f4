/*
 * The checked-in generated types are exactly what openapi-typescript writes from the documents a
 * real immogate serves: a change to a route schema or to the classifieds document fails here
 * until `npm run generate -w @immogate/client` is run and its output committed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { firstDifference, useServer } from '../../../test/helpers.js';
import { DOCUMENTS, GENERATED_DIR, servedDocuments, typesOf } from '../scripts/openapi-types.js';

const fixture = useServer();

describe('generated types', () => {
  it('are those of the OpenAPI documents immogate serves', async () => {
    const documents = await servedDocuments(fixture.server.base);
    for (const { root, file } of DOCUMENTS) {
      const served = await typesOf(documents.get(file) ?? '', root);
      const checkedIn = fs.readFileSync(path.join(GENERATED_DIR, file), 'utf8');
      assert.ok(
        checkedIn === served,
        `src/generated/${file} drifted from ${root}/openapi.json (${firstDifference(checkedIn, served, 'served')}): run npm run generate -w @immogate/client`,
      );
    }
  });
});
