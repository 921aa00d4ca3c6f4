/*
 * What a scenario is and what it is given: the shapes bench/run.ts drives.
 */
import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import type { Load, Measurement } from '../driver.js';

export interface Started {
  address: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** One line of the table (and of the JSON): the runs of a scenario and their medians. */
export interface Row {
  scenario: string;
  about: string;
  target?: string;
  runs: Measurement[];
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  lost?: number;
  backlog?: number;
  ofBaselineA?: number;
  ofBaselineB?: number;
  ofBaselineR?: number;
  peakRssMb?: number;
  /**
   * CPU of the database's processes (utime + stime of the postmaster and its children, from /proc)
   * over the measured runs, per request answered in them; absent where /proc does not show them.
   */
  postgresCpuUsPerRequest?: number;
  /** Whether the figures meet the target, as the scenario's `met` judges them; absent when it cannot tell. */
  met?: boolean;
  /** Profiled (--profile): the report and profiles written, and immogate's CPU µs per request in all and by category. */
  profile?: { report: string; files: string[]; busyUsPerRequest: number | undefined; categories: Record<string, number | undefined> };
  /** A comparison the target asks for (list-1m against list-1k). */
  note?: string;
}

/** What run.ts hands every scenario: immogate's address, a token, the database and a way to start helpers. */
export interface Context {
  base: string;
  databaseUrl: string;
  /** The bench's own connection to the database, as its owner (row-level security does not apply). */
  pool: pg.Pool;
  /** The DATA_DIR of the immogate children: its secrets.key seals what they share in the database. */
  dataDir: string;
  /** A caas token for the bench client, acting for agency "bench-agency". */
  token: string;
  clientId: string;
  secret: string;
  /** Rows of the scenarios that already ran in this invocation. */
  rows: readonly Row[];
  /** Forks bench/<file>.js with `env` and waits for the address it reports. */
  start(file: string, env: Record<string, string>): Promise<Started>;
  /** Starts one more immogate child on the same database, with `env` added (BENCH_WORKER, ALLOW_PRIVATE_TARGETS...). */
  startImmogate(env: Record<string, string>): Promise<Started>;
  /** A token from `base`'s token endpoint for a new client of `agency` with `scopes`, for the API root `root`. */
  issueToken(base: string, options: { root: string; agency: string; scopes: string[] }): Promise<string>;
  /** One autocannon run in a forked driver. */
  autocannon(load: Load): Promise<Measurement>;
  /**
   * Node options for an immogate process a scenario spawns itself (`immogate start`): `--cpu-prof`
   * into the scenario's profile directory when `--profile` names it, nothing otherwise.
   */
  profileFlags(): string[];
}

/** A scenario ready to run: an autocannon load that run.ts repeats, or a run of its own. */
export interface Prepared {
  load?: Omit<Load, 'seconds'>;
  run?: (seconds: number) => Promise<Measurement>;
  stop?: () => Promise<void>;
}

export interface Scenario {
  name: string;
  about: string;
  target?: string;
  /** Ratios to the baselines are shown for every scenario that is not itself a baseline, unless false. */
  ratios?: boolean;
  baseline?: 'a' | 'b' | 'r';
  /**
   * Its load goes to run.ts's immogate child (context.base). Profiled, such a scenario gets a child
   * of its own started with --cpu-prof, which is stopped (and so writes its profile) when it ends.
   */
  sharedServer?: boolean;
  /** Report the immogate process's peak RSS over this scenario's runs. */
  memory?: boolean;
  /** Runs of the scenario (3 unless set). */
  runs?: number;
  /** The run's length when BENCH_SECONDS is not set (10 unless set). */
  seconds?: number;
  /** Seconds of the same autocannon load, not measured, before the first run. */
  warmUpSeconds?: number;
  setup(context: Context): Promise<Prepared>;
  /** A remark computed from the finished row and the rows before it. */
  note?(row: Row, rows: readonly Row[]): string | undefined;
  /** Whether the row meets `target`; undefined when the figures cannot tell (a baseline missing from the invocation). */
  met?(row: Row, rows: readonly Row[]): boolean | undefined;
  /** Cells of the printed table that say something else for this scenario than the defaults (a row without a throughput). */
  cells?(row: Row): Record<string, string | number>;
}

export const USER_AGENT = 'ImmogateBench/1.0.0 node/20 linux/6';
export const CONNECTIONS = 50;

/**
 * What a load test turns off of immogate's limits: one client sending hundreds of requests a
 * second is the load, not a tenant to hold to its quota, and a backlog the scenario builds on
 * purpose (the post runs leave thousands unprocessed) is no backlog to refuse. Scenarios that
 * measure the limits (noisy, faults) set them again.
 */
export const LOAD_TEST_LIMITS: Readonly<Record<string, string>> = {
  QUOTA_WRITES_PER_SECOND: '0',
  QUOTA_READS_PER_SECOND: '0',
  MAX_BACKLOG_PER_AGENCY: '0',
  MAX_WAITING_PER_AGENCY: '0',
};
