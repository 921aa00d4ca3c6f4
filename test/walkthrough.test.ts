/*
 * The README's walkthroughs, run as written against a fresh `immogate start --dev`: every `sh`
 * block of the sections "Walkthrough with curl" and "Walkthrough" goes, step by step, to one `sh`
 * (variables carry over as in a terminal), and each answer is checked against the comment under
 * its command: `# 202 {...}` is the HTTP status of the step's last curl and the output, where
 * `...` stands for anything. The README and this test agree by construction: what the README
 * shows is what is checked.
 *
 * What the test changes, and only that: the server listens on a free port (curl connects there for
 * 127.0.0.1:8080 through --connect-to, so PUBLIC_URL and every URL stay http://127.0.0.1:8080), the
 * receiver of the README listens on a free port instead of 3000, the example client of the README
 * is replaced by the one the first start printed, `npx immogate` runs the built CLI, and curl also
 * reports each status on stderr. A read (a command without -X or -d) is polled until its answer
 * matches, at most 30 s, as a reader polls the statuses: processing is asynchronous.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, freePort, REPO_ROOT, type TestDatabase } from './helpers.js';
import { CLI, childEnv, demoClientOf, type Immogate, killLaunched, launch, stop, waitReady } from './processes.js';

const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const EXAMPLE_CLIENT = { clientId: 'ig_bd743f8f4d58f84e37eec202', secret: 'gXwYFLe8nFvAEhcnKdMCx2kIjnTAvsOVEpJiHka-Rh4' };
const RECEIVER_KEY = 'a-long-random-key-0123456789';
const WALKTHROUGHS = /^#{2,3} Walkthrough\b/;

interface Step {
  section: string;
  command: string;
  status?: number;
  output?: string;
}

/** The fenced blocks of `language` in the walkthrough sections, with the heading of each. */
function walkthroughBlocks(text: string, language: string): { section: string; code: string }[] {
  const blocks: { section: string; code: string }[] = [];
  let section = '';
  let inWalkthrough = false;
  let fence: { language: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (fence) {
      if (line === '```') {
        if (inWalkthrough && fence.language === language) blocks.push({ section, code: fence.lines.join('\n') });
        fence = undefined;
      } else fence.lines.push(line);
    } else if (line.startsWith('```')) fence = { language: line.slice(3).trim(), lines: [] };
    else if (/^#{1,3} /.test(line)) {
      // A walkthrough is its heading's section, down to the next heading of the same or a higher level.
      inWalkthrough = WALKTHROUGHS.test(line) || (inWalkthrough && line.startsWith('#### '));
      if (/^## /.test(line) || WALKTHROUGHS.test(line)) section = line.replace(/^#+ /, '');
    }
  }
  return blocks;
}

/** Whether `text` leaves a quote open or ends with a line continuation (a comment ends the scan of its line). */
function incomplete(text: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = undefined;
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    }
  }
  return quote !== undefined || /\\$/.test(text);
}

/** The steps of a block: each command, and the expectation written under it. */
function stepsOf(section: string, code: string): Step[] {
  const steps: Step[] = [];
  let command: string[] = [];
  let last: Step | undefined;
  let expecting = false;
  for (const line of code.split('\n')) {
    if (command.length > 0) {
      command.push(line);
      if (!incomplete(command.join('\n'))) {
        last = { section, command: command.join('\n') };
        steps.push(last);
        command = [];
        expecting = true;
      }
      continue;
    }
    const expectation = /^# (\d{3})(?: (.*))?$/.exec(line);
    const continuation = /^# {3}(.*)$/.exec(line);
    if (expecting && last && expectation && last.status === undefined) {
      last.status = Number(expectation[1]);
      last.output = expectation[2];
    } else if (expecting && last && continuation && last.status !== undefined) {
      last.output = (last.output ?? '') + (continuation[1] ?? '');
    } else if (line.trim() === '' || line.startsWith('#')) {
      expecting = false;
    } else {
      command = [line];
      if (!incomplete(line)) {
        last = { section, command: line };
        steps.push(last);
        command = [];
        expecting = true;
      }
    }
  }
  assert.equal(command.length, 0, `an unfinished command in ${section}: ${command.join('\n')}`);
  return steps;
}

/** `...` stands for anything; everything else must be as written. */
function matches(output: string, expected: string): boolean {
  const pattern = expected
    .split('...')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`, 's').test(output);
}

function isRead(command: string): boolean {
  return !/\s-X\s|\s-d\s|--data|--json/.test(command);
}

/** One `sh` fed step by step; each step's output, curl status and exit code read back. */
class Shell {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';

  constructor(env: Record<string, string>) {
    this.child = spawn('sh', [], { cwd: REPO_ROOT, env });
    this.child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  async run(command: string): Promise<{ output: string; status?: number; code: number; stderr: string }> {
    this.stdout = '';
    this.stderr = '';
    this.child.stdin.write(`${command}\n__rc=$?; echo "@@END $__rc"; echo "@@END" >&2\n`);
    const until = Date.now() + 60_000;
    for (;;) {
      const end = /@@END (\d+)\n/.exec(this.stdout);
      if (end && this.stderr.includes('@@END\n')) return this.result(end);
      if (Date.now() > until) assert.fail(`no end of:\n${command}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await sleep(20);
    }
  }

  private result(end: RegExpExecArray): { output: string; status?: number; code: number; stderr: string } {
    const statuses = [...this.stderr.matchAll(/@@STATUS (\d{3})/g)].map((match) => Number(match[1]));
    const stderr = this.stderr.replace(/\n?@@STATUS \d{3}\n/g, '').replace('@@END\n', '');
    return {
      output: this.stdout.slice(0, end.index).replace(/\r/g, '').trim(),
      status: statuses.at(-1),
      code: Number(end[1]),
      stderr,
    };
  }

  close(): void {
    this.child.stdin.end();
  }
}

