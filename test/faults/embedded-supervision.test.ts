/*
 * The embedded PostgreSQL killed under load (kill -9 of the postmaster, as a PANIC or the OOM
 * killer would end it): the immogate process that owns it starts it again, and the same process,
 * never restarted, accepts writes again with nothing it acknowledged lost. With --processes 2 the
 * primary restarts it and the two children only reconnect.
 *
 * The cases share one embedded database of their own (one initdb, the longest part of a first
 * start), launched with DATABASE_URL set or not: supervision is what the embedded database needs,
 * and there is no external one to kill. They share the port too: tokens name it.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it, type TestContext } from 'node:test';
import { alive } from '../../src/platform/db/embedded.js';
import { freePort, http } from '../helpers.js';
import { acknowledged, assertNothingLost, Load, MediaServer, tokensFor, type Tokens } from '../pipeline.js';
import {
  type DemoClient,
  demoClientOf,
  embeddedUrl,
  exitedAlready,
  killLaunched,
  launch,
  postmasterPid,
  removeDataDir,
  temporaryDataDir,
  waitReady,
  waitUntil,
  type Immogate,
} from '../processes.js';

const WRITES_AGAIN_WITHIN_MS = 30_000;
const CASE = { timeout: 90_000 };

const dataDir = temporaryDataDir('immogate-supervised-');
const port = await freePort();
/** The sandbox client the first start printed. */
let demo: DemoClient | undefined;
const servers: { close(): Promise<void> }[] = [];

after(async () => {
  await killLaunched();
  await removeDataDir(dataDir);
  await Promise.all(servers.map((server) => server.close()));
});

/** The messages of the JSON log lines of `output` (one process's, or a primary's and its children's). */
function messages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

let probes = 0;

/** One lead: its requestId when acknowledged, the status otherwise, or the connection error. */
async function submitLead(tokens: Tokens): Promise<{ requestId: string } | { status: number; text: string } | { error: string }> {
  probes += 1;
  try {
    const result = await http('POST', `${tokens.base}/sandbox/seeker-leads/v1/leads`, {
      headers: { authorization: `Bearer ${tokens.leads}` },
      body: {
        firstName: 'Grace',
        lastName: `Hopper-${probes}`,
        email: `grace.${probes}@example.org`,
        phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78' }],
        message: 'Is the flat still available?',
        classifiedId: '12ABCDEFGHJK',
        submittedDate: '2026-03-01T10:00:00Z',
      },
    });
    if (result.status === 200) return { requestId: (result.body as { requestId: string }).requestId };
    return { status: result.status, text: result.text };
  } catch (error) {
    return { error: String(error) };
  }
}

async function killPostmasterUnderLoad(t: TestContext, args: string[], started: string): Promise<void> {
  const media = await MediaServer.start();
  servers.push(media);
  const server: Immogate = launch(args, port, {
    DATA_DIR: dataDir,
    DATABASE_URL: undefined,
    ALLOW_PRIVATE_TARGETS: 'true',
    // The lines of the restart are warn and info.
    LOG_LEVEL: 'info',
  });
  // A case that fails stops its server (and the database it owns), so the next case starts on the shared port and data.
  t.after(async () => {
    if (exitedAlready(server)) return;
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const readyMs = await waitReady(server);
  // Its workers too: a database killed while a process starts fails that start, as it should.
  await waitUntil(`"${started}" logged`, () => messages(server.stdout).includes(started), server);
  const startedMs = Date.now() - server.startedAt;
  demo ??= demoClientOf(server.stdout);
  const tokens = await tokensFor(server.base, demo);

  const ack = acknowledged();
  const load = new Load(tokens, media, ack, `supervised-${args.length}`).start({ classifieds: 2, leads: 2 });
  await sleep(1_000);
  const postmaster = postmasterPid(dataDir);
  assert.ok(postmaster !== undefined && alive(postmaster));
  const acknowledgedBefore = ack.classifieds.size + ack.leads.size;
  process.kill(postmaster, 'SIGKILL');
  const killedAt = Date.now();

  // Writes again: a lead acknowledged once the restart is logged. Meanwhile a 503 or a refused
  // connection; or an acknowledgement from a backend of the killed postmaster that has not seen it
  // die yet (its commit is durable: it must not be lost either), which is not the restart.
  const refused: string[] = [];
  let writesAgainMs: number | undefined;
  while (writesAgainMs === undefined) {
    const back = messages(server.stdout).includes('the embedded PostgreSQL is back');
    const outcome = await submitLead(tokens);
    if ('requestId' in outcome) {
      ack.leads.add(outcome.requestId);
      if (back) {
        writesAgainMs = Date.now() - killedAt;
        break;
      }
    } else {
      refused.push('status' in outcome ? `${outcome.status} ${outcome.text}` : outcome.error);
    }
    assert.ok(
      Date.now() - killedAt < WRITES_AGAIN_WITHIN_MS,
      `no write accepted ${WRITES_AGAIN_WITHIN_MS} ms after the kill: ${refused.at(-1) ?? 'the restart was not logged'}`,
    );
    await sleep(100);
  }
  // The load carries on a little on the restarted database.
  await sleep(1_000);
  await load.stop();

  assert.equal(exitedAlready(server), false, 'the same immogate process still runs');
  const restarted = postmasterPid(dataDir);
  assert.ok(restarted !== undefined && restarted !== postmaster && alive(restarted), 'a new postmaster runs');
  assert.equal(alive(postmaster), false);
  await assertNothingLost(embeddedUrl(dataDir), ack);
  assert.ok(ack.classifieds.size + ack.leads.size > acknowledgedBefore, 'writes were acknowledged after the restart');

  const answers = [...refused, ...ack.unexpected];
  const logged = messages(server.stdout);
  assert.ok(logged.includes('the embedded PostgreSQL stopped; restarting it (try 1)'), server.stdout);
  assert.equal(logged.filter((message) => message === 'the embedded PostgreSQL is back').length, 1, server.stdout);

  t.diagnostic(
    `writes accepted again ${writesAgainMs} ms after the kill; acknowledged: ${ack.classifieds.size} classifieds, ${ack.leads.size} leads; ` +
      `${answers.length} refused while it restarted (${answers.filter((answer) => /(^|: )503 /.test(answer)).length} with 503, ` +
      `${answers.filter((answer) => /(^|: )500 /.test(answer)).length} with 500)`,
  );

  const stopAt = Date.now();
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  t.diagnostic(`ready ${readyMs} ms after launch, workers ${startedMs} ms; stopped in ${Date.now() - stopAt} ms`);
  assert.equal(alive(restarted), false, 'the restarted database was stopped with immogate');

  // A fault outside immogate: while the database restarts, a 503 (or no connection), never a 500.
  assert.deepEqual(
    answers.filter((answer) => /(^|: )500 /.test(answer)),
    [],
    `answers during the restart:\n${answers.join('\n')}`,
  );
  for (const answer of answers) assert.match(answer, /(^|: )503 |fetch failed/);
}

describe('the embedded PostgreSQL dies under load', () => {
  it('kill -9 of the postmaster: the same immogate process restarts it and accepts writes again, nothing acknowledged lost', CASE, (t) =>
    killPostmasterUnderLoad(t, ['start'], 'worker started'),
  );
  it('with --processes 2: the primary restarts it, the children carry on', CASE, (t) =>
    killPostmasterUnderLoad(t, ['start', '--processes', '2'], 'all processes started'),
  );
});
