/*
 * `immogate start --processes N`: N processes on one machine, each the HTTP server and the worker
 * of `immogate start`, so that a machine with more cores uses them.
 *
 * The primary serves nothing itself. It opens the database (starting the embedded one of DATA_DIR,
 * which it then owns and stops last), migrates it, creates the demo client on a first start, and
 * forks the children with that database's URL as DATABASE_URL: to them it is an external database,
 * which they never try to start or stop. They share the listening port through node:cluster and
 * the work through the database, as processes on several machines would.
 *
 * A signal is passed on as a message, not as the signal: Ctrl-C in a terminal already reaches
 * every process of the group, and a child that got the signal twice would exit at once instead of
 * draining. A child that dies is replaced after a short pause, longer if it keeps dying.
 */
import cluster, { type Worker as ClusterChild } from 'node:cluster';
import net from 'node:net';
import { loadConfig, type Config } from './config.js';
import { createPool } from './platform/db/pool.js';
import { loggerFor, type Logger } from './platform/log.js';
import { openDatabase, prepareDatabase, type Database } from './platform/db/open.js';
import { devModeMessage, ensureDemoClient, firstRunMessage, listenError, secureDataDir } from './runtime.js';

/** A child tells the primary its server listens and its worker runs. */
const READY = 'immogate:ready';
/** The primary asks a child to stop as `immogate start` does on SIGTERM. */
const DRAIN = 'immogate:drain';

/** A replacement waits this long, doubled for each quick death in a row, at most MAX_RESTART_DELAY_MS. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that lived this long did not die of its start-up: its replacement waits the shortest time. */
const HEALTHY_MS = 60_000;

// ---- the child's side (a process forked by the primary runs `immogate start`) ----

/** In a child, log lines carry its pid: the children write to one terminal. */
export function processLogger(logger: Logger): Logger {
  return cluster.isWorker ? logger.child({ pid: process.pid }) : logger;
}

export function isClusterChild(): boolean {
  return cluster.isWorker;
}

/** In a child, runs `drain` when the primary asks it to stop. */
export function onDrainRequest(drain: () => void): void {
  if (!cluster.isWorker) return;
  process.on('message', (message) => {
    if (message === DRAIN) drain();
  });
  // Listening must not keep a child alive whose start-up failed.
  process.channel?.unref();
}

/** In a child, tells the primary that start-up is done. */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.(READY);
}

// ---- the primary ----

interface Child {
  slot: number;
  process: ClusterChild;
  forkedAt: number;
  ready: boolean;
}

/** Fails start-up with the PORT or HOST error of `immogate start` before any child tries (and each reports it). */
async function checkListenable(config: Config): Promise<void> {
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
  } catch (error) {
    throw listenError(error, config);
  }
  await new Promise((resolve) => server.close(resolve));
}

