/*
 * Crash recovery with real processes: under a load of classified creates and leads, immogate (its
 * primary process; in the second variant every process of it, and its embedded PostgreSQL) is
 * killed with kill -9 at a random moment, five times, and restarted at once on the same DATA_DIR
 * with the default lease and retry settings. Each restart must be ready on its first try and, within 30 seconds, have processed
 * every classified to its terminal status and delivered every notification; at the end nothing
 * acknowledged is missing and nothing happened twice (see assertConsistent).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it, type TestContext } from 'node:test';
import { alive } from '../src/platform/db/embedded.js';
import { freePort } from './helpers.js';
import {
  acknowledged,
  assertConsistent,
  assertNothingLost,
  Load,
  MediaServer,
  Receiver,
  subscribe,
  tokensFor,
  waitCaughtUp,
  type Crash,
} from './pipeline.js';
import {
  childrenOf,
  demoClientOf,
  embeddedUrl,
  exitedAlready,
  killLaunched,
  launch,
  logLines,
  postmasterPid,
  stopEmbeddedLeftover,
  waitReady,
  type Immogate,
} from './processes.js';

const CYCLES = 5;
const RECOVERY_MS = 30_000;
const VARIANT = { timeout: 300_000 };

const dataDirs: string[] = [];
const servers: { close(): Promise<void> }[] = [];

after(async () => {
  await killLaunched();
  for (const dir of dataDirs) {
    await stopEmbeddedLeftover(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await Promise.all(servers.map((server) => server.close()));
});

async function crashCycles(t: TestContext, killPostgresToo: boolean): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-crash-'));
  // PostgreSQL refuses to run as root, so it runs as another user that must reach the directory.
  fs.chmodSync(dataDir, 0o755);
  dataDirs.push(dataDir);
  const media = await MediaServer.start();
  const receiver = await Receiver.start();
  servers.push(media, receiver);
  // The same port throughout: tokens name it (audience and issuer), and a client keeps its tokens across restarts.
  const port = await freePort();
  // LOG_LEVEL info: the restart's log says when it forked its processes (see forkedAt).
  const env = { DATA_DIR: dataDir, DATABASE_URL: undefined, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' };
  const start = () => launch(['start'], port, env);

  let server: Immogate = start();
  await waitReady(server);
  const tokens = await tokensFor(server.base, demoClientOf(server.stdout));
  await subscribe(tokens, receiver);

  const ack = acknowledged();
  const crashes: Crash[] = [];
  for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
    const load = new Load(tokens, media, ack, `c${killPostgresToo ? 2 : 1}-${cycle}`).start({ classifieds: 3, leads: 2 });
    const loadMs = 1_000 + Math.random() * 3_000;
    await sleep(loadMs);
    const postmaster = postmasterPid(dataDir);
    assert.ok(postmaster !== undefined && alive(postmaster));
    // In the second variant, every process of immogate at once, as the one process of before died:
    // the primary killed alone leaves its server child a moment to notice, in which it answers the
    // requests in flight, and with the database killed too that answer is a 503 (nothing
    // acknowledged, nothing lost, but not the connection error of a server that is gone). The
    // first variant kills the primary alone: its children exit by themselves, under load.
    const children = killPostgresToo ? childrenOf(server.pid).filter((pid) => pid !== postmaster) : [];
    const killedAt = Date.now();
    for (const child of children) process.kill(child, 'SIGKILL');
    server.child.kill('SIGKILL');
    if (killPostgresToo) process.kill(postmaster, 'SIGKILL');
    assert.deepEqual(await server.exited, { code: null, signal: 'SIGKILL' });
    await load.stop();

    server = start();
    const readyMs = await waitReady(server);
    crashes.push({ killedAt, resumedAt: forkedAt(server) });
    if (killPostgresToo) assert.notEqual(postmasterPid(dataDir), postmaster, 'the restart started the database anew');
    else assert.equal(postmasterPid(dataDir), postmaster, 'the restart adopts the running database');
    const url = embeddedUrl(dataDir);
    await assertNothingLost(url, ack);
    const caughtUpMs = await waitCaughtUp(() => url, receiver, server.startedAt, RECOVERY_MS);
    assert.equal(exitedAlready(server), false, 'the restarted process still runs');
    t.diagnostic(
      `cycle ${cycle}: killed after ${Math.round(loadMs)} ms of load; ready ${readyMs} ms after the restart, everything done after ${caughtUpMs} ms ` +
        `(acknowledged so far: ${ack.classifieds.size} classifieds, ${ack.leads.size} leads)`,
    );
  }

  const figures = await assertConsistent(embeddedUrl(dataDir), ack, receiver, media, crashes);
  t.diagnostic(
    `${figures.classifieds} classifieds, ${figures.leads} leads, ${figures.statusWebhooks} status webhooks; ` +
      `${figures.redelivered} notifications received twice (same webhook-id), ${figures.refetched} media downloaded again after a kill (${figures.refetchedAfterAnswer} of them answered before it)`,
  );
  const postmaster = postmasterPid(dataDir);
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  assert.equal(postmaster !== undefined && alive(postmaster), false, 'the embedded database was stopped');
}

/**
 * When the restarted immogate forked its server and worker, from its log: none of its processes
 * downloads anything before. Not the launch's time: a download the killed process sent just before
 * the kill can reach the media server (this busy process's event loop) after the new one was
 * launched, and is still the killed process's.
 */
function forkedAt(server: Immogate): number {
  const line = logLines(server).find((entry) => entry.msg === 'starting server and worker processes');
  assert.ok(line, `no "starting server and worker processes" in the restart's log:\n${server.stdout}`);
  return line.time as number;
}

describe('crash recovery under load', () => {
  it('kill -9 of immogate five times: every restart ready at once, everything acknowledged processed and notified once', VARIANT, (t) =>
    crashCycles(t, false),
  );
  it('kill -9 of immogate and its PostgreSQL five times: the same', VARIANT, (t) => crashCycles(t, true));
});
