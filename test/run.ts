/*
 * `npm test`: prepares one PostgreSQL for the whole run, then runs every test file with node's
 * test runner. Each file clones its own database from a template migrated here once.
 *
 * The server is the one DATABASE_URL names (its database is used only to create and drop test
 * databases), or else an embedded PostgreSQL started for the run in a temporary directory, so
 * the suite needs nothing installed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { openEmbedded } from '../src/platform/db/embedded.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createPool } from '../src/platform/db/pool.js';

const here = path.dirname(fileURLToPath(import.meta.url));

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? testFiles(path.join(dir, entry.name)) : entry.name.endsWith('.test.js') ? [path.join(dir, entry.name)] : [],
    )
    .sort();
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function main(): Promise<number> {
  const filter = process.argv.slice(2);
  let adminUrl = process.env.DATABASE_URL;
  let stopEmbedded: () => Promise<void> = async () => {};
  let tempDir: string | undefined;
  if (adminUrl) {
    process.stderr.write(`tests: using the PostgreSQL of DATABASE_URL (${new URL(adminUrl).host})\n`);
  } else {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-test-'));
    fs.chmodSync(tempDir, 0o755);
    process.stderr.write(`tests: starting an embedded PostgreSQL in ${tempDir}\n`);
    const embedded = await openEmbedded(tempDir);
    adminUrl = embedded.url;
    stopEmbedded = () => embedded.stop();
  }
  const template = `immogate_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    const pool = createPool(withDatabase(adminUrl, template), 2);
    await migrate(pool);
    await pool.end();

    // The suite of the server, and the tests of packages/client, compiled by the same build.
    const files = [...testFiles(here), ...testFiles(path.join(here, '../packages/client/test'))].filter(
      (file) => filter.length === 0 || filter.some((f) => file.includes(f)),
    );
    const code = await new Promise<number>((resolve) => {
      const leaks = pathToFileURL(path.join(here, 'leaks.js')).href;
      const child = spawn(process.execPath, ['--test', '--test-concurrency=2', `--import=${leaks}`, ...files], {
        stdio: 'inherit',
        env: { ...process.env, IMMOGATE_TEST_ADMIN_URL: adminUrl, IMMOGATE_TEST_TEMPLATE: template, DATABASE_URL: '' },
      });
      child.on('exit', (status) => resolve(status ?? 1));
    });
    return code;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await stopEmbedded();
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
