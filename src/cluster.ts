/*
 * `immogate start`: a primary process and its children on one machine. By default N server
 * processes (`--processes N`, 1 unless told) and one worker process; with `--inline-worker`, N
 * processes that are each the server and the worker (and with N = 1 no primary at all: cli.ts
 * then serves in the one process).
 *
 * The worker has a process of its own because in the server's it shares the event loop: draining
 * a backlog of just-posted classifieds took the loop from requests (GET one classified, p99 766 ms
 * beside 8,000 of them). Apart, it also runs at a lower CPU priority, 10 nice steps below the
 * servers: in Linux's scheduler a process weighs 1.25 times less per step (nice 10: 110 against
 * nice 0: 1024), so that when they want the same core the worker gets about a tenth of it, and
 * all of a core nobody else wants (a nice value shares, it does not cap). Lower still (19 weighs
 * 15, under 2 %) would let a backlog grow for as long as requests keep the cores busy, webhooks
 * arriving minutes late; 5 (335) would still take a quarter of a shared core from requests. With
 * Linux's autogroups a nice value weighs among the processes of one session: the primary's, not
 * PostgreSQL's nor anything else on the machine.
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
import os from 'node:os';
import { loadConfig, type Config } from './config.js';
import { createPool } from './platform/db/pool.js';
import { loggerFor, type Logger } from './platform/log.js';
import { openDatabase, prepareDatabase, type Database } from './platform/db/open.js';
import { whileAnswering } from './platform/db/liveness.js';
import { StartWait } from './platform/db/startWait.js';
import { setNiceness } from './platform/niceness.js';
import { isLoadReport, type LoadReport, reportLoad, ServersLoad } from './platform/work/requestsFirst.js';
import { devModeMessage, dropUnshownClient, ensureDemoClient, firstRunMessage, listenError, secureDataDir } from './startup.js';

/** A child tells the primary its server listens and/or its worker runs. */
const READY = 'immogate:ready';
/** The primary asks a child to stop as `immogate start` does on SIGTERM. */
const DRAIN = 'immogate:drain';

/** A replacement waits this long, doubled for each quick death in a row, at most MAX_RESTART_DELAY_MS. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that lived this long did not die of its start-up: its replacement waits the shortest time. */
const HEALTHY_MS = 60_000;
/**
 * The worker process's priority is WORKER_NICENESS steps below the servers' (see the module
 * comment): added to the nice value they inherit, as `nice -n 10` would, so that an operator who
 * lowers the whole of immogate keeps the same share between them. 19 is the lowest there is.
 */
const LOWEST_PRIORITY = 19;

// ---- the child's side (a process forked by the primary runs `immogate server`, `worker` or `start --inline-worker`) ----

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

/**
 * In a child of `immogate start`: a server process reports its load to the primary, which passes
 * it on to the worker process (work/requestsFirst.ts). Returns the worker's view of it, undefined
 * in a process that is no worker child (or also serves: its own requests share its loop anyway).
 */
export function shareServersLoad(roles: { server: boolean; worker: boolean }, logger: Logger, pace: number): ServersLoad | undefined {
  if (!cluster.isWorker || roles.server === roles.worker) return undefined;
  if (roles.server) {
    // A report lost while the channel closes (the primary going away) is no error: the next one, or none, follows.
    reportLoad((report) => {
      if (process.connected) process.send?.(report, undefined, {}, () => undefined);
    });
    return undefined;
  }
  const load = new ServersLoad();
  let heard = false;
  process.on('message', (message) => {
    if (!isLoadReport(message)) return;
    load.heed(message);
    // Once: that the reports arrive is what an operator (and a test) can check; each would be noise.
    if (!heard)
      logger.info(
        { pace },
        'the worker hears the load of the server processes: while one is busy, it starts at most pace classifieds a second',
      );
    heard = true;
  });
  return load;
}

/** In a child, tells the primary that start-up is done. */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.(READY);
}

// ---- the primary ----

/** What a child runs; the last only with --inline-worker. */
type Role = 'server' | 'worker' | 'server and worker';

/** The command line of a child of each role. */
function commandOf(role: Role, dev: boolean): string[] {
  const command = role === 'server' ? ['server'] : role === 'worker' ? ['worker'] : ['start', '--inline-worker'];
  return dev ? [...command, '--dev'] : command;
}

