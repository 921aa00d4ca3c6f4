/*
 * Blobs in an S3-compatible bucket. Uploads go straight to the bucket through a presigned PUT
 * whose signature covers the Content-Type, so a different type is refused by the store itself.
 * What a presigned PUT cannot do, and the caller must therefore check afterwards (HeadObject,
 * see stat): limit the size, and refuse a second PUT to the same URL within its lifetime.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config.js';
import { blobStoreUnavailable } from '../http/problems.js';
import type { BlobStat, BlobStore, PresignedUpload, PresignRequest } from './store.js';
import { assertSafeKey } from './keys.js';

function missing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey')
  );
}

/**
 * Whether the store itself failed rather than answered: no answer at all (the SDK's network and
 * timeout errors carry $metadata without being S3ServiceExceptions) or one of its 5xx, after the
 * SDK's own retries. Left as they are, socket codes such as ECONNREFUSED would read as a database
 * outage, and a 5xx as our bug.
 */
function unavailable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return (error.$metadata.httpStatusCode ?? 0) >= 500;
  return typeof error === 'object' && error !== null && '$metadata' in error;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // Checksums only where S3 demands them: a default checksum header in a presigned PUT
      // would have to be matched by every client's upload.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
      maxAttempts: 3,
    });
  }

  async presignUpload(request: PresignRequest): Promise<PresignedUpload> {
    assertSafeKey(request.key);
    const expiresAt = new Date(Date.now() + request.expiresInSeconds * 1000);
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: this.bucket, Key: request.key, ContentType: request.contentType }),
      {
        expiresIn: request.expiresInSeconds,
        // Signed, not hoisted into the query: the uploader must send exactly this Content-Type.
        signableHeaders: new Set(['content-type']),
      },
    );
    return { url, expiresAt };
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== undefined;
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    assertSafeKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (missing(error)) return undefined;
      throw unavailable(error) ? blobStoreUnavailable(error) : error;
    }
  }

  async read(key: string): Promise<Buffer | undefined> {
    assertSafeKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
    } catch (error) {
      if (missing(error)) return undefined;
      throw unavailable(error) ? blobStoreUnavailable(error) : error;
    }
  }

  async write(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertSafeKey(key);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }));
    } catch (error) {
      throw unavailable(error) ? blobStoreUnavailable(error) : error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      throw unavailable(error) ? blobStoreUnavailable(error) : error;
    }
  }
}
