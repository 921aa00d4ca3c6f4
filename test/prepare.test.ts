/*
 * `prepare` (every `npm install`) skips the console's and the client package's builds while their
 * output is newer than their sources (scripts/unless-fresh.mjs), and builds when a source changed
 * or the output is missing; and it is the incremental chain, not a clean build.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from './helpers.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts/unless-fresh.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-prepare-'));

after(() => fs.rmSync(dir, { recursive: true, force: true }));

function guarded(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, 'out', 'src', 'lock.json', '--', 'echo', 'built'], { cwd: dir }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function write(file: string, secondsAgo: number): void {
  const full = path.join(dir, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, file);
  const when = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(full, when, when);
}

describe('scripts/unless-fresh.mjs', () => {
  it('runs the command without output, skips it while the output is newer than every input, runs it again after a change', async () => {
    write('src/a.ts', 100);
    write('lock.json', 100);
    assert.deepEqual(await guarded(), { code: 0, stdout: 'built\n', stderr: '' });
    write('out/a.js', 50);
    write('out/nested/b.js', 40);
    assert.deepEqual(await guarded(), { code: 0, stdout: '', stderr: 'out is newer than its sources: not rebuilt\n' });
    write('src/deep/c.ts', 45);
    assert.deepEqual(await guarded(), { code: 0, stdout: 'built\n', stderr: '' });
    write('src/deep/c.ts', 60);
    write('lock.json', 10);
    assert.deepEqual(await guarded(), { code: 0, stdout: 'built\n', stderr: '' });
  });

  it("prepare builds incrementally and guards the console's and the client's builds", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.match(scripts.prepare!, /^tsc -p tsconfig\.json --incremental --tsBuildInfoFile dist\/\.tsbuildinfo && /);
    assert.match(scripts.prepare!, /node scripts\/unless-fresh\.mjs dist\/console console package-lock\.json -- npm run build:console/);
    assert.match(scripts.prepare!, /node scripts\/unless-fresh\.mjs packages\/client\/dist .* -- npm run build:client/);
  });
});
