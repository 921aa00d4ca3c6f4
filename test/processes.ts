/**
 * immogate as a user runs it, for tests: processes of the built CLI, their output, readiness,
 * signals, and the sandbox client a first start prints.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { alive } from '../src/platform/db/embedded.js';
import { freePort } from './helpers.js';

export const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  port: number;
  base: string;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a child: ours with `env` applied; an undefined value removes a variable. */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Starts `immogate <args>` on a free port (or `port`), collecting its output. */
export async function launch(args: string[], env: Record<string, string | undefined>, port?: number): Promise<Running> {
  const listenOn = port ?? (await freePort());
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv({ PORT: String(listenOn), ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  const running: Running = {
    child,
    port: listenOn,
    base: `http://127.0.0.1:${listenOn}`,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on('data', (chunk: Buffer) => (running.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (running.stderr += chunk.toString()));
  return running;
}

/** Polls `check` every 100 ms, at most `attempts` times; fails at once if `running` exits meanwhile. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, running?: Running, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await check()) return;
    if (running && running.child.exitCode !== null) {
      assert.fail(`${what}: the process exited (${running.child.exitCode})\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`);
    }
    await sleep(100);
  }
  assert.fail(`${what}: still not true after ${attempts} attempts${running ? `\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}` : ''}`);
}

export async function isReady(running: Running): Promise<boolean> {
  try {
    const response = await fetch(`${running.base}/ready`);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export async function waitReady(running: Running): Promise<void> {
  await waitUntil(`${running.base}/ready`, () => isReady(running), running);
}

export async function stop(running: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  running.child.kill(signal);
  return running.exited;
}

/** Kills what is still running (an `after` hook's cleanup of a failed test). */
export async function killAll(processes: Iterable<Running>): Promise<void> {
  for (const running of processes) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  }
}

/** The sandbox client a first start prints (every scope, intermediary demo-agency). */
export function demoClient(running: Running): { clientId: string; secret: string } {
  const match = /client_id: +(\S+)\n +client_secret: (\S+)/.exec(running.stdout);
  assert.ok(match, running.stdout);
  return { clientId: match[1]!, secret: match[2]! };
}

/** A temporary DATA_DIR the embedded PostgreSQL (which runs as another user when we are root) can use. */
export function temporaryDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

export function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Stops an embedded PostgreSQL left running in `dataDir`, then removes the directory. */
export async function removeDataDir(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid'))) {
    const pid = postmasterPid(dataDir);
    if (alive(pid)) process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && alive(pid); i += 1) await sleep(100);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
