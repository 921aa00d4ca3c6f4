/*
 * The package as people install it: built by its own tsconfig into a copy of the package, packed
 * with the files it lists, imported through its `exports` from a project of its own (ESM), and
 * type-checked there through the declarations it ships.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../../../test/helpers.js';
import { CLIENT_VERSION } from '../src/index.js';

const PACKAGE = path.join(REPO_ROOT, 'packages/client');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-client-package-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string; name: string };

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the package', () => {
  it('names its own version in the User-Agent it adds', () => {
    assert.equal(CLIENT_VERSION, manifest.version);
  });

  it('is built by the build of the repository: imported as @immogate/client in this checkout, from the dist of the workspace', async () => {
    // A specifier TypeScript does not resolve: the root's tsc runs before the workspace is built.
    const specifier = '@immogate/client';
    const built = (await import(specifier)) as Record<string, unknown>;
    assert.equal(fs.realpathSync(fileURLToPath(import.meta.resolve(specifier))), fs.realpathSync(path.join(PACKAGE, 'dist/index.js')));
    assert.deepEqual(
      [built.CLIENT_VERSION, typeof built.ImmogateClient, typeof built.verifyWebhook],
      [manifest.version, 'function', 'function'],
    );
    assert.ok(fs.existsSync(path.join(PACKAGE, 'dist/index.d.ts')));
  });

  it('builds, packs its build output only, and is imported and typed through its exports', () => {
    // A project with the package installed: node_modules/@immogate/client as a copy, its dependency beside it.
    const project = path.join(work, 'project');
    const installed = path.join(project, 'node_modules/@immogate/client');
    fs.mkdirSync(installed, { recursive: true });
    for (const file of ['package.json', 'README.md']) fs.copyFileSync(path.join(PACKAGE, file), path.join(installed, file));
    for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers']) {
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', dependency), path.join(project, 'node_modules', dependency));
    }
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    run(process.execPath, [tsc, '-p', path.join(PACKAGE, 'tsconfig.json'), '--outDir', path.join(installed, 'dist')], PACKAGE);

    const packed = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], installed)) as {
      files: { path: string }[];
    }[];
    const files = (packed[0]?.files ?? []).map((file) => file.path).sort();
    assert.deepEqual(
      files.filter((file) => !/^dist\/(generated\/)?[a-z-]+\.(js|d\.ts)$/.test(file)),
      ['README.md', 'package.json'],
    );
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/generated/caas.d.ts', 'dist/webhooks.js'])
      assert.ok(files.includes(file), file);

    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    fs.writeFileSync(
      path.join(project, 'consumer.js'),
      [
        "import { ImmogateClient, verifyWebhook, ProblemError, CLIENT_VERSION } from '@immogate/client';",
        "import manifest from '@immogate/client/package.json' with { type: 'json' };",
        "const client = new ImmogateClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b', agency: 'c', environment: 'sandbox', userAgent: 'Consumer/1.0' });",
        'console.log(JSON.stringify([typeof verifyWebhook, typeof ProblemError, CLIENT_VERSION, manifest.name, typeof client.classifieds.waitForTerminal]));',
      ].join('\n'),
    );
    assert.deepEqual(JSON.parse(run(process.execPath, ['consumer.js'], project)), [
      'function',
      'function',
      manifest.version,
      '@immogate/client',
      'function',
    ]);

    fs.writeFileSync(
      path.join(project, 'consumer.ts'),
      [
        "import { ImmogateClient, type Lead, type StoredClassified, type WebhookEvent, verifyWebhook } from '@immogate/client';",
        "const client = new ImmogateClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b', agency: 'c', environment: 'sandbox', userAgent: 'Consumer/1.0' });",
        'const leads: AsyncIterable<Lead> = client.leads.search({ minDate: 0, maxDate: 1 });',
        'const classifieds: AsyncIterable<StoredClassified> = client.classifieds.list();',
        "const event: WebhookEvent = verifyWebhook('{}', {}, 'secret');",
        "export const emails = event.type === 'lead.created' ? event.data.contactRequest.email : undefined;",
        'export { classifieds, leads };',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          // The declarations are tsc's own output; what is checked is the consumer's code against them.
          skipLibCheck: true,
          typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
  });
});
