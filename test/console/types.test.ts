/*
 * The console's checked-in answer types are exactly what openapi-typescript writes from the route
 * schemas the server answers with: a change to one of those schemas fails here until
 * `npm run generate:console-types` is run and its output committed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONSOLE_TYPES_FILE, consoleTypes } from '../../scripts/console-types.js';
import { REPO_ROOT, firstDifference } from '../helpers.js';

describe("the console's answer types", () => {
  it('are those of the route schemas', async () => {
    const generated = await consoleTypes();
    const checkedIn = fs.readFileSync(CONSOLE_TYPES_FILE, 'utf8');
    assert.ok(
      checkedIn === generated,
      `${path.relative(REPO_ROOT, CONSOLE_TYPES_FILE)} drifted from the route schemas (${firstDifference(checkedIn, generated, 'generated')}): run npm run generate:console-types`,
    );
  });
});
