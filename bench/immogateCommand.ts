/*
 * `immogate start` run the way a user runs it (node bin/immogate.js start), for the scenarios that
 * measure the command itself: started, waited for until /ready answers 200, stopped, and checked
 * for processes it left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
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
