/*
 * What every blob store offers (local directory or S3): presigned uploads, stat, delete.
 */
/* What every blob backend implements; index.ts picks the configured one. */
/** How a blob was stored: its byte count and the content type it was uploaded with. */
export interface BlobStat {
  size: number;
  contentType: string;
}

export interface PresignRequest {
  key: string;
  /** The Content-Type the upload must carry. */
  contentType: string;
  /** The most bytes the upload may have (enforced by the local backend; S3 cannot, see s3.ts). */
  maxBytes: number;
  expiresInSeconds: number;
  /** Local backend only: the URL the PUT goes to, without the key (S3 URLs point at the bucket). */
  uploadBaseUrl?: string;
}

export interface PresignedUpload {
  url: string;
  expiresAt: Date;
}

/**
 * Where uploaded media bytes live. Clients upload directly through a presigned PUT URL, so the
 * API never holds a 40 MB body in memory; everything else is by key.
 */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  presignUpload(request: PresignRequest): Promise<PresignedUpload>;
  exists(key: string): Promise<boolean>;
  stat(key: string): Promise<BlobStat | undefined>;
  /** The whole blob; meant for small blobs and checks, not for serving 40 MB videos. */
  read(key: string): Promise<Buffer | undefined>;
  /** Stores bytes immogate holds itself (an OpenImmo ZIP's pictures) under `key`, replacing what was there. */
  write(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Deleting a missing blob is not an error. */
  delete(key: string): Promise<void>;
}
