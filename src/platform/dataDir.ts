/*
 * What immogate keeps under DATA_DIR is no other local user's to read: every agency's uploaded
 * media (blobs/), the secrets key, the embedded PostgreSQL's password and log. Files are created
 * 0600 in 0700 directories, and what an earlier version, a copy or a restore left looser is
 * tightened at start.
 *
 * The one opening: run as root, the embedded PostgreSQL runs as the user postgres, which must
 * pass through DATA_DIR and DATA_DIR/postgres to reach its cluster. Those two are then 0710 with
 * the group of postgres: that user may pass, no other may even list them. The cluster itself is
 * PostgreSQL's: it creates it 0700 with 0600 files and refuses to start on a looser one, so it is
 * left alone here (tightening it as root would be harmless, but it is postgres's, not ours).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { codeOf } from './caught.js';

/** The modes of what immogate creates under DATA_DIR. */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;
/** DATA_DIR and DATA_DIR/postgres when the user postgres must pass through them: its group may enter, nobody else. */
const PASSAGE_DIR = 0o710;

/** The directory of the embedded PostgreSQL under DATA_DIR; its cluster lives below it. */
export const POSTGRES_DIR = 'postgres';

export interface SystemUser {
  uid: number;
  gid: number;
}

/** uid/gid the embedded PostgreSQL runs as when this process is root (PostgreSQL refuses to run as root). */
export function postgresUser(): SystemUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Whether `name`, directly under DATA_DIR/postgres, is PostgreSQL's own (the cluster, or one being initialised). */
function clusterEntry(name: string): boolean {
  return name === 'cluster' || name.startsWith('cluster.init-');
}

/** Creates `dir` 0700 unless it exists; its missing parents get the modes they would get without us. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.mkdirSync(dir, { mode: PRIVATE_DIR });
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

/**
 * Makes `dir` (DATA_DIR or DATA_DIR/postgres) a directory `user` may pass through to the cluster:
 * group `user.gid`, mode 0710. Without a user (not root), a private 0700 directory.
 */
export function makePassage(dir: string, user: SystemUser | undefined): void {
  // The parents as they would be without us: postgres may need to pass them too.
  makePrivateDir(dir);
  if (user === undefined) {
    fs.chmodSync(dir, PRIVATE_DIR);
    return;
  }
  const stat = fs.statSync(dir);
  if (stat.gid !== user.gid) fs.chownSync(dir, stat.uid, user.gid);
  fs.chmodSync(dir, PASSAGE_DIR);
}

/**
 * Takes group and other access away from everything under `dataDir` but the PostgreSQL cluster
 * and the files of `leave` (symbolic links are left as they are, not followed). With the embedded
 * database run as root, DATA_DIR and DATA_DIR/postgres are left passable by postgres
 * (makePassage). Returns the paths whose mode changed; a DATA_DIR that does not exist yet is none.
 */
export async function tightenDataDir(dataDir: string, options: { embedded: boolean; leave?: readonly string[] }): Promise<string[]> {
  const leave = new Set(options.leave ?? []);
  const user = options.embedded ? postgresUser() : undefined;
  const passages = new Set(user ? [dataDir, path.join(dataDir, POSTGRES_DIR)] : []);
  const changed: string[] = [];
  // Another process may remove a file meanwhile (a finished upload's staging file): gone is private enough.
  const statOf = (file: string) =>
    fsp.lstat(file).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    });
  const tighten = async (file: string, stat: fs.Stats) => {
    const target = stat.mode & PRIVATE_DIR;
    if ((stat.mode & 0o777) === target) return;
    await fsp.chmod(file, target);
    changed.push(file);
  };
  const top = await statOf(dataDir);
  if (!top?.isDirectory()) return changed;
  // Iterative: DATA_DIR/blobs may hold a deep tree of keys.
  const pending: string[] = [dataDir];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const stat = await statOf(dir);
    if (!stat) continue;
    if (user && passages.has(dir)) {
      if ((stat.mode & 0o777) !== PASSAGE_DIR || stat.gid !== user.gid) changed.push(dir);
      makePassage(dir, user);
    } else {
      await tighten(dir, stat);
    }
    const inPostgres = dir === path.join(dataDir, POSTGRES_DIR);
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      if (inPostgres && clusterEntry(entry.name)) continue;
      const file = path.join(dir, entry.name);
      if (leave.has(file)) continue;
      if (entry.isDirectory()) pending.push(file);
      else if (entry.isFile()) {
        const fileStat = await statOf(file);
        if (fileStat) await tighten(file, fileStat);
      }
    }
  }
  return changed;
}
