-- Classifieds ingestion v4. A write is acknowledged once its revision, its RECEIVED status and
-- its processing job are committed together; the worker then processes revisions in order.

CREATE TABLE classifieds (
  id                 uuid PRIMARY KEY,
  environment        text NOT NULL,
  agency_id          text NOT NULL,
  -- Creation order: the keyset of GET /classifieds (newest first). New classifieds get higher
  -- numbers, so paging from a cursor never meets them, and updates never move an item.
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  offerer_estate_id  text NOT NULL,
  -- The ETag: grows with every acknowledged write (POST 1, each PUT and DELETE +1).
  revision           integer NOT NULL,
  payload            jsonb NOT NULL,
  -- sha256 of the canonical payload: a PUT equal to the current revision is recorded as unchanged.
  payload_hash       text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  -- Set when a DELETE is acknowledged; the classified still reads until it is DELETED.
  delete_requested_at timestamptz,
  -- Set when processing reaches DELETED: from then on the classified is gone for reads and rules.
  deleted_at         timestamptz
);
CREATE UNIQUE INDEX classifieds_seq ON classifieds (seq);
CREATE INDEX classifieds_listing ON classifieds (environment, agency_id, seq DESC) WHERE deleted_at IS NULL;
-- One live classified per offererEstateId and offerer; a deleted one frees its id.
CREATE UNIQUE INDEX classifieds_offerer_estate_id ON classifieds (environment, agency_id, offerer_estate_id) WHERE deleted_at IS NULL;

-- Every acknowledged write, the payload it carried (none for DELETE), for the worker to process in order.
CREATE TABLE classified_revisions (
  classified_id  uuid NOT NULL REFERENCES classifieds (id) ON DELETE CASCADE,
  revision       integer NOT NULL,
  environment    text NOT NULL,
  agency_id      text NOT NULL,
  operation      text NOT NULL CHECK (operation IN ('POST', 'PUT', 'DELETE')),
  payload        jsonb,
  unchanged      boolean NOT NULL DEFAULT false,
  received_at    timestamptz NOT NULL DEFAULT now(),
  processed_at   timestamptz,
  PRIMARY KEY (classified_id, revision)
);

-- Media URLs of each live classified's latest revision, registered when the write is
-- acknowledged: a URL belongs to one classified of an offerer (the duplicated-media rule).
-- The worker keeps the download outcome here, so an unchanged URL is not fetched again.
CREATE TABLE classified_media (
  classified_id  uuid NOT NULL REFERENCES classifieds (id) ON DELETE CASCADE,
  url            text NOT NULL,
  environment    text NOT NULL,
  agency_id      text NOT NULL,
  media_id       uuid NOT NULL,
  -- Download outcome: NULL until fetched, then CREATED, DOWNLOADING_FAILED or CREATING_FAILED.
  fetch_status   text,
  content_type   text,
  size_bytes     bigint,
  fetched_at     timestamptz,
  -- The revision whose processing downloaded it: later revisions keeping the URL report UPDATED.
  fetched_revision integer,
  fetch_error    text,
  PRIMARY KEY (classified_id, url)
);
CREATE UNIQUE INDEX classified_media_url ON classified_media (environment, agency_id, url);

CREATE TABLE classified_statuses (
  seq                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  status_id           uuid NOT NULL UNIQUE,
  classified_id       uuid NOT NULL REFERENCES classifieds (id) ON DELETE CASCADE,
  environment         text NOT NULL,
  agency_id           text NOT NULL,
  revision            integer NOT NULL,
  status              text NOT NULL,
  sub_status          text,
  sub_status_details  text,
  message             text NOT NULL,
  stage               text NOT NULL CHECK (stage IN ('processed', 'analyzed', 'accepted', 'rejected')),
  portals             text[] NOT NULL,
  media_statuses      jsonb,
  status_date         timestamptz NOT NULL DEFAULT now(),
  -- A job that runs again after a crash produces each status of a revision once.
  UNIQUE (classified_id, revision, status)
);
CREATE INDEX classified_statuses_by_classified ON classified_statuses (classified_id, seq DESC);

SELECT immogate_isolate_tenant('classifieds');
SELECT immogate_isolate_tenant('classified_revisions');
SELECT immogate_isolate_tenant('classified_media');
SELECT immogate_isolate_tenant('classified_statuses');

-- Status webhooks: one subscription per client, offerer and environment (PUT /webhooks
-- replaces it). The secret keys the Standard Webhooks signature of its deliveries.
CREATE TABLE caas_webhook_subscriptions (
  environment  text NOT NULL,
  agency_id    text NOT NULL,
  client_id    text NOT NULL,
  -- Stable id for the delivery machinery and its audit.
  subscription_id uuid NOT NULL UNIQUE,
  url          text NOT NULL,
  -- NULL: every status.
  statuses     text[],
  secret       text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, agency_id, client_id)
);
SELECT immogate_isolate_tenant('caas_webhook_subscriptions');
