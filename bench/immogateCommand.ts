/*
 * `immogate start` run the way a user runs it (node bin/immogate.js start), for the scenarios that
 * measure the command itself: started, waited for until /ready answers 200, stopped, and checked
 * for processes it left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The checkout's command: dist/bench/ is two levels below it. */
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/immogate.js');

export interface Command {
  child: ChildProcess;
  /** performance.now() just before the spawn. */
  spawnedAt: number;
  exited: Promise<void>;
}

/** Spawns `node [flags] bin/immogate.js start` with `env` (and nothing else), its output appended to `logFile`. */
export function startCommand(env: NodeJS.ProcessEnv, logFile: string, nodeFlags: string[] = []): Command {
  const log = fs.openSync(logFile, 'a');
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'start'], { env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, spawnedAt, exited };
}

function readyStatus(base: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(`${base}/ready`, { agent: false, timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
  });
}

/** Polls /ready every `pollMs` until it answers 200; resolves with the ms from the spawn to that answer. */
export async function untilReady(command: Command, base: string, options: { pollMs: number; timeoutMs: number }): Promise<number> {
  let exited = false;
  void command.exited.then(() => (exited = true));
  for (;;) {
    if ((await readyStatus(base)) === 200) return performance.now() - command.spawnedAt;
    if (exited) throw new Error(`immogate start exited (${command.child.exitCode ?? command.child.signalCode}) before it was ready`);
    if (performance.now() - command.spawnedAt > options.timeoutMs)
      throw new Error(`immogate start not ready after ${options.timeoutMs} ms`);
    await sleep(options.pollMs);
  }
}

/** SIGTERM (a drain, as Ctrl-C does), then SIGKILL if it has not exited within `timeoutMs`. */
export async function stopCommand(command: Command, timeoutMs = 30_000): Promise<void> {
  if (command.child.exitCode !== null || command.child.signalCode !== null) return;
  command.child.kill('SIGTERM');
  const timer = setTimeout(() => command.child.kill('SIGKILL'), timeoutMs);
  await command.exited;
  clearTimeout(timer);
}

/**
 * Processes other than this one whose command line or environment mentions `text` (a DATA_DIR of
 * our own making): what a stopped command left running. Processes /proc does not let us read are
 * not seen.
 */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (cmdline.includes(text) || environ.includes(text)) found.push(Number(entry));
    } catch {}
  }
  return found;
}

/** Whether `pid` runs; a zombie (exited, waiting for a parent to reap it) counts as gone. */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** `immogate start` running for a scenario: where it listens, its log, and how to stop it. */
export interface Running {
  base: string;
  command: Command;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * `node bin/immogate.js start` as a user runs it, on the bench's database (`databaseUrl`) with the
 * bench's DATA_DIR (its secrets.key opens what the database holds), `env` over that; resolved once
 * /ready answers 200.
 */
export async function startImmogateCommand(
  options: { databaseUrl: string; dataDir: string; port: number; nodeFlags?: string[] },
  env: Record<string, string>,
  label: string,
): Promise<Running> {
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `immogate-${label}-`)), 'immogate.log');
  const base = `http://127.0.0.1:${options.port}`;
  const command = startCommand(
    { ...process.env, DATABASE_URL: options.databaseUrl, DATA_DIR: options.dataDir, PORT: String(options.port), LOG_LEVEL: 'warn', ...env },
    logFile,
    options.nodeFlags,
  );
  try {
    await untilReady(command, base, { pollMs: 50, timeoutMs: 60_000 });
  } catch (error) {
    await stopCommand(command);
    throw new Error(`${label}: ${error instanceof Error ? error.message : String(error)}; log ${logFile}`);
  }
  return { base, command, logFile, stop: () => stopCommand(command) };
}

/** `pid` and every process below it, read from /proc (the primary of `immogate start`, its children, theirs). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {}
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** VmRSS of `pid` in kB; 0 once it is gone. */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Whether `pid` is a node process (immogate's), not a PostgreSQL one an embedded start runs below it. */
export function isNode(pid: number): boolean {
  try {
    return path.basename(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '') === path.basename(process.execPath);
  } catch {
    return false;
  }
}

/** What an immogate process is, by its command line: `primary` (start), `server`, `worker`, or the command's last word. */
export function roleOf(pid: number): string {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const command = args.slice(args.findIndex((arg) => arg.endsWith('immogate.js') || arg.endsWith('cli.js')) + 1);
    if (command[0] === 'start' && !command.includes('--inline-worker')) return 'primary';
    return command[0] ?? 'unknown';
  } catch {
    return 'gone';
  }
}
