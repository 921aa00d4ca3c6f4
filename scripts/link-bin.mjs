/*
 * Makes `npx immogate` in a checkout run this checkout's command from node_modules/.bin, as it
 * does for a dependency's. npm links the bins of dependencies only, never the project's own: npx
 * then installs the checkout into its cache (asking first on a terminal, a minute on a busy
 * machine) and keeps that link, which goes stale when `bin` moves. Run by `prepare`, so at
 * `npm install`, and by the builds (`npm run build`, `npm test`), so that nothing that removed it
 * leaves npx to install and rebuild the checkout in its cache; a package installed from its
 * tarball has its bin linked by npm as usual.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const { bin } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const binDir = path.join(root, 'node_modules', '.bin');
if (fs.existsSync(path.join(root, 'node_modules'))) {
  fs.mkdirSync(binDir, { recursive: true });
  for (const [name, target] of Object.entries(bin)) {
    const link = path.join(binDir, name);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(path.relative(binDir, path.join(root, target)), link);
  }
}
