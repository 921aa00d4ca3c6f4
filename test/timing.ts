/*
 * Loaded into every test file's process (test/run.ts), like leaks.ts: when the file's process
 * exits it writes how long it ran and the CPU it used (its own, and that of the processes it
 * started and waited for: CLI runs, embedded clusters) for run.ts to rank the slowest files. A
 * file's wall time against its CPU tells where its time goes: computing, or waiting.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface FileTiming {
  file: string;
  wallMs: number;
  cpuMs: number;
  childrenCpuMs: number;
}

const dir = process.env.IMMOGATE_TEST_TIMINGS_DIR;

// Only in the processes that run a test file, not in the runner that starts them.
if (process.env.NODE_TEST_CONTEXT !== undefined && dir) process.on('exit', () => write(dir));

/** The CPU of waited-for children (cutime + cstime of /proc/self/stat), 0 where there is no /proc. */
function childrenCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces; cutime is field 16.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Clock ticks, 100 a second on Linux.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

function write(into: string): void {
  const usage = process.resourceUsage();
  const timing: FileTiming = {
    file: process.argv[1] ?? 'unknown',
    wallMs: Math.round(performance.now()),
    cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
    childrenCpuMs: childrenCpuMs(),
  };
  fs.writeFileSync(path.join(into, `${process.pid}.json`), JSON.stringify(timing));
}
