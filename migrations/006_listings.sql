-- Listing import v1 (German market): listings keyed by the client's externalListingId, and
-- media uploaded through presigned URLs.

CREATE TABLE listings (
  id                    uuid PRIMARY KEY,                -- the listingId
  -- Creation order: GET /listings pages by it.
  seq                   bigint GENERATED ALWAYS AS IDENTITY,
  environment           text NOT NULL,
  agency_id             text NOT NULL,
  external_listing_id   text NOT NULL,                   -- the client's offererEstateId
  estate_type           text NOT NULL,                   -- fixed at creation (rule 11)
  is_published          boolean NOT NULL DEFAULT true,
  request               jsonb NOT NULL,                  -- the last accepted apiRequest
  created_at            timestamptz NOT NULL DEFAULT now(),
  -- The last write: sandbox listings are deleted 90 days after it.
  last_write_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX listings_seq ON listings (seq);
CREATE UNIQUE INDEX listings_external_id ON listings (environment, agency_id, external_listing_id);
CREATE INDEX listings_paging ON listings (environment, agency_id, seq);
CREATE INDEX listings_sandbox_retention ON listings (last_write_at) WHERE environment = 'sandbox';

CREATE TABLE listing_media (
  environment           text NOT NULL,
  agency_id             text NOT NULL,
  external_media_id     text NOT NULL,
  file_name             text NOT NULL,
  -- Where the blob store keeps the bytes once uploaded.
  storage_key           text NOT NULL UNIQUE,
  state                 text NOT NULL CHECK (state IN ('AWAITING_UPLOAD', 'UPLOADED', 'ATTACHED')),
  content_type          text,
  size_bytes            bigint,
  upload_expires_at     timestamptz NOT NULL,
  listing_id            uuid REFERENCES listings (id) ON DELETE SET NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  uploaded_at           timestamptz,
  PRIMARY KEY (environment, agency_id, external_media_id)
);
CREATE INDEX listing_media_unattached ON listing_media (created_at) WHERE state <> 'ATTACHED';

SELECT immogate_isolate_tenant('listings');
SELECT immogate_isolate_tenant('listing_media');
