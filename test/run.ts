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
import type { FileTiming } from './timing.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..');
const root = path.resolve(dist, '..');

/** The compiled test files under `dir` whose source still exists (dist/ may hold a deleted test's). */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? testFiles(path.join(dir, entry.name)) : entry.name.endsWith('.test.js') ? [path.join(dir, entry.name)] : [],
    )
    .filter((file) => fs.existsSync(path.join(root, path.relative(dist, file)).replace(/\.js$/, '.ts')))
    .sort();
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * This cluster lives as long as the run, in a temporary directory, and the tests kill processes
 * (immogate's), never the machine: a commit need not wait for the disk, which on a busy machine
 * costs the suite more than anything it computes. Production settings stay with the clusters
 * that tests start through immogate (embedded-restart, supervision, DATA_DIR), and with the
 * server of DATABASE_URL, which this run does not own.
 */
async function withoutDurability(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await client.query(`ALTER SYSTEM SET ${setting} = off`);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
}

/** The slowest files, with the CPU they used: what to look at when the suite gets slow. */
function report(dir: string, files: number, concurrency: string, wallMs: number): void {
  const timings = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as FileTiming);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const cpu = timings.reduce((sum, t) => sum + t.cpuMs + t.childrenCpuMs, 0);
  const lines = timings
    .sort((a, b) => b.wallMs - a.wallMs)
    .slice(0, 10)
    .map(
      (t) =>
        `  ${seconds(t.wallMs).padStart(8)} wall ${seconds(t.cpuMs + t.childrenCpuMs).padStart(8)} CPU  ${path.relative(dist, t.file)}`,
    );
  process.stderr.write(
    `tests: ${timings.length} of ${files} files ran to the end in ${seconds(wallMs)} (${concurrency}; the files' processes used ${seconds(cpu)} CPU, ` +
      `the load average is ${os.loadavg()[0]?.toFixed(1)}); the slowest:\n${lines.join('\n')}\n`,
  );
}

/**
 * Files that mostly wait (a lock held for 30 s, a partition, processes killed and their leases run
 * out, a database that does not answer): 11-30 % of a core over their time. They run one at a time
 * in a lane of their own beside the two files of the other lane, which keeps the machine's two
 * cores busy with those; run among the two, each held a core's turn idle for minutes. None of them
 * bounds a latency tighter than a second.
 */
const WAITING = [
  'test/crash-recovery.test.js',
  'test/faults/partition.test.js',
  'test/faults/migration-partition.test.js',
  'test/faults/start-unavailable.test.js',
  'test/multi-host.test.js',
  'test/platform/delivery.test.js',
  'test/platform/work.test.js',
  'test/hostile/slow-clients.test.js',
];

/**
 * Files run after the lanes, alone. lock.test holds other requests' latency under a fault to a
 * multiple of the same requests' latency without it, two windows of one run a few hundred requests
 * each: no busy neighbour's CPU may fall into one window and not the other. events-waiting holds
 * 100 long polls answering within 1.5 s of a horizon moving, an absolute bound: alone it measured
 * 395-473 ms, beside the lanes on a machine running at half its speed 802-1,758 ms.
 */
const ALONE = ['test/faults/lock.test.js', 'test/platform/events-waiting.test.js'];

/**
 * One `node --test` over `files`, `concurrency` at a time; its report to `destination` (a file),
 * else to our stdout, and a line per failed test to `failed` (test/failures.ts).
 */
function lane(
  files: string[],
  concurrency: number,
  env: NodeJS.ProcessEnv,
  destination: string | undefined,
  failed: string,
): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  const imports = ['leaks.js', 'timing.js'].map((file) => `--import=${pathToFileURL(path.join(here, file)).href}`);
  // What node picks when no reporter is named (spec on a terminal, else TAP), named because a second one is.
  const shown = destination === undefined && process.stdout.isTTY ? 'spec' : 'tap';
  const reporter = [
    `--test-reporter=${shown}`,
    `--test-reporter-destination=${destination ?? 'stdout'}`,
    `--test-reporter=${pathToFileURL(path.join(here, 'failures.js')).href}`,
    `--test-reporter-destination=${failed}`,
  ];
  return new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...reporter, ...imports, ...files], {
      stdio: 'inherit',
      env,
    });
    child.on('exit', (status) => resolve(status ?? 1));
  });
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
    await withoutDurability(adminUrl);
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
      // Matched within the checkout (test/..., packages/client/test/...), never against the directory it lives in.
      (file) => filter.length === 0 || filter.some((f) => path.relative(dist, file).includes(f)),
    );
    // IMMOGATE_TEST_TIMINGS_DIR keeps every file's figures (one JSON file each) for a closer look.
    const kept = process.env.IMMOGATE_TEST_TIMINGS_DIR;
    const timings = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-timings-'));
    // Two at a time, one a core on the 2-core machine: the files mostly compute (each immogate
    // they start compiles its routes' validators for seconds of CPU), and four at a time made the
    // wall-clock bounds of some tests miss under load. IMMOGATE_TEST_CONCURRENCY sets another count.
    const concurrency = Number(process.env.IMMOGATE_TEST_CONCURRENCY ?? 2);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error('IMMOGATE_TEST_CONCURRENCY: must be a whole number of at least 1');
    const started = performance.now();
    const env = {
      ...process.env,
      IMMOGATE_TEST_ADMIN_URL: adminUrl,
      IMMOGATE_TEST_TEMPLATE: template,
      IMMOGATE_TEST_TIMINGS_DIR: timings,
      DATABASE_URL: '',
    };
    const named = (names: string[]) => files.filter((file) => names.includes(path.relative(dist, file)));
    const [waiting, alone] = [named(WAITING), named(ALONE)];
    const computing = files.filter((file) => !waiting.includes(file) && !alone.includes(file));
    // The waiting lane reports into a file, shown after the other lane's report: two TAP streams
    // on one terminal would interleave line by line.
    const waitingReport = path.join(timings, 'waiting-lane.tap');
    const failedLists = ['computing', 'waiting', 'alone'].map((name) => path.join(timings, `failed-${name}.txt`)) as [
      string,
      string,
      string,
    ];
    const [computed, waited] = await Promise.all([
      lane(computing, concurrency, env, undefined, failedLists[0]),
      lane(waiting, 1, env, waitingReport, failedLists[1]),
    ]);
    if (fs.existsSync(waitingReport)) {
      process.stdout.write(`# the waiting lane (${waiting.length} files, one at a time beside the others):\n`);
      process.stdout.write(fs.readFileSync(waitingReport));
      fs.rmSync(waitingReport);
    }
    if (alone.length > 0) process.stdout.write(`# alone, after the lanes: ${alone.map((file) => path.relative(dist, file)).join(', ')}\n`);
    const aloneCode = await lane(alone, 1, env, undefined, failedLists[2]);
    const code = [computed, waited, aloneCode].find((status) => status !== 0) ?? 0;
    report(
      timings,
      files.length,
      `${concurrency} at a time, ${waiting.length} that mostly wait one at a time beside them, then ${alone.length} alone`,
      performance.now() - started,
    );
    const failed = failedLists.flatMap((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []));
    if (failed.length > 0) process.stderr.write(`tests: ${failed.length} failed:\n${failed.map((line) => `  ${line}`).join('\n')}\n`);
    else if (code !== 0) process.stderr.write(`tests: the runner exited with ${code}, and no test failed: a file did not run to the end\n`);
    if (!kept) fs.rmSync(timings, { recursive: true, force: true });
    return code;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await stopEmbedded();
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
