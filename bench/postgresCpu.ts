/*
 * The CPU the database's processes used, read from /proc: what a request costs PostgreSQL, beside
 * what it costs immogate.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { POSTGRES_DIR } from '../src/platform/dataDir.js';

/** Clock ticks per second, the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  ppid: number;
  /** utime + stime, in ticks. */
  own: number;
  /** cutime + cstime: what its children used that it has reaped. */
  reaped: number;
}

function stat(pid: number | string): Stat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may itself hold spaces and parentheses: fields follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  return { ppid: field(4), own: field(14) + field(15), reaped: field(16) + field(17) };
}

/** The pid in postmaster.pid of the embedded cluster under `dataDir` (src/platform/db/embedded.ts lays it out), if there is one. */
export function embeddedPostmaster(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, POSTGRES_DIR, 'cluster', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The postmaster's pid: that of the embedded cluster under `dataDir`, or else the parent of one of
 * our own connections' backends (a PostgreSQL on this machine, DATABASE_URL).
 */
export async function findPostmaster(pool: pg.Pool, dataDir: string | undefined): Promise<number | undefined> {
  const embedded = dataDir ? embeddedPostmaster(dataDir) : undefined;
  if (embedded !== undefined) return embedded;
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return stat(rows[0]!.pid)?.ppid;
}

/**
 * µs of CPU the cluster has used so far: the postmaster's own and what it reaped of its exited
 * children (backends of closed connections), plus its live children's. Undefined when /proc does
 * not show the postmaster (a database on another machine or in another container).
 */
export function postgresCpuUs(postmaster: number | undefined): number | undefined {
  if (postmaster === undefined) return undefined;
  const root = stat(postmaster);
  if (!root) return undefined;
  let ticks = root.own + root.reaped;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(entry);
    if (child?.ppid === postmaster) ticks += child.own;
  }
  return (ticks * 1e6) / TICKS_PER_SECOND;
}
