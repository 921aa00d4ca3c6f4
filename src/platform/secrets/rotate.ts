/*
 * Re-wraps every stored secret's data key with a new key-encryption key, in one transaction.
 *
 * With SECRETS_KEY, the new key comes from `newKey` (SECRETS_KEY_NEW) and the operator sets it
 * afterwards. With the key file, the new key is written to `secrets.key.next` before anything is
 * re-wrapped (running processes read it when they meet a value sealed with it), and after the
 * commit it becomes `secrets.key`, the old one `secrets.key.previous`, still read until the
 * processes sealing with it have restarted.
 */
import fs from 'node:fs';
import type pg from 'pg';
import { Sealer, SecretsKeyError, kekId, keyFilePath, loadKeyring, newKeyText, parseKey, writeKeyFile, type KeySource } from './sealer.js';
import { rewrapAll, sealStoredSecrets, type SealedColumn } from './stored.js';

export interface Rotation {
  from: string;
  to: string;
  resealed: number;
  /** What the operator does next. */
  next: string;
}

export async function rotateKey(
  pool: pg.Pool,
  source: KeySource,
  columns: readonly SealedColumn[],
  newKey: string | undefined,
  progress: (message: string) => void,
): Promise<Rotation> {
  const fileMode = source.secretsKey === undefined || source.secretsKey === '';
  if (!fileMode && newKey === undefined) {
    throw new SecretsKeyError(
      'SECRETS_KEY is set: give the new key as SECRETS_KEY_NEW (or --new-key); create one with: openssl rand -base64 32',
    );
  }
  const ring = loadKeyring(source, { create: false });
  // Opens what is sealed with any key of the ring; re-wrapping needs no more (values already under the new key are left alone).
  const sealer = Sealer.withKeys(ring.current, ...ring.all.slice(1));
  // Clear values of an older version first, and a key in use that we lack stops here.
  await sealStoredSecrets(pool, sealer, columns);
  const targetText = newKey ?? newKeyText();
  const target = parseKey(targetText, newKey === undefined ? 'the new key' : 'SECRETS_KEY_NEW');
  if (kekId(target) === kekId(ring.current)) throw new SecretsKeyError('the new key is the current one');
  const next = keyFilePath(source.dataDir, '.next');
  if (fileMode) {
    fs.rmSync(next, { force: true });
    writeKeyFile(next, targetText);
  }
  const resealed = await rewrapAll(pool, sealer, target, columns, (table, done) => progress(`${table}: ${done} re-sealed`));
  const rotation = { from: kekId(ring.current), to: kekId(target), resealed };
  if (!fileMode) {
    return {
      ...rotation,
      next: 'set SECRETS_KEY to the new key on every process (with SECRETS_KEY_PREVIOUS set to the old one until all have restarted)',
    };
  }
  // The old key is linked aside before the new one replaces it in one rename: at no moment is
  // there no secrets.key (a process starting then would create a key of its own).
  const current = keyFilePath(source.dataDir);
  const previous = keyFilePath(source.dataDir, '.previous');
  fs.rmSync(previous, { force: true });
  fs.linkSync(current, previous);
  fs.renameSync(next, current);
  return { ...rotation, next: `${current} holds the new key; restart the running immogate processes, then delete ${previous}` };
}
