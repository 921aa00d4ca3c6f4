/*
 * The README and the manual under docs/ run as written: every `sh` block of a page, in order, in one
 * `sh` of its own at the root of the checkout (variables carry over within a page, as in a terminal;
 * each page opens with the block that sets what it needs), the README first, then docs/*.md by
 * name, against one server on a random port (never 8080). Each answer is checked against the
 * comment under its command: `# 202 {...}` is the HTTP status of the step's last curl and the
 * output, where `...` stands for anything. The pages and this test agree by construction: what a
 * page shows is what is checked.
 *
 * What the test does beyond running the commands, and only that:
 * - the servers of the Quick start (`npm start`, `npm run dev`) run in the background, with PORT
 *   a free port, DATA_DIR a temporary directory and DATABASE_URL this file's database: the
 *   environment of a user who moved them, which the pages' commands find by themselves;
 * - the commands .ci/run runs instead (`npm install`, `npm test`, the package's install) are not
 *   run here, and the test checks that .ci/run runs each of them;
 * - the README's receiver runs in the background with RECEIVER_PORT a free port, which every
 *   page's shell is given too, as a reader gives the port they chose to both terminals;
 * - the shells get TARGET_DATABASE_URL, an empty database for the restore of docs/operations.md
 *   (a reader's external PostgreSQL), and a TMPDIR of this test's, removed after it;
 * - the example client's two lines take the client the first start printed (it differs per install);
 * - curl also reports each status on stderr (a wrapper that adds `-w`, nothing else);
 * - the answers' default addresses (`127.0.0.1:8080`, the receiver's `127.0.0.1:3000`) stand for
 *   the server's and the receiver's own;
 * - a read (a command without -X or -d) is polled until its answer matches, at most 30 s, as a
 *   reader polls the statuses: processing is asynchronous.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { signatureHeaders } from '../src/platform/delivery/signing.js';
import { createTestDatabase, freePort, REPO_ROOT, type TestDatabase } from './helpers.js';
import { childEnv, demoClientOf } from './processes.js';

/** The README, then the manual's pages by name: the order their shells run in. */
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const CI_SCRIPT = fs.readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
const EXAMPLE_CLIENT = { clientId: 'ig_bd743f8f4d58f84e37eec202', secret: 'gXwYFLe8nFvAEhcnKdMCx2kIjnTAvsOVEpJiHka-Rh4' };
const RECEIVER_KEY = 'a-long-random-key-0123456789';
const DEFAULT_ADDRESS = '127.0.0.1:8080';
const DEFAULT_RECEIVER_ADDRESS = '127.0.0.1:3000';
/** The Quick start's servers: started in the background, as in a terminal of their own. */
const SERVERS = ['npm start', 'npm run dev'];
/** Commands .ci/run runs in this test's stead (installing, the suite itself, the package). */
const RUN_BY_CI = ['npm install', 'npm test', 'npm pack', 'npm install -g'];
/** Sections whose every command is one of RUN_BY_CI. */
const SECTIONS_RUN_BY_CI = [{ page: 'docs/operations.md', section: 'Installing it, and the Node versions' }];

interface Block {
  page: string;
  section: string;
  language: string;
  code: string;
}

interface Step {
  section: string;
  command: string;
  status?: number;
  output?: string;
}

