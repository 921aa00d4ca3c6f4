/*
 * Envelope encryption of the secrets immogate must keep readable (the token signing key, webhook
 * secrets, lead subscription apiKeys, the upload-URL signing key): each value is encrypted with a
 * data key of its own (AES-256-GCM), and the data key with the key-encryption key (KEK), which
 * lives outside the database: SECRETS_KEY, or DATA_DIR/secrets.key. A dump or backup of the
 * database alone then reveals none of them; rotating the KEK re-wraps the data keys only.
 *
 * A sealed value is text: `ig1.<kek id>.<wrapped data key>.<ciphertext>`, the last two base64url
 * of nonce, ciphertext and tag, the KEK id being the first 8 bytes of the KEK's SHA-256 in hex. The purpose (e.g.
 * `signing-key:<kid>`) is authenticated data of both layers: a value moved to serve another
 * purpose does not open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { messageOf, codeOf } from '../caught.js';
import { makePrivateDir } from '../dataDir.js';

const VERSION = 'ig1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_FILE = 'secrets.key';

export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

export interface KeySource {
  /** SECRETS_KEY: the current KEK, base64/base64url (32 bytes) or 64 hex digits. */
  secretsKey: string | undefined;
  /** SECRETS_KEY_PREVIOUS: KEKs values may still be sealed with during a rotation, comma-separated. */
  previousKeys: readonly string[];
  /** Where the key file lives when SECRETS_KEY is not set. */
  dataDir: string;
}

export function kekId(kek: Buffer): string {
  return createHash('sha256').update(kek).digest('hex').slice(0, 16);
}

