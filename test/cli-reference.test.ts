/*
 * docs/cli.md is what `npm run docs:cli` generates from the CLI's own --help: a command, option or
 * description changed in the CLI and not in the reference fails here, naming the command that
 * brings the reference up to date.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { CLI_DOC, expectedCliDoc } from '../scripts/cli-reference.js';

describe('docs/cli.md', () => {
  it('is the --help of every command, as npm run docs:cli writes it', async () => {
    const current = fs.readFileSync(CLI_DOC, 'utf8');
    const expected = await expectedCliDoc(current);
    assert.equal(current, expected, "docs/cli.md differs from the CLI's --help: run `npm run docs:cli` and commit docs/cli.md");
  });
});
