/*
 * Opens the configured blob store.
 */
import { sealerFor } from '../secrets/sealer.js';
import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import { LocalBlobStore } from './local.js';
import type { BlobStore } from './store.js';

export type { BlobStat, BlobStore, PresignedUpload, PresignRequest } from './store.js';
export { assertSafeKey, isSafeKey } from './keys.js';

/** The configured backend: S3 when S3_ENDPOINT and S3_BUCKET are set, otherwise DATA_DIR/blobs. */
export async function openBlobStore(config: Config, pool: Pool): Promise<BlobStore> {
  // The AWS SDK only where it is used: loading it costs every process (and CLI call) about 0.3 s of CPU.
  if (config.s3) return new (await import('./s3.js')).S3BlobStore(config.s3);
  return LocalBlobStore.open(config.dataDir, pool, sealerFor(config));
}

export { LocalBlobStore };