export function parseKey(text: string, name: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, /[-_]/.test(value) ? 'base64url' : 'base64');
  if (key.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(value) && !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value))) {
    throw new SecretsKeyError(
      `${name} must be ${KEY_BYTES} random bytes, as base64 or 64 hex digits (create one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

export function newKeyText(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

export function keyFilePath(dataDir: string, suffix = ''): string {
  return path.join(dataDir, KEY_FILE + suffix);
}

/** A key file readable by others defeats keeping the key out of the database: refused, as ssh refuses such keys. */
function readKeyFile(file: string): Buffer | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  if ((stat.mode & 0o077) !== 0) {
    throw new SecretsKeyError(`${file} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it`);
  }
  return parseKey(fs.readFileSync(file, 'utf8'), file);
}

/**
 * Creates `file` holding `text`, mode 0600, failing with EEXIST if it exists. Written under a
 * temporary name, then hard-linked into place: a crash never leaves half a key behind, and of
 * processes starting together exactly one creates the key (a rename would let a later one
 * replace a key the first has already used).
 */
export function writeKeyFile(file: string, text: string): void {
  makePrivateDir(path.dirname(file));
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, `${text}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * The KEKs of this process: the current one (sealing), and those it may still open. From
 * SECRETS_KEY (and SECRETS_KEY_PREVIOUS), or else from DATA_DIR/secrets.key, created with mode
 * 0600 at first start; `secrets.key.previous` and `secrets.key.next` are read too, so a
 * rotation (`immogate secrets rotate-key`) never leaves a running process without its key.
 */
export function loadKeyring(source: KeySource, options: { create: boolean }): { current: Buffer; all: Buffer[] } {
  if (source.secretsKey !== undefined && source.secretsKey !== '') {
    const current = parseKey(source.secretsKey, 'SECRETS_KEY');
    return { current, all: [current, ...source.previousKeys.map((key) => parseKey(key, 'SECRETS_KEY_PREVIOUS'))] };
  }
  const file = keyFilePath(source.dataDir);
  let current = readKeyFile(file);
  if (!current) {
    if (!options.create) throw new SecretsKeyError(`no key-encryption key: set SECRETS_KEY, or run immogate once to create ${file}`);
    try {
      writeKeyFile(file, newKeyText());
    } catch (error) {
      // Another process created it first.
      if (codeOf(error) !== 'EEXIST') throw new SecretsKeyError(`cannot create ${file}: ${messageOf(error)}`);
    }
    current = readKeyFile(file);
    if (!current) throw new SecretsKeyError(`cannot read ${file} after creating it`);
  }
  const others = ['.next', '.previous']
    .map((suffix) => readKeyFile(keyFilePath(source.dataDir, suffix)))
    .filter((key): key is Buffer => key !== undefined);
  return { current, all: [current, ...others] };
}

function encrypt(key: Buffer, plain: Buffer, purpose: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(purpose));
  return Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

function decrypt(key: Buffer, sealed: Buffer, purpose: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
}

const SEALED = /^ig1\.([0-9a-f]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/** The parts of a sealed value: its KEK id, its wrapped data key and its body (both base64url). */
function partsOf(sealed: string, purpose: string): { id: string; wrapped: string; body: string } {
  const [, id, wrapped, body] = SEALED.exec(sealed) ?? [];
  if (id === undefined || wrapped === undefined || body === undefined) {
    throw new SecretsKeyError(`a stored ${purpose.split(':')[0]} is not sealed by immogate`);
  }
  return { id, wrapped, body };
}

/** The KEK id a sealed value needs, or undefined for a value that is not sealed. */
export function sealedWith(sealed: string): string | undefined {
  return SEALED.exec(sealed)?.[1];
}

export class Sealer {
  private keys = new Map<string, Buffer>();
  private currentKey!: Buffer;
  private lastReload = 0;

  private constructor(private readonly reload: (() => { current: Buffer; all: Buffer[] }) | undefined) {}

  /** The sealer of a process: its keyring from `source`, read again when a value needs a key it lacks (a rotation). */
  static open(source: KeySource): Sealer {
    const sealer = new Sealer(() => loadKeyring(source, { create: false }));
    sealer.use(loadKeyring(source, { create: true }));
    return sealer;
  }

  /** A sealer of fixed keys, the first sealing (tests, and the rotation command). */
  static withKeys(current: Buffer, ...others: Buffer[]): Sealer {
    const sealer = new Sealer(undefined);
    sealer.use({ current, all: [current, ...others] });
    return sealer;
  }

  private use(ring: { current: Buffer; all: Buffer[] }): void {
    this.currentKey = ring.current;
    this.keys = new Map(ring.all.map((key) => [kekId(key), key]));
  }

  get currentId(): string {
    return kekId(this.currentKey);
  }

  has(id: string): boolean {
    return this.keys.has(id);
  }

  seal(plain: string | Buffer, purpose: string): string {
    const dataKey = randomBytes(KEY_BYTES);
    const id = this.currentId;
    const wrapped = encrypt(this.currentKey, dataKey, `${VERSION}.${id}.${purpose}`);
    const body = encrypt(dataKey, typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain, purpose);
    return `${VERSION}.${id}.${wrapped.toString('base64url')}.${body.toString('base64url')}`;
  }

  unsealBytes(sealed: string, purpose: string): Buffer {
    const { id, wrapped, body } = partsOf(sealed, purpose);
    const key = this.keyFor(id);
    try {
      const dataKey = decrypt(key, Buffer.from(wrapped, 'base64url'), `${VERSION}.${id}.${purpose}`);
      return decrypt(dataKey, Buffer.from(body, 'base64url'), purpose);
    } catch {
      throw new SecretsKeyError(`a stored ${purpose.split(':')[0]} does not open with its key: it was altered or moved`);
    }
  }

  unseal(sealed: string, purpose: string): string {
    return this.unsealBytes(sealed, purpose).toString('utf8');
  }

  /** The same value with its data key wrapped by `target` instead: the body stays as it is. */
  rewrap(sealed: string, purpose: string, target: Buffer): string {
    const { id, wrapped, body } = partsOf(sealed, purpose);
    const dataKey = decrypt(this.keyFor(id), Buffer.from(wrapped, 'base64url'), `${VERSION}.${id}.${purpose}`);
    const targetId = kekId(target);
    return `${VERSION}.${targetId}.${encrypt(target, dataKey, `${VERSION}.${targetId}.${purpose}`).toString('base64url')}.${body}`;
  }

  private keyFor(id: string): Buffer {
    let key = this.keys.get(id);
    // A key we lack may be one a rotation made meanwhile: the key files are read again, at most once a second.
    if (!key && this.reload && Date.now() - this.lastReload > 1000) {
      this.lastReload = Date.now();
      this.use(this.reload());
      key = this.keys.get(id);
    }
    if (!key) {
      throw new SecretsKeyError(
        `a stored secret is sealed with key ${id}, which this process does not have: give it that key (SECRETS_KEY or DATA_DIR/${KEY_FILE}) as the process that stored it has`,
      );
    }
    return key;
  }
}

const sealers = new WeakMap<object, Sealer>();

/**
 * The sealer of a configuration, opened once: every part of a process that stores or reads a
 * secret asks for it here, so the keyring is read (or the key file created) once.
 */
export function sealerFor(config: KeyConfig): Sealer {
  let sealer = sealers.get(config);
  if (!sealer) {
    sealer = Sealer.open(keySourceOf(config));
    sealers.set(config, sealer);
  }
  return sealer;
}

/** The settings the keys come from (a Config has them). */
export interface KeyConfig {
  secretsKey: string | undefined;
  secretsKeyPrevious: readonly string[];
  dataDir: string;
}

export function keySourceOf(config: KeyConfig): KeySource {
  return { secretsKey: config.secretsKey, previousKeys: config.secretsKeyPrevious, dataDir: config.dataDir };
}
