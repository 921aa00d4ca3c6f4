/*
 * The after-each-file check of test/leaks.ts: a test file that leaves a server listening fails,
 * naming it, instead of keeping the run waiting; one that closes what it opened ends as usual.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers.js';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-leaks-'));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

function runFile(name: string, body: string): Promise<{ code: number | null; output: string }> {
  const file = path.join(directory, name);
  fs.writeFileSync(file, `import net from 'node:net';\nimport { it } from 'node:test';\n${body}\n`);
  // This process is itself a test file's: the runner started below must not take itself for one.
  const { NODE_TEST_CONTEXT: _ours, ...env } = process.env;
  const leaks = path.join(REPO_ROOT, 'dist/test/leaks.js');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--test', `--import=${leaks}`, file],
      // A file that hung would be killed here and fail on its exit code.
      { env: { ...env, IMMOGATE_TEST_LEAK_GRACE_MS: '300' }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
    );
  });
}

describe('the after-each-file leak check', () => {
  it('fails a file that leaves a server listening, naming it', async () => {
    const result = await runFile('leaks.test.mjs', "it('opens a server', () => { net.createServer().listen(0, '127.0.0.1'); });");
    assert.equal(result.code, 1, result.output);
    assert.match(result.output, /left open by this file's tests 0\.3 s after they ended: TCPServerWrap/);
  });

  it('lets a file that closes what it opened end as usual', async () => {
    const result = await runFile(
      'closes.test.mjs',
      "it('opens and closes a server', async () => { const s = net.createServer().listen(0, '127.0.0.1'); await new Promise((r) => s.close(r)); });",
    );
    assert.equal(result.code, 0, result.output);
    assert.doesNotMatch(result.output, /left open/);
  });
});