/** Every fenced block of a page, with the `##` or `###` heading it is under. */
function blocksOf(page: string): Block[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');
  const blocks: Block[] = [];
  let section = '';
  let fence: { language: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (fence) {
      if (line === '```') {
        blocks.push({ page, section, language: fence.language, code: fence.lines.join('\n') });
        fence = undefined;
      } else fence.lines.push(line);
    } else if (line.startsWith('```')) fence = { language: line.slice(3).trim(), lines: [] };
    else if (/^#{2,3} /.test(line)) section = line.replace(/^#+ /, '');
  }
  return blocks;
}

/**
 * Whether `text` leaves a quote or a here-document open, or ends with a line continuation (a
 * comment ends the scan of its line).
 */
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
  const lines = text.split('\n');
  const hereDocument = /<<-?\s*(['"]?)(\w+)\1/.exec(lines[0] ?? '');
  if (hereDocument && !lines.slice(1).includes(hereDocument[2] ?? '')) return true;
  return quote !== undefined || /\\$/.test(text);
}

/** The steps of a block: each command, and the expectation written under it. */
function stepsOf({ page, section, code }: Block): Step[] {
  const steps: Step[] = [];
  let command: string[] = [];
  let last: Step | undefined;
  let expecting = false;
  for (const line of code.split('\n')) {
    if (command.length > 0) {
      command.push(line);
      if (!incomplete(command.join('\n'))) {
        last = { section: `${page}, ${section}`, command: command.join('\n') };
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
        last = { section: `${page}, ${section}`, command: line };
        steps.push(last);
        command = [];
        expecting = true;
      }
    }
  }
  assert.equal(command.length, 0, `an unfinished command in ${page}, ${section}: ${command.join('\n')}`);
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

/** A command without the comment that may follow it on its line. */
function withoutComment(command: string): string {
  return command.replace(/\s+#.*$/, '').trim();
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

  async run(command: string, timeoutMs = 60_000): Promise<{ output: string; status?: number; code: number; stderr: string }> {
    this.stdout = '';
    this.stderr = '';
    this.child.stdin.write(`${command}\n__rc=$?; echo "@@END $__rc"; echo "@@END" >&2\n`);
    const until = Date.now() + timeoutMs;
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

/** A Quick start server: `command` run by `sh` in the checkout, in the background. */
interface Background {
  child: ReturnType<typeof spawn>;
  output: string;
  exited: Promise<number | null>;
}

function background(command: string, env: Record<string, string>): Background {
  const child = spawn('sh', ['-c', `exec ${command}`], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // 'close': npm and every process under it that held its output (immogate) have exited.
  const running: Background = { child, output: '', exited: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
  return running;
}

async function until(what: string, check: () => boolean, running: Background): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!check()) {
    if (running.child.exitCode !== null || Date.now() > deadline) assert.fail(`${what}: not so after 90 s:\n${running.output}`);
    await sleep(20);
  }
}

async function readyAt(base: string, running: Background): Promise<void> {
  const until = Date.now() + 90_000;
  for (;;) {
    const status = await fetch(`${base}/ready`).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    if (status === 200) return;
    if (running.child.exitCode !== null || Date.now() > until) assert.fail(`not ready at ${base}:\n${running.output}`);
    await sleep(100);
  }
}

/** Ctrl-C, as the Quick start stops a server: npm and immogate get SIGINT; resolves once all have exited. */
async function interrupt(running: Background): Promise<number | null> {
  const { pid } = running.child;
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGINT');
  } catch {
    // The group is gone already (an earlier Ctrl-C).
  }
  return running.exited;
}

async function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

/** Whether a block is one of those .ci/run runs in this test's stead. */
function runByCi(block: Block): boolean {
  return SECTIONS_RUN_BY_CI.some((known) => known.page === block.page && known.section === block.section);
}

/** The blocks of a page this test runs in the page's shell: its `sh` blocks but the Quick start's and CI's. */
function runHere(block: Block): boolean {
  return block.language === 'sh' && !(block.page === 'README.md' && block.section === 'Quick start') && !runByCi(block);
}

describe('the README and docs/, run as written on a random port', () => {
  let database: TestDatabase;
  /** The empty database docs/operations.md restores its backup into (TARGET_DATABASE_URL). */
  let target: TestDatabase;
  let port: number;
  let receiverPort: number;
  let dataDir: string;
  let env: Record<string, string>;
  const servers: Background[] = [];
  let receiver: ReturnType<typeof spawn> | undefined;
  let receiverOutput = '';
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-walkthrough-'));
  // The shells' mktemp: what the pages' commands leave behind goes with the test.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-walkthrough-tmp-'));
  const receiverFile = path.join(REPO_ROOT, 'dist', 'walkthrough-receiver.mjs');
  const verifyFile = path.join(REPO_ROOT, 'dist', 'walkthrough-verify.mjs');
  const blocks = PAGES.flatMap(blocksOf);
  let client = EXAMPLE_CLIENT;

  before(async () => {
    database = await createTestDatabase();
    target = await createTestDatabase({ empty: true });
    port = await freePort();
    receiverPort = await freePort();
    assert.notEqual(port, 8080);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-walkthrough-data-'));
    const curl = execFileSync('sh', ['-c', 'command -v curl']).toString().trim();
    fs.writeFileSync(path.join(bin, 'curl'), `#!/bin/sh\nexec ${curl} -w '%{stderr}\\n@@STATUS %{http_code}\\n' "$@"\n`, { mode: 0o755 });
    env = childEnv({
      // Not npm's node_modules/.bin (npm test puts it first): each page puts immogate on PATH as it tells a reader to.
      PATH: [bin, ...(process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.endsWith(`node_modules${path.sep}.bin`))].join(
        path.delimiter,
      ),
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      PUBLIC_URL: undefined,
      HOST: undefined,
      LOG_LEVEL: 'warn',
      RECEIVER_PORT: String(receiverPort),
      TARGET_DATABASE_URL: target.url,
      TMPDIR: scratch,
    });
  });

  after(async () => {
    receiver?.kill();
    for (const server of servers) await interrupt(server);
    await database?.drop();
    await target?.drop();
    for (const dir of [bin, dataDir, scratch]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    for (const file of [receiverFile, verifyFile]) fs.rmSync(file, { force: true });
  });

  it('every command .ci/run runs instead of this test is run by .ci/run', () => {
    for (const command of RUN_BY_CI) assert.ok(CI_SCRIPT.includes(command), `.ci/run does not run ${command}`);
    for (const known of SECTIONS_RUN_BY_CI) {
      assert.ok(
        blocks.some((block) => block.language === 'sh' && block.page === known.page && block.section === known.section),
        `no sh block in ${known.page}, ${known.section}`,
      );
    }
    for (const block of blocks.filter((b) => b.language === 'sh' && runByCi(b))) {
      for (const step of stepsOf(block)) {
        for (const command of withoutComment(step.command).split(/\s*&&\s*/)) {
          const known = RUN_BY_CI.some((ci) => command.startsWith(ci)) || /^mkdir |^cd |^immogate start$/.test(command);
          assert.ok(known, `${step.section}: ${command} is run neither here nor by .ci/run`);
        }
      }
    }
  });

  it('the Quick start: npm start prints the sandbox client once it listens, Ctrl-C stops it; npm run dev, then npm run demo', async () => {
    const quickStart = blocks.filter((block) => block.language === 'sh' && block.page === 'README.md' && block.section === 'Quick start');
    const commands = quickStart.flatMap((block) => stepsOf(block)).flatMap((step) => withoutComment(step.command).split(/\s*&&\s*/));
    assert.deepEqual(commands, ['npm install', 'npm start', 'npm run dev', 'npm run demo', 'npm test']);
    const shell = new Shell(env);
    try {
      for (const command of commands) {
        if (RUN_BY_CI.includes(command)) continue;
        if (SERVERS.includes(command)) {
          const previous = servers.at(-1);
          if (previous) {
            // npm itself dies of the SIGINT, as in a terminal; immogate stops and frees its port.
            await interrupt(previous);
            assert.equal(await portTaken(port), false, `the previous server did not stop on Ctrl-C:\n${previous.output}`);
          }
          const server = background(command, env);
          servers.push(server);
          if (command === 'npm start') {
            await until('the first start prints its sandbox client', () => /client_secret: \S+\n/.test(server.output), server);
            client = demoClientOf(server.output);
            // The curl line it printed works at once, copied as it is: the message comes once the server listens.
            const curlLine = /^ {2}(curl .*)$/m.exec(server.output)?.[1];
            assert.ok(curlLine?.includes(`http://127.0.0.1:${port}/oauth/token`), server.output);
            if (curlLine === undefined) return;
            const token = await shell.run(curlLine);
            assert.equal(token.status, 200, token.output);
            assert.match(token.output, /^\{"access_token":"eyJ[^"]+","expires_in":86400,"token_type":"Bearer","scope":"[^"]+"\}$/);
          }
          await readyAt(`http://127.0.0.1:${port}`, server);
          continue;
        }
        const result = await shell.run(command, 120_000);
        assert.equal(result.code, 0, `${command} exited ${result.code}:\n${result.output}\n${result.stderr}`);
      }
    } finally {
      shell.close();
    }
  });

  it('the receiver of the README runs, on RECEIVER_PORT', async () => {
    const receivers = blocks.filter((block) => block.language === 'js' && block.code.includes('createServer'));
    assert.deepEqual(
      receivers.map((block) => block.page),
      ['README.md'],
    );
    assert.ok(README.includes(RECEIVER_KEY));
    fs.writeFileSync(receiverFile, receivers[0]!.code);
    receiver = spawn(process.execPath, [receiverFile], {
      env: { ...process.env, API_KEY: RECEIVER_KEY, RECEIVER_PORT: String(receiverPort) },
    });
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

  it("the standardwebhooks and svix lines of docs/webhooks.md both verify immogate's signature, and refuse another key's", () => {
    const [check] = blocks.filter((block) => block.language === 'js' && block.code.includes('svix'));
    assert.equal(check?.page, 'docs/webhooks.md', 'no js block with the svix line in docs/webhooks.md');
    if (check === undefined) return;
    const body = JSON.stringify({ leadId: 'e7f1c2d4-0000-4000-8000-000000000001' });
    const headers = signatureHeaders(RECEIVER_KEY, 'msg_walkthrough', body, Math.floor(Date.now() / 1000));
    const run = (key: string) => {
      fs.writeFileSync(
        verifyFile,
        `const key = ${JSON.stringify(key)};\nconst body = ${JSON.stringify(body)};\nconst headers = ${JSON.stringify(headers)};\n${check.code}\n`,
      );
      return spawnSync(process.execPath, [verifyFile], { cwd: REPO_ROOT, encoding: 'utf8' });
    };
    const verified = run(RECEIVER_KEY);
    assert.equal(verified.status, 0, verified.stderr);
    const refused = run('another-key-0123456789abcdef');
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /No matching signature found|signature/i);
  });

  it('the pages hold the steps this test checks', () => {
    const steps = blocks.filter(runHere).flatMap((block) => stepsOf(block));
    assert.ok(steps.filter((step) => step.status !== undefined).length >= 35, 'fewer checked steps than the pages have');
    for (const page of ['README.md', 'docs/getting-started.md', 'docs/webhooks.md']) {
      assert.ok(
        steps.some((step) => step.section.startsWith(`${page}, `)),
        `no step of ${page}`,
      );
    }
    for (const page of PAGES) {
      const text = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');
      assert.doesNotMatch(text, /npx immogate/, `${page}: npx immogate is slow in a checkout; the pages call immogate`);
    }
  });

  for (const page of PAGES.filter((page) => blocks.some((block) => runHere(block) && block.page === page))) {
    it(`${page}: every sh block answers as the page shows, in a shell of its own`, async () => {
      const steps = blocks.filter((block) => runHere(block) && block.page === page).flatMap((block) => stepsOf(block));
      const own = `127.0.0.1:${port}`;
      const receiverAddress = `127.0.0.1:${receiverPort}`;
      const shell = new Shell(env);
      try {
        for (const step of steps) {
          const command = step.command
            .replace(`CLIENT_ID=${EXAMPLE_CLIENT.clientId}`, `CLIENT_ID=${client.clientId}`)
            .replace(`CLIENT_SECRET=${EXAMPLE_CLIENT.secret}`, `CLIENT_SECRET=${client.secret}`);
          const expected = step.output?.replaceAll(DEFAULT_ADDRESS, own).replaceAll(DEFAULT_RECEIVER_ADDRESS, receiverAddress);
          const until = Date.now() + 30_000;
          for (;;) {
            const result = await shell.run(command);
            const what = `${step.section}:\n${command}\nexit ${result.code}, status ${result.status}, output:\n${result.output}\nstderr:\n${result.stderr}`;
            assert.equal(result.code, 0, what);
            const answered =
              step.status === undefined ||
              (result.status === step.status && (expected === undefined ? result.output === '' : matches(result.output, expected)));
            if (answered) break;
            if (!isRead(command) || Date.now() > until) assert.fail(`expected ${step.status} ${expected ?? '(no output)'}\n${what}`);
            await sleep(250);
          }
        }
      } finally {
        shell.close();
      }
    });
  }

  it("the receiver verified the pages' status webhooks and lead notifications", async () => {
    const until = Date.now() + 30_000;
    while (!(/\/leads /.test(receiverOutput) && /\/caas\/classifieds\/[0-9a-f-]{36}\/statuses /.test(receiverOutput))) {
      if (Date.now() > until) assert.fail(`the receiver got no lead or no status:\n${receiverOutput}`);
      await sleep(100);
    }
  });
});
