/*
 * Files under DATA_DIR are no other local user's: immogate creates them 0600 in 0700 directories,
 * and tightens at start what was left looser (an earlier version, a copy, a restore). Run as
 * root, as this suite is, the embedded PostgreSQL runs as the user postgres: DATA_DIR and
 * DATA_DIR/postgres are then 0710 with postgres's group so that it can reach its cluster (which
 * keeps PostgreSQL's own modes), and the database still starts, first time and after tightening.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/log.js';
import { startServices, type Services } from '../../src/runtime.js';
import { CapturedLogs, freePort, http, USER_AGENT } from '../helpers.js';
import { removeDataDir, temporaryDataDir } from '../processes.js';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7), Buffer.from([0xff, 0xd9])]);
const ROOT = '/sandbox/import-listings/v1';
const AS_ROOT = process.getuid?.() === 0;
const POSTGRES_GID = AS_ROOT ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;

const dataDir = temporaryDataDir('immogate-modes-');
after(() => removeDataDir(dataDir));

/** immogate on the embedded database of `dataDir`, its warnings captured; the demo client's credentials of a first start. */
async function start(logs: CapturedLogs): Promise<{ services: Services; base: string; demo?: { clientId: string; secret: string } }> {
  const port = await freePort();
  const config = loadConfig({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  let demo: { clientId: string; secret: string } | undefined;
  const services = await startServices(
    config,
    createLogger(config, logs.stream),
    { server: true, worker: false },
    {
      onFirstRun: (message) => {
        const found = /client_id: +(\S+)\n +client_secret: (\S+)/.exec(message);
        if (found?.[1] && found[2]) demo = { clientId: found[1], secret: found[2] };
      },
    },
  );
  return { services, base: config.publicUrl, demo };
}

/** Every path under DATA_DIR with its mode and group, but inside the PostgreSQL cluster. */
function modes(): Map<string, { mode: number; gid: number; directory: boolean }> {
  const found = new Map<string, { mode: number; gid: number; directory: boolean }>();
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const relative = path.relative(dataDir, file);
      if (relative === 'postgres/cluster') continue;
      const stat = fs.lstatSync(file);
      found.set(relative, { mode: stat.mode & 0o777, gid: stat.gid, directory: entry.isDirectory() });
      if (entry.isDirectory()) visit(file);
    }
  };
  visit(dataDir);
  return found;
}

/** Files 0600, directories 0700; DATA_DIR and DATA_DIR/postgres 0710 with postgres's group (root), or 0700. */
function assertPrivate(): void {
  const top = fs.statSync(dataDir);
  const passage = AS_ROOT ? 0o710 : 0o700;
  assert.equal((top.mode & 0o777).toString(8), passage.toString(8), 'DATA_DIR');
  if (AS_ROOT) assert.equal(top.gid, POSTGRES_GID, 'DATA_DIR is of the group postgres');
  const found = modes();
  assert.ok(found.size > 5, `only ${[...found.keys()].join(', ')}`);
  for (const [file, { mode, gid, directory }] of found) {
    if (file === 'postgres') {
      assert.equal(mode.toString(8), passage.toString(8), file);
      if (AS_ROOT) assert.equal(gid, POSTGRES_GID, `${file} is of the group postgres`);
    } else assert.equal(mode.toString(8), (directory ? 0o700 : 0o600).toString(8), file);
  }
  // The cluster keeps PostgreSQL's own mode (and owner, when we are root).
  assert.equal((fs.statSync(path.join(dataDir, 'postgres', 'cluster')).mode & 0o777).toString(8), '700');
}

/** A media uploaded through the listing import: a new blob, its meta and a staging file, written now. */
async function upload(base: string, demo: { clientId: string; secret: string }, externalMediaId: string): Promise<void> {
  const granted = await http('POST', `${base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: demo.clientId,
      client_secret: demo.secret,
      audience: base + ROOT,
      intermediary_id: 'demo-agency',
    },
  });
  const token = (granted.body as { access_token: string }).access_token;
  const media = await http('POST', `${base}${ROOT}/medias`, {
    headers: { authorization: `Bearer ${token}` },
    body: { externalMediaId, fileName: 'photo.jpg' },
  });
  assert.equal(media.status, 201, media.text);
  const url = (media.body as { presignedURL: string }).presignedURL;
  const put = await fetch(url, { method: 'PUT', headers: { 'user-agent': USER_AGENT, 'content-type': 'image/jpeg' }, body: JPEG });
  assert.equal(put.status, 200, await put.text());
}

/**
 * Opens everything up as a careless copy would: directories 0755, files 0644, DATA_DIR's group
 * root's. All but the secrets key, which a start refuses rather than tightens when others can
 * read it (test/platform/secrets-at-rest.test.ts): it may have been copied meanwhile.
 */
function loosen(): void {
  fs.chmodSync(dataDir, 0o755);
  if (AS_ROOT) fs.chownSync(dataDir, 0, 0);
  for (const [file, { directory }] of modes()) {
    if (file !== 'secrets.key') fs.chmodSync(path.join(dataDir, file), directory ? 0o755 : 0o644);
  }
}

describe('DATA_DIR file modes', () => {
  it('a first start creates everything private (postgres may still reach its cluster), and so does an upload', async () => {
    // What an older version left: a stray upload and a log, readable by all.
    fs.mkdirSync(path.join(dataDir, 'blobs', 'incoming'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'blobs', 'incoming', 'left-over'), 'bytes', { mode: 0o644 });
    fs.writeFileSync(path.join(dataDir, 'old.log'), 'lines', { mode: 0o644 });
    const logs = new CapturedLogs();
    const { services, base, demo } = await start(logs);
    try {
      assert.equal((await http('GET', `${base}/ready`)).status, 200);
      assert.ok(demo);
      await upload(base, demo, 'first-photo');
      assert.ok(fs.readdirSync(path.join(dataDir, 'blobs', 'objects'), { recursive: true }).length > 0);
      assertPrivate();
      const [line] = logs.withMessage('took group and other access away from files under DATA_DIR');
      assert.deepEqual(line, {
        level: 40,
        time: line?.time,
        service: 'immogate',
        dataDir,
        // DATA_DIR, blobs/, blobs/incoming/, the left-over upload and the log.
        tightened: 5,
        msg: 'took group and other access away from files under DATA_DIR',
      });
    } finally {
      await services.stop();
    }
  });

  it('a later start tightens what was opened up meanwhile, and the embedded PostgreSQL still starts', async () => {
    loosen();
    assert.equal(fs.statSync(path.join(dataDir, 'postgres', 'password')).mode & 0o777, 0o644);
    const logs = new CapturedLogs();
    const { services, base } = await start(logs);
    try {
      assert.equal((await http('GET', `${base}/ready`)).status, 200);
      assertPrivate();
      assert.equal(logs.withMessage('took group and other access away from files under DATA_DIR').length, 1);
    } finally {
      await services.stop();
    }
  });
});
