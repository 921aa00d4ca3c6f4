/*
 * `npm run generate -w @immogate/client`: writes the client's generated types from the OpenAPI
 * documents of this repository's immogate. It starts immogate itself (the built CLI's `server`,
 * on a free loopback port and a temporary DATA_DIR with its own embedded PostgreSQL), reads the
 * three documents, writes src/generated/, and stops it: no server needs starting by hand.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DOCUMENTS, GENERATED_DIR, REPOSITORY, servedDocuments, typesOf } from './openapi-types.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

async function waitReady(base: string, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`immogate exited with code ${child.exitCode} before it was ready:\n${log()}`);
    const ready = await fetch(`${base}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await sleep(250);
  }
  throw new Error(`immogate was not ready within 120 s:\n${log()}`);
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-client-generate-'));
  // Run as root, the embedded PostgreSQL runs as another user, which must reach its directory.
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  process.stderr.write(`generate: starting immogate on ${base} (DATA_DIR ${dataDir})\n`);
  // A clean environment: a DATABASE_URL or PUBLIC_URL of the caller's shell must not steer it.
  const child = spawn(process.execPath, [path.join(REPOSITORY, 'dist/src/cli.js'), 'server'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await waitReady(base, child, () => stderr);
    const documents = await servedDocuments(base);
    fs.mkdirSync(GENERATED_DIR, { recursive: true });
    for (const { root, file } of DOCUMENTS) {
      const json = documents.get(file);
      if (json === undefined) throw new Error(`no document for ${root}`);
      const target = path.join(GENERATED_DIR, file);
      const types = await typesOf(json, root);
      const changed = !fs.existsSync(target) || fs.readFileSync(target, 'utf8') !== types;
      fs.writeFileSync(target, types);
      process.stderr.write(
        `generate: ${path.relative(REPOSITORY, target)} from ${root}/openapi.json (${changed ? 'changed' : 'unchanged'})\n`,
      );
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`generate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