/**
 * The worker's young generation is kept small: V8 grows it to 16 MB a semi-space (three times that
 * in all) to collect less often, which a request's latency gains from and the worker does not need.
 * Measured in the soak (`npm run bench -- --scenario soak`, 60 s): the worker's peak RSS 177 MB at
 * V8's default, 114 MB at 4 MB, its webhook lag the same (p99 126 and 110 ms). The servers keep the
 * default: at 4 MB, GET of one classified went 5 % slower. A flag given by the operator (in
 * NODE_OPTIONS or on node's command line) is theirs and wins.
 */
const WORKER_SEMI_SPACE_MB = 4;

function execArgvOf(role: Role): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => flag.includes('semi-space'));
  return role === 'worker' && !given ? [...process.execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`] : process.execArgv;
}

/**
 * Database connections a child of each role may open: a server's request pool, its health probe,
 * its /metrics pool and the event feed's LISTEN connection; a worker's pool and its LISTEN connection.
 */
function connectionsOf(role: Role, poolSize: number): number {
  const server = poolSize + 3;
  const worker = poolSize + 1;
  return role === 'server' ? server : role === 'worker' ? worker : server + worker;
}

interface Child {
  slot: number;
  role: Role;
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
  /** Every first child reported ready once (said once, in the log). */
  private started = false;
  /**
   * A server listens: what is said once then has been said, and from then on a child's death,
   * even in its start-up, is replaced rather than a failed start.
   */
  private served = false;
  private stopping = false;
  /** Ends the start's waits for its database when a signal comes meanwhile. */
  private readonly aborting = new AbortController();
  private signals = 0;
  private exitCode = 0;
  /** The sandbox client a first start created, until a process listens and it is printed (or, never printed, removed). */
  private firstRun: { clientId: string; secret: string } | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    /** The role of the child in each slot. */
    private readonly slots: readonly Role[],
  ) {}

  async start(): Promise<void> {
    await secureDataDir(this.config, this.logger);
    const wait = new StartWait(this.logger, this.config.databaseStartTimeoutSeconds, this.aborting.signal);
    try {
      // The children reach it as an external database and only reconnect: the primary restarts it.
      this.database = await openDatabase(this.config, { supervisedBy: this.logger, wait });
      await this.prepare(this.database, wait);
      await checkListenable(this.config);
    } catch (error) {
      // A signal while it waited for the database: stopped as asked, not failed.
      if (this.stopping) return this.finish();
      await this.dropFirstRun();
      await this.database?.close();
      throw error;
    }
    if (this.stopping) return this.finish();
    cluster.on('exit', (child, code, signal) => this.exited(child, code, signal));
    this.forked = true;
    for (const [slot, role] of this.slots.entries()) this.fork(slot, role);
    this.logger.info(
      {
        servers: this.slots.filter((role) => role !== 'worker').length,
        worker: this.slots.includes('worker') ? 'own process' : 'in each server process',
        database: this.database.description,
      },
      'starting server and worker processes',
    );
  }

  /** What `immogate start` does before it serves: migrate, and the demo client of a first start. */
  private async prepare(database: Database, wait: StartWait): Promise<void> {
    const pool = createPool(database.url, 2);
    try {
      const applied = await wait.run('migrating', () => prepareDatabase(pool));
      if (applied.length > 0) this.logger.info({ applied }, 'migrations applied');
      // Told once the first server listens (its READY), so that its curl line works when read.
      this.firstRun = await wait.run('creating the first client', () => whileAnswering(pool, () => ensureDemoClient(pool)));
      const { rows } = await wait.run('reading max_connections', () =>
        whileAnswering(pool, () =>
          pool.query<{ max: number }>(
            "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int AS max",
          ),
        ),
      );
      const wanted = this.slots.reduce((sum, role) => sum + connectionsOf(role, this.config.databasePoolSize), 0);
      if (rows[0] && wanted > rows[0].max) {
        this.logger.warn(
          { processes: this.slots.length, connections: wanted, maxConnections: rows[0].max },
          'under full load the processes may open more connections than the database allows: lower --processes or DATABASE_POOL_SIZE',
        );
      }
    } finally {
      await pool.end();
    }
  }

  /** A start that ends before any server listened removes the client whose secret it never showed (startup.ts). */
  private async dropFirstRun(): Promise<void> {
    if (this.firstRun && this.database) await dropUnshownClient(this.database.url, this.firstRun, this.logger);
    this.firstRun = undefined;
  }

  private announceFirstRun(): void {
    if (this.firstRun) process.stdout.write(`${firstRunMessage(this.config, this.firstRun)}\n`);
    this.firstRun = undefined;
  }

  /** A server listens: the first start's client, and dev mode's line, said once as `immogate start` says them. */
  private serving(): void {
    this.announceFirstRun();
    if (this.config.dev && !this.served) this.logger.info(devModeMessage(this.config));
    this.served = true;
  }

  /** Lowers the worker process's priority; again once it started, for a thread begun while the first pass listed them. */
  private lower(child: ClusterChild): void {
    const pid = child.process.pid;
    if (pid === undefined) return;
    try {
      setNiceness(pid, Math.min(LOWEST_PRIORITY, os.getPriority() + this.config.workerNiceness));
    } catch (error) {
      // Gone already (its exit is handled), or a system that refuses: the worker runs all the same.
      this.logger.warn({ err: error, pid }, 'could not lower the priority of the worker process');
    }
  }

  private fork(slot: number, role: Role): void {
    this.restarts.delete(slot);
    if (!this.database) throw new Error('a process was forked before the database was open');
    // The settings apply to the next fork only: each child gets the command of its role.
    cluster.setupPrimary({ exec: process.argv[1], args: commandOf(role, this.config.dev), execArgv: execArgvOf(role) });
    const child = cluster.fork({ DATABASE_URL: this.database.url });
    const entry: Child = { slot, role, process: child, forkedAt: Date.now(), ready: false };
    this.children.set(child.id, entry);
    if (role === 'worker' && this.config.workerNiceness > 0) child.once('online', () => this.lower(child));
    // A message to a child that is going away fails; its exit is what counts, and is handled.
    child.on('error', (error) => this.logger.warn({ err: error, pid: child.process.pid }, `could not reach a ${role} process`));
    child.on('message', (message) => {
      if (isLoadReport(message)) return this.passLoad(message, child);
      if (message !== READY) return;
      entry.ready = true;
      if (role === 'worker' && this.config.workerNiceness > 0) this.lower(child);
      else this.serving();
      if (!this.started && [...this.children.values()].every((other) => other.ready) && this.children.size === this.slots.length) {
        this.started = true;
        const pids = (roles: Role[]) =>
          [...this.children.values()].filter((other) => roles.includes(other.role)).map((other) => other.process.process.pid);
        this.logger.info({ servers: pids(['server', 'server and worker']), worker: pids(['worker'])[0] }, 'all processes started');
      }
    });
  }

  /** A server's load, passed on to the worker process (work/requestsFirst.ts). */
  private passLoad(report: LoadReport, from: ClusterChild): void {
    for (const entry of this.children.values()) {
      if (entry.role === 'worker' && entry.ready && entry.process.isConnected()) entry.process.send({ ...report, from: from.process.pid });
    }
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
    if (!this.served && !entry.ready) {
      // Dying before any server served, it would die again (a PORT taken, a bad setting): this is
      // a failed start, not a crash. Once one has served, a child dying in its start-up (the
      // database gone meanwhile, a worker still starting) is replaced as any other: nothing about
      // the database stops what serves.
      this.logger.error({ pid, code, signal, role: entry.role }, 'a process failed to start: stopping');
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
      entry.ready ? `a ${entry.role} process died: starting another in its place` : `a ${entry.role} process failed to start: trying again`,
    );
    this.restarts.set(
      entry.slot,
      setTimeout(() => this.fork(entry.slot, entry.role), delay),
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
    this.aborting.abort();
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
      await this.dropFirstRun();
      await this.database?.close();
    } catch (error) {
      this.logger.error({ err: error }, 'stopping the database failed');
      process.exit(1);
    }
    this.logger.info('stopped');
    process.exit(this.exitCode);
  }
}

/**
 * Runs `immogate start` as children of this process (see the module comment): `servers` server
 * processes and one worker process, or `servers` processes of both with `inlineWorker`.
 */
export async function startCluster(servers: number, options: { dev: boolean; inlineWorker: boolean }): Promise<void> {
  const config = loadConfig(process.env, options);
  const logger = await loggerFor(config);
  const slots: Role[] = options.inlineWorker
    ? Array<Role>(servers).fill('server and worker')
    : [...Array<Role>(servers).fill('server'), 'worker'];
  const primary = new Primary(config, logger, slots);
  // From the very start, as serve() does: a signal while the database starts stops it afterwards.
  process.on('SIGINT', () => primary.signal('SIGINT'));
  process.on('SIGTERM', () => primary.signal('SIGTERM'));
  await primary.start();
}
