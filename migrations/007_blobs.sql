-- Blob storage. The local backend signs its presigned upload URLs with this HMAC key: created
-- once, shared by every process (a URL issued by one process is accepted by any other).
CREATE TABLE blob_signing_keys (
  id          smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  secret      bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Listing media: when an unattached media is swept. Set at creation (upload URL expiry plus a
-- grace period) and again when a listing lets go of it; NULL while attached.
ALTER TABLE listing_media ADD COLUMN delete_after timestamptz;
CREATE INDEX listing_media_sweep ON listing_media (delete_after) WHERE state <> 'ATTACHED';
