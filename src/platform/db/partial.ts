/*
 * The temporary file a backup writes before it is whole: FILE.<pid>.partial beside FILE, renamed
 * to FILE at the end. A backup that fails removes its own; one that could not (kill -9, a crash,
 * a power cut) leaves it, and the next backup to the same FILE removes it, knowing it by its pid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { alive } from './embedded.js';

/** The temporary name of a backup to `file` written by this process. */
export function partialOf(file: string): string {
  return `${file}.${process.pid}.partial`;
}

/**
 * Removes the partial files of earlier backups to `file` whose process is gone, and returns their
 * names. One whose process runs is another backup's, under way, and is left; one with our own pid
 * is a predecessor's (pids repeat after a container restart), this backup not having begun.
 */
export function removeStalePartials(file: string): string[] {
  const dir = path.dirname(path.resolve(file));
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // No directory yet: no partial file in it either.
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.partial')) continue;
    const pid = name.slice(prefix.length, -'.partial'.length);
    if (!/^[1-9]\d*$/.test(pid) || (Number(pid) !== process.pid && alive(Number(pid)))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed.push(path.join(dir, name));
  }
  return removed;
}
