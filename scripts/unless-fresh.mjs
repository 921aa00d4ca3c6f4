/*
 * `prepare` runs at every `npm install`, and a second install in a built checkout must not pay for
 * a whole build again: `node scripts/unless-fresh.mjs OUTPUT INPUT... -- COMMAND` runs COMMAND
 * (through the shell) unless every file under OUTPUT is newer than every file under the INPUTs.
 * The builds it guards (Vite's, the client package's tsc) empty their output first and write all
 * of it, so its oldest file dates the last build that finished.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const separator = process.argv.indexOf('--');
if (separator < 4 || separator === process.argv.length - 1) {
  process.stderr.write('usage: node scripts/unless-fresh.mjs OUTPUT INPUT... -- COMMAND\n');
  process.exit(2);
}
const [output, ...inputs] = process.argv.slice(2, separator);
const command = process.argv.slice(separator + 1).join(' ');

/** The modification times of the files under `target` (itself, if a file), node_modules left out. */
function times(target) {
  if (!fs.existsSync(target)) return [];
  if (fs.statSync(target).isFile()) return [fs.statSync(target).mtimeMs];
  return fs
    .readdirSync(target, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.split(path.sep).includes('node_modules'))
    .map((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
}

const built = times(output);
const fresh = built.length > 0 && Math.min(...built) > Math.max(0, ...inputs.flatMap(times));
if (fresh) {
  process.stderr.write(`${output} is newer than its sources: not rebuilt\n`);
} else {
  const { status } = spawnSync(command, { shell: true, stdio: 'inherit' });
  process.exit(status ?? 1);
}
