/*
 * Blobs in DATA_DIR/blobs, with presigned upload URLs signed by an HMAC key kept sealed in the
 * database; an upload is staged with a byte guard and becomes visible only when committed.
 */
import type { Sealer } from '../secrets/sealer.js';
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import type { BlobStat, BlobStore, PresignedUpload, PresignRequest } from './store.js';
import { assertSafeKey } from './keys.js';
import { codeOf } from '../caught.js';
import { PRIVATE_DIR, PRIVATE_FILE } from '../dataDir.js';
import { onlyRow } from '../db/pool.js';

export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the blob exceeds ${maxBytes} bytes`);
    this.name = 'BlobTooLarge';
  }
}

/** A received upload, not yet visible under its key. */
export interface StagedBlob {
  size: number;
  /** Hex MD5 of the bytes, the ETag S3 would give them. */
  md5: string;
  /** Makes the bytes the blob of its key (an atomic rename). */
  commit(): Promise<void>;
  /** Removes what was received; safe to call after commit or twice. */
  discard(): Promise<void>;
}

export type UploadVerdict = 'valid' | 'expired' | 'invalid';

export interface UploadGrant {
  key: string;
  contentType: string;
  maxBytes: number;
  /** Unix seconds. */
  expires: number;
}

function ignoreMissing(error: unknown): void {
  if (codeOf(error) !== 'ENOENT') throw error;
}

/**
 * Blobs as files under `<DATA_DIR>/blobs`: bytes in objects/<key>, the content type beside them
 * in meta/<key>.json, uploads staged in incoming/ (same file system, so publishing is a rename).
 * Presigned upload URLs point at immogate itself and carry an expiry and an HMAC over key,
 * content type, size limit and expiry, so none of them can be changed without the key.
 * Directories are made on first write: opening the store touches nothing on disk. Every file is
 * created 0600 in 0700 directories (dataDir.ts): the media of one agency are no local user's.
 */
const BLOB_KEY_PURPOSE = 'blob-signing-key';

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';

  constructor(
    readonly root: string,
    private readonly secret: Buffer,
  ) {}

  /** The store under `<dataDir>/blobs`, with the signing key shared through the database (created by the first process). */
  static async open(dataDir: string, pool: pg.Pool, sealer: Sealer): Promise<LocalBlobStore> {
    await pool.query('INSERT INTO blob_signing_keys (id, secret_sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
      sealer.seal(randomBytes(32), BLOB_KEY_PURPOSE),
    ]);
    const { rows } = await pool.query<{ secret_sealed: string }>('SELECT secret_sealed FROM blob_signing_keys WHERE id = 1');
    return new LocalBlobStore(path.join(dataDir, 'blobs'), sealer.unsealBytes(onlyRow(rows).secret_sealed, BLOB_KEY_PURPOSE));
  }

  private objectPath(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, 'objects', key);
  }

  private metaPath(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, 'meta', `${key}.json`);
  }

  private sign(grant: UploadGrant): string {
    return createHmac('sha256', this.secret)
      .update(['PUT', grant.key, grant.contentType, String(grant.maxBytes), String(grant.expires)].join('\n'))
      .digest('base64url');
  }

  /** The upload URL for a grant; presignUpload with an expiry chosen by the caller (tests sign expired ones). */
  uploadUrl(grant: UploadGrant, uploadBaseUrl: string): string {
    assertSafeKey(grant.key);
    return `${uploadBaseUrl}/${grant.key}?expires=${grant.expires}&signature=${this.sign(grant)}`;
  }

  async presignUpload(request: PresignRequest, now = Date.now()): Promise<PresignedUpload> {
    if (request.uploadBaseUrl === undefined) throw new Error('the local blob store needs the uploadBaseUrl of its upload route');
    const expires = Math.floor(now / 1000) + request.expiresInSeconds;
    const url = this.uploadUrl(
      { key: request.key, contentType: request.contentType, maxBytes: request.maxBytes, expires },
      request.uploadBaseUrl,
    );
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /** Checks an upload URL's query against the grant it should have been signed for; the signature first, so a forged expiry is 'invalid'. */
  verifyUpload(
    grant: Omit<UploadGrant, 'expires'> & { expires: string | undefined; signature: string | undefined },
    now = Date.now(),
  ): UploadVerdict {
    const { expires, signature } = grant;
    if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sign({ ...grant, expires: Number(expires) }));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= now ? 'expired' : 'valid';
  }

  /**
   * Streams `body` into a staging file, failing with BlobTooLarge as soon as it passes
   * `maxBytes` (the staging file is removed; the rest of the body is left unread, so the caller
   * can answer at once and close the connection).
   */
  async receive(key: string, body: Readable, options: { contentType: string; maxBytes: number }): Promise<StagedBlob> {
    const object = this.objectPath(key);
    const meta = this.metaPath(key);
    const incoming = path.join(this.root, 'incoming');
    await fsp.mkdir(incoming, { recursive: true, mode: PRIVATE_DIR });
    const staging = path.join(incoming, randomUUID());
    // Opened before anything can fail: a lazily opened stream could create the file after the clean-up below.
    const file = (await fsp.open(staging, 'wx', PRIVATE_FILE)).createWriteStream();
    const md5 = createHash('md5');
    let size = 0;
    try {
      await pipeline(
        // Not the request itself: pipeline would destroy it on failure, and its socket with it. A
        // stream without an encoding yields Buffers; its iterator is typed any.
        body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>,
        async function* guard(chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > options.maxBytes) throw new BlobTooLarge(options.maxBytes);
            md5.update(chunk);
            yield chunk;
          }
        },
        file,
      );
    } catch (error) {
      await fsp.rm(staging, { force: true });
      throw error;
    }
    const discard = () => fsp.rm(staging, { force: true });
    return {
      size,
      md5: md5.digest('hex'),
      discard,
      commit: async () => {
        await fsp.mkdir(path.dirname(object), { recursive: true, mode: PRIVATE_DIR });
        await this.writeMeta(meta, { contentType: options.contentType });
        await fsp.rename(staging, object);
      },
    };
  }

  async write(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const staged = await this.receive(key, Readable.from([bytes]), { contentType, maxBytes: bytes.length });
    await staged.commit().catch(async (error: unknown) => {
      await staged.discard();
      throw error;
    });
  }

  /**
   * Removes staging files a crash left in incoming/ (an upload cut off before its commit or
   * discard). A running upload writes to its file as bytes arrive, and is cut off by its request
   * deadline long before `olderThanMs` of silence, so only abandoned files are that old.
   */
  async sweepIncoming(olderThanMs: number, now = Date.now()): Promise<number> {
    const incoming = path.join(this.root, 'incoming');
    let names: string[];
    try {
      names = await fsp.readdir(incoming);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const file = path.join(incoming, name);
      const stat = await fsp.stat(file).catch(() => undefined);
      if (!stat?.isFile() || now - stat.mtimeMs < olderThanMs) continue;
      await fsp.rm(file, { force: true });
      removed += 1;
    }
    return removed;
  }

  private async writeMeta(meta: string, value: { contentType: string }): Promise<void> {
    await fsp.mkdir(path.dirname(meta), { recursive: true, mode: PRIVATE_DIR });
    const temporary = `${meta}.${randomUUID()}.tmp`;
    await fsp.writeFile(temporary, JSON.stringify(value), { mode: PRIVATE_FILE });
    await fsp.rename(temporary, meta);
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== undefined;
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      const [stats, meta] = await Promise.all([fsp.stat(this.objectPath(key)), fsp.readFile(this.metaPath(key), 'utf8')]);
      // The meta file is ours: commit() wrote it as { contentType }.
      return { size: stats.size, contentType: (JSON.parse(meta) as { contentType: string }).contentType };
    } catch (error) {
      ignoreMissing(error);
      return undefined;
    }
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.objectPath(key));
    } catch (error) {
      ignoreMissing(error);
      return undefined;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.objectPath(key), { force: true });
    await fsp.rm(this.metaPath(key), { force: true });
  }
}