describe('the README walkthroughs', () => {
  let database: TestDatabase;
  let server: Immogate;
  let receiver: ReturnType<typeof spawn> | undefined;
  let receiverOutput = '';
  let receiverPort: number;
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-walkthrough-'));
  const receiverFile = path.join(REPO_ROOT, 'dist', 'walkthrough-receiver.mjs');

  before(async () => {
    database = await createTestDatabase();
    server = launch(['start', '--dev'], await freePort(), { DATABASE_URL: database.url, PUBLIC_URL: 'http://127.0.0.1:8080' });
    await waitReady(server);
    receiverPort = await freePort();
  });

  after(async () => {
    receiver?.kill();
    if (server) await stop(server);
    await killLaunched();
    await database?.drop();
    fs.rmSync(bin, { recursive: true, force: true });
    fs.rmSync(receiverFile, { force: true });
  });

  /** The README as the test runs it (see the header). */
  function adapted(): string {
    const client = demoClientOf(server.stdout);
    return README.replaceAll(EXAMPLE_CLIENT.clientId, client.clientId)
      .replaceAll(EXAMPLE_CLIENT.secret, client.secret)
      .replaceAll('127.0.0.1:3000', `127.0.0.1:${receiverPort}`)
      .replace('.listen(3000)', `.listen(${receiverPort})`);
  }

  it('the receiver of the README runs', async () => {
    const [block] = walkthroughBlocks(adapted(), 'js');
    assert.ok(block, 'no js block in the walkthroughs');
    assert.ok(README.includes(RECEIVER_KEY));
    fs.writeFileSync(receiverFile, block.code);
    receiver = spawn(process.execPath, [receiverFile], { env: { ...process.env, API_KEY: RECEIVER_KEY } });
    receiver.stdout?.on('data', (chunk: Buffer) => (receiverOutput += chunk.toString()));
    receiver.stderr?.on('data', (chunk: Buffer) => (receiverOutput += chunk.toString()));
    for (let i = 0; i < 100; i++) {
      const listening = await fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', body: '{}' }).then(
        (response) => response.status,
        () => 0,
      );
      if (listening === 401) return;
      await sleep(50);
    }
    assert.fail(`the receiver does not answer 401 to an unsigned POST:\n${receiverOutput}`);
  });

  it('every step of every walkthrough answers as the README shows', async () => {
    const curl = execFileSync('sh', ['-c', 'command -v curl']).toString().trim();
    const npx = execFileSync('sh', ['-c', 'command -v npx']).toString().trim();
    fs.writeFileSync(
      path.join(bin, 'curl'),
      `#!/bin/sh\nexec ${curl} --connect-to 127.0.0.1:8080:127.0.0.1:${server.port} -w '%{stderr}\\n@@STATUS %{http_code}\\n' "$@"\n`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(bin, 'npx'),
      `#!/bin/sh\nif [ "$1" = immogate ]; then shift; exec ${process.execPath} ${CLI} "$@"; fi\nexec ${npx} "$@"\n`,
      { mode: 0o755 },
    );
    const steps = walkthroughBlocks(adapted(), 'sh').flatMap((block) => stepsOf(block.section, block.code));
    const sections = new Set(steps.map((step) => step.section));
    assert.deepEqual([...sections], ['Walkthrough with curl', 'Walkthrough', 'Walkthrough', 'Walkthrough'].slice(0, sections.size));
    assert.ok(steps.filter((step) => step.status !== undefined).length >= 20, 'fewer checked steps than the walkthroughs have');
    const shell = new Shell(
      childEnv({ PATH: `${bin}:${process.env.PATH}`, DATABASE_URL: database.url, PUBLIC_URL: 'http://127.0.0.1:8080', LOG_LEVEL: 'warn' }),
    );
    try {
      for (const step of steps) {
        const until = Date.now() + 30_000;
        for (;;) {
          const result = await shell.run(step.command);
          const what = `${step.section}:\n${step.command}\nexit ${result.code}, status ${result.status}, output:\n${result.output}\nstderr:\n${result.stderr}`;
          assert.equal(result.code, 0, what);
          const answered =
            step.status === undefined ||
            (result.status === step.status && (step.output === undefined ? result.output === '' : matches(result.output, step.output)));
          if (answered) break;
          if (!isRead(step.command) || Date.now() > until) {
            assert.fail(`expected ${step.status} ${step.output ?? '(no output)'}\n${what}`);
          }
          await sleep(250);
        }
      }
    } finally {
      shell.close();
    }
    assert.match(receiverOutput, /\/leads /);
    assert.match(receiverOutput, /\/caas\/classifieds\/[0-9a-f-]{36}\/statuses /);
  });
});