class Primary {
  private database: Database | undefined;
  private readonly children = new Map<number, Child>();
  private readonly restarts = new Map<number, NodeJS.Timeout>();
  /** Quick deaths in a row, per slot. */
  private readonly failures = new Map<number, number>();
  private forked = false;
  /** Every first child reported ready once; from then on a death is a crash, not a failed start. */
  private started = false;
  private stopping = false;
  private signals = 0;
  private exitCode = 0;
  /** The sandbox client a first start created, until a process listens and it is printed. */
  private firstRun: { clientId: string; secret: string } | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly processes: number,
  ) {}

  async start(): Promise<void> {
    await secureDataDir(this.config, this.logger);
    // The children reach it as an external database and only reconnect: the primary restarts it.
    this.database = await openDatabase(this.config, { supervisedBy: this.logger });
    try {
      await this.prepare(this.database);
      await checkListenable(this.config);
    } catch (error) {
      await this.database.close();
      throw error;
    }
    if (this.stopping) return this.finish();
    cluster.setupPrimary({ exec: process.argv[1], args: this.config.dev ? ['start', '--dev'] : ['start'] });
    cluster.on('exit', (child, code, signal) => this.exited(child, code, signal));
    this.forked = true;
    for (let slot = 0; slot < this.processes; slot += 1) this.fork(slot);
    this.logger.info({ processes: this.processes, database: this.database.description }, 'starting server and worker processes');
    if (this.config.dev) this.logger.info(devModeMessage(this.config));
  }

  /** What `immogate start` does before it serves: migrate, and the demo client of a first start. */
  private async prepare(database: Database): Promise<void> {
    const pool = createPool(database.url, 2);
    try {
      const applied = await prepareDatabase(pool);
      if (applied.length > 0) this.logger.info({ applied }, 'migrations applied');
      // Told once the first process listens (its READY), so that its curl line works when read.
      this.firstRun = await ensureDemoClient(pool);
      const { rows } = await pool.query<{ max: number }>(
        "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int AS max",
      );
      // Each child has a pool for requests, one for work and the worker's LISTEN connection.
      const wanted = this.processes * (2 * this.config.databasePoolSize + 1);
      if (rows[0] && wanted > rows[0].max) {
        this.logger.warn(
          { processes: this.processes, connections: wanted, maxConnections: rows[0].max },
          'under full load the processes may open more connections than the database allows: lower --processes or DATABASE_POOL_SIZE',
        );
      }
    } finally {
      await pool.end();
    }
  }

  private announceFirstRun(): void {
    if (this.firstRun) process.stdout.write(`${firstRunMessage(this.config, this.firstRun)}\n`);
    this.firstRun = undefined;
  }

  private fork(slot: number): void {
    this.restarts.delete(slot);
    if (!this.database) throw new Error('a process was forked before the database was open');
    const child = cluster.fork({ DATABASE_URL: this.database.url });
    const entry: Child = { slot, process: child, forkedAt: Date.now(), ready: false };
    this.children.set(child.id, entry);
    // A message to a child that is going away fails; its exit is what counts, and is handled.
    child.on('error', (error) => this.logger.warn({ err: error, pid: child.process.pid }, 'could not reach a server and worker process'));
    child.on('message', (message) => {
      if (message !== READY) return;
      entry.ready = true;
      this.announceFirstRun();
      if (!this.started && [...this.children.values()].every((other) => other.ready) && this.children.size === this.processes) {
        this.started = true;
        this.logger.info(
          { processes: this.processes, pids: [...this.children.values()].map((other) => other.process.process.pid) },
          'all processes started',
        );
      }
    });
  }

  private exited(child: ClusterChild, code: number | null, signal: string | null): void {
    const entry = this.children.get(child.id);
    if (!entry) return;
    this.children.delete(child.id);
    const pid = child.process.pid;
    if (this.stopping) {
      if (this.children.size === 0) void this.finish();
      return;
    }
    if (!this.started && !entry.ready) {
      // Dying before it served once, it would die again: this is a failed start, not a crash.
      this.logger.error({ pid, code, signal }, 'a process failed to start: stopping');
      // The secret is shown once or never: told even so, for the next start to be used with.
      this.announceFirstRun();
      this.exitCode = 1;
      this.stop();
      return;
    }
    const quick = Date.now() - entry.forkedAt < HEALTHY_MS;
    const failures = quick ? (this.failures.get(entry.slot) ?? 0) + 1 : 1;
    this.failures.set(entry.slot, failures);
    const delay = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (failures - 1));
    this.logger.warn(
      { pid, code, signal, restartInMs: delay },
      entry.ready
        ? 'a server and worker process died: starting another in its place'
        : 'a replacement process failed to start: trying again',
    );
    this.restarts.set(
      entry.slot,
      setTimeout(() => this.fork(entry.slot), delay),
    );
  }

  /** SIGINT or SIGTERM: the children drain, then the database stops; a second signal exits at once. */
  signal(signal: string): void {
    this.signals += 1;
    if (this.signals > 1) {
      this.logger.warn({ signal }, 'second signal: exiting at once');
      for (const child of this.children.values()) child.process.process.kill('SIGKILL');
      process.exit(1);
    }
    this.logger.info({ signal, processes: this.children.size }, 'shutting down: draining requests and jobs');
    this.stop();
  }

  private stop(): void {
    this.stopping = true;
    for (const timer of this.restarts.values()) clearTimeout(timer);
    this.restarts.clear();
    for (const child of this.children.values()) {
      // A child still starting may not listen for messages yet; its signal handlers wait for its
      // start-up to finish, then drain (and one killed by the signal had nothing to drain).
      if (child.ready && child.process.isConnected()) child.process.send(DRAIN);
      else child.process.process.kill('SIGTERM');
    }
    // Before the fork, start() finishes once the database is open; after it, the last exit does.
    if (this.forked && this.children.size === 0) void this.finish();
  }

  private async finish(): Promise<void> {
    try {
      await this.database?.close();
    } catch (error) {
      this.logger.error({ err: error }, 'stopping the database failed');
      process.exit(1);
    }
    this.logger.info('stopped');
    process.exit(this.exitCode);
  }
}

/** Runs `immogate start` as `processes` children of this process (see the module comment). */
export async function startCluster(processes: number, options: { dev: boolean }): Promise<void> {
  const config = loadConfig(process.env, options);
  const logger = await loggerFor(config);
  const primary = new Primary(config, logger, processes);
  // From the very start, as serve() does: a signal while the database starts stops it afterwards.
  process.on('SIGINT', () => primary.signal('SIGINT'));
  process.on('SIGTERM', () => primary.signal('SIGTERM'));
  await primary.start();
}
