/*
 * The README's complete integration is under 40 lines, type-checks against the client's types,
 * and does what it says: run as a program against a real immogate (with its worker, posting to
 * loopback), it publishes a classified, waits for it, receives and verifies a lead, then deletes
 * the subscription it created and exits by itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { freePort, REPO_ROOT, useServer, waitFor } from '../../../test/helpers.js';
import { clientOf } from './helpers.js';

const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1,0.2,0.4' },
  client: { intermediaries: ['demo-agency'], scopes: ['caas:*', 'leads:*'] },
});
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-client-readme-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** The code block of the README's section "A complete integration". */
function integration(): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'packages/client/README.md'), 'utf8');
  const section = readme.split('\n## A complete integration\n')[1] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the README has no integration block');
  return block;
}

function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
    types: ['node'],
    paths: { '@immogate/client': [path.join(REPO_ROOT, 'packages/client/src/index.ts')] },
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('the README', () => {
  it('shows a complete integration in under 40 lines that type-checks, runs, cleans up after itself and exits', async () => {
    const source = integration();
    assert.ok(source.trimEnd().split('\n').length < 40, `${source.split('\n').length} lines`);
    const typed = path.join(work, 'integration.ts');
    fs.writeFileSync(typed, source);
    assert.deepEqual(typeErrors(typed), []);

    const compiledClient = pathToFileURL(path.join(REPO_ROOT, 'dist/packages/client/src/index.js')).href;
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const program = path.join(work, 'integration.mjs');
    fs.writeFileSync(program, outputText.replace("'@immogate/client'", JSON.stringify(compiledClient)));

    const port = await freePort();
    const child = spawn(process.execPath, [program], {
      env: {
        ...process.env,
        IMMOGATE_URL: fixture.server.base,
        CLIENT_ID: fixture.client.clientId,
        CLIENT_SECRET: fixture.client.secret,
        RECEIVER_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const exited = once(child, 'exit');
    try {
      await waitFor(
        'the integration to exit',
        async () => child.exitCode,
        (code) => code !== null,
        600,
        100,
      );
      const [code] = await exited;
      assert.deepEqual(
        { code, output: output.trim().split('\n') },
        { code: 0, output: ['published: Accepted on SL', 'lead from anna@example.org'] },
        errors,
      );
      const sandbox = clientOf(fixture, 'demo-agency', { environment: 'sandbox' });
      assert.deepEqual(await sandbox.leads.subscriptions.list().toArray(), []);
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
