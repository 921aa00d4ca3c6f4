/*
 * `npm test` compiles incrementally into the dist/ it keeps between runs (see package.json), and
 * tsc never deletes the output of a source that is gone: a deleted or renamed test would run on
 * from its old copy. This removes every compiled file of dist/ whose TypeScript source no longer
 * exists, so dist/ holds what a clean build would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

// What tsconfig.json compiles (its include); dist/console is Vite's, which empties it itself.
const COMPILED = ['src', 'test', 'bench', 'scripts', 'packages/client/src', 'packages/client/scripts', 'packages/client/test'];

/** The source of a compiled file (x.js, x.js.map), or undefined for what tsc copies as it is (JSON). */
function sourceOf(compiled: string): string | undefined {
  const match = /^(.*)\.js(\.map)?$/.exec(compiled);
  return match ? `${match[1]}.ts` : undefined;
}

function prune(dir: string): number {
  let removed = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += prune(file);
      continue;
    }
    const source = sourceOf(path.join(root, path.relative(dist, file)));
    if (source && !fs.existsSync(source)) {
      fs.rmSync(file);
      removed += 1;
    }
  }
  return removed;
}

const removed = COMPILED.map((dir) => path.join(dist, dir))
  .filter((dir) => fs.existsSync(dir))
  .reduce((sum, dir) => sum + prune(dir), 0);
if (removed > 0) process.stderr.write(`prune-dist: removed ${removed} compiled files whose source is gone\n`);
