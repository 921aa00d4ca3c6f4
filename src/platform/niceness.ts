/*
 * Lowering the CPU priority of a whole process. On Linux the nice value belongs to each thread,
 * and setpriority on a pid changes its main thread only: the threads Node started before (V8's
 * compiler and garbage-collector helpers, libuv's pool) would keep competing at full priority.
 * Each thread listed under /proc/<pid>/task is changed too; threads started afterwards inherit
 * the value of the thread that starts them. Elsewhere the value is the process's already.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Sets the nice value of `pid` and of each of its threads; throws if the process is gone. */
export function setNiceness(pid: number, nice: number): void {
  os.setPriority(pid, nice);
  let threads: string[];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const thread of threads) {
    try {
      os.setPriority(Number(thread), nice);
    } catch {
      // A thread that ended meanwhile has nothing to lower.
    }
  }
}
