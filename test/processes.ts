/*
 * immogate as a user runs it, for tests: processes of the built CLI, their output, readiness,
 * signals, the sandbox client a first start prints, and the embedded PostgreSQL of a DATA_DIR.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { alive } from '../src/platform/db/embedded.js';
import { TEST_SECRETS_KEY, UNREFUSING_LIMITS } from './helpers.js';

export const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

export interface Immogate {
  child: ChildProcess;
  pid: number;
  port: number;
  base: string;
  stdout: string;
  stderr: string;
  /** When it was spawned (Date.now()). */
  startedAt: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a child: ours with `env` applied; an undefined value removes a variable. */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...UNREFUSING_LIMITS,
    ...env,
  };
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const launched: Immogate[] = [];

/**
 * Starts `immogate <args>` listening on `port`, collecting its output. `host`: the address it
 * listens on and is reached at; `prefix`: a command it runs under (e.g. `ip netns exec <ns>`, which
 * execs it, so the child is still immogate itself); `cwd`: the directory it starts in.
 */
export function launch(
  args: string[],
  port: number,
  env: Record<string, string | undefined>,
  options: { host?: string; prefix?: string[]; cwd?: string } = {},
): Immogate {
  const host = options.host ?? '127.0.0.1';
  const [command, ...rest] = [...(options.prefix ?? []), process.execPath, CLI, ...args] as [string, ...string[]];
  const child = spawn(command, rest, {
    env: childEnv({ PORT: String(port), HOST: host, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
  });
  const running: Immogate = {
    child,
    pid: child.pid ?? 0,
    port,
    base: `http://${host}:${port}`,
    stdout: '',
    stderr: '',
    startedAt: Date.now(),
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on('data', (chunk: Buffer) => (running.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (running.stderr += chunk.toString()));
  launched.push(running);
  return running;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `immogate <args>` to its end, bounded to a minute. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

export function exitedAlready(running: Immogate): boolean {
  return running.child.exitCode !== null || running.child.signalCode !== null;
}

/** Kills whatever a failed step left running (for `after` hooks). */
export async function killLaunched(): Promise<void> {
  for (const running of launched) {
    if (!exitedAlready(running)) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  }
}

/** Polls `check` every 100 ms, at most `attempts` times; fails at once if `running` exits meanwhile. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, running?: Immogate, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await check()) return;
    if (running && exitedAlready(running)) {
      assert.fail(
        `${what}: the process exited (${running.child.exitCode ?? running.child.signalCode})\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`,
      );
    }
    await sleep(100);
  }
  assert.fail(
    `${what}: still not true after ${attempts} attempts${running ? `\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}` : ''}`,
  );
}

export async function isReady(running: Immogate): Promise<boolean> {
  try {
    const response = await fetch(`${running.base}/ready`);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Waits until `/ready` answers 200; the process exiting meanwhile fails at once (a start must
 * succeed on its first try). Resolves to the milliseconds since it was spawned.
 */
export async function waitReady(running: Immogate, timeoutMs = 60_000): Promise<number> {
  const deadline = running.startedAt + timeoutMs;
  for (;;) {
    if (exitedAlready(running)) {
      assert.fail(
        `immogate (pid ${running.pid}) exited (${running.child.exitCode ?? running.child.signalCode}) before it was ready\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`,
      );
    }
    if (await isReady(running)) return Date.now() - running.startedAt;
    if (Date.now() > deadline)
      assert.fail(`immogate (pid ${running.pid}) not ready after ${timeoutMs} ms\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`);
    await sleep(50);
  }
}

export async function stop(
  running: Immogate,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  running.child.kill(signal);
  return running.exited;
}

/** The JSON log lines of a process, its children's included (LOG_LEVEL info or lower). */
export function logLines(running: Immogate): Record<string, any>[] {
  return running.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** The first log line `check` accepts, once it is written; fails if the process exits first or after `timeoutMs`. */
export async function waitForLog(
  running: Immogate,
  what: string,
  check: (line: Record<string, any>) => boolean,
  timeoutMs = 60_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = logLines(running).find(check);
    if (found) return found;
    if (exitedAlready(running) || Date.now() > deadline)
      assert.fail(`no log line ${what}\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`);
    await sleep(50);
  }
}

export interface DemoClient {
  clientId: string;
  secret: string;
}

/** The sandbox client a first start prints (every scope, intermediary demo-agency). */
export function demoClientOf(stdout: string): DemoClient {
  const match = /^ {2}client_id: +(ig_[0-9a-f]{24})\n {2}client_secret: (\S+)$/m.exec(stdout);
  assert.ok(match, `no demo client in:\n${stdout}`);
  return { clientId: match[1]!, secret: match[2]! };
}

/** The parent of process `pid` (Linux). */
export function parentOf(pid: number): number {
  return Number(/^\d+ \(.*\) \S (\d+)/s.exec(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
}

/** The children of process `pid` (Linux): with `immogate start`, its server and worker processes, and the embedded PostgreSQL it started. */
export function childrenOf(pid: number): number[] {
  return fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter((text) => text !== '')
    .map(Number);
}

/**
 * The nice value of each thread of process `pid` (Linux), whose threads each have one: field 19
 * of their stat, counted after the command name, which may hold spaces and parentheses.
 */
export function threadNiceness(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

// ---- the embedded PostgreSQL of a DATA_DIR ----

/** A temporary DATA_DIR the embedded PostgreSQL (which runs as another user when we are root) can use. */
export function temporaryDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

function pidFile(dataDir: string): string {
  return path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid');
}

export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile(dataDir), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The URL of the embedded database of `dataDir` as it runs now (its port changes with each start). */
export function embeddedUrl(dataDir: string): string {
  const port = fs.readFileSync(pidFile(dataDir), 'utf8').split('\n')[3];
  const password = fs.readFileSync(path.join(dataDir, 'postgres', 'password'), 'utf8');
  return `postgres://immogate:${encodeURIComponent(password)}@127.0.0.1:${port}/immogate`;
}

/** Stops the embedded PostgreSQL of `dataDir` if a failed step left it running (for `after` hooks). */
export async function stopEmbeddedLeftover(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined || !alive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && alive(pid); i += 1) await sleep(100);
}

/** Stops an embedded PostgreSQL left running in `dataDir`, then removes the directory. */
export async function removeDataDir(dataDir: string): Promise<void> {
  await stopEmbeddedLeftover(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
