/*
 * Prism (`@stoplight/prism-cli`) as a validating proxy: one child process per served document, in
 * front of the API root it describes. It forwards every request as it came and validates both the
 * request and the answer against the document. Without `--errors` it forwards an invalid request
 * too (the server's refusal is what the judge wants to see), and lists what it found in the
 * answer's `sl-violations` header, which the judge reads; with `--errors` an invalid request would
 * be answered 422 by Prism itself and never reach immogate.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const PRISM = path.join(path.dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');

export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface PrismProxy {
  url: string;
  /** CPU seconds the proxy used so far (user + system, from /proc), undefined where /proc is not. */
  cpuSeconds(): number | undefined;
  /** What it wrote (its warnings and errors): shown when it died. */
  output(): string;
  stop(): Promise<void>;
}

function cpuOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100 a second on Linux).
    const fields = fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Prism proxying `upstream` (an API root) on loopback `port`, validating against `documentFile`. */
export async function startPrism(documentFile: string, upstream: string, port: number): Promise<PrismProxy> {
  const child: ChildProcess = spawn(
    process.execPath,
    [PRISM, 'proxy', documentFile, upstream, '--host', '127.0.0.1', '--port', String(port), '--cors', 'false', '--verboseLevel', 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let written = '';
  const keep = (chunk: Buffer) => {
    written = (written + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let lastCpu: number | undefined;
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}) before listening:\n${written}`);
    // Any answer means it listens: a path no document has is answered by Prism itself.
    const answered = await fetch(`${url}/judge-probe`).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`prism did not listen within 120 s:\n${written}`);
    }
    await sleep(200);
  }
  return {
    url,
    cpuSeconds: () => {
      if (child.exitCode === null) lastCpu = cpuOf(child.pid) ?? lastCpu;
      return lastCpu;
    },
    output: () => written,
    async stop() {
      lastCpu = cpuOf(child.pid) ?? lastCpu;
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The violations Prism listed in an answer's `sl-violations` header (none when it has none). */
export function violationsOf(headers: { get(name: string): string | null }): Violation[] {
  const header = headers.get('sl-violations');
  if (header === null) return [];
  const parsed: unknown = JSON.parse(header);
  if (!Array.isArray(parsed)) throw new Error(`sl-violations is not a list: ${header}`);
  return parsed as Violation[];
}
