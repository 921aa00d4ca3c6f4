-- Lead API v1: leads received by agencies, and their webhook subscriptions.

CREATE TABLE leads (
  id               uuid PRIMARY KEY,               -- the leadId
  -- Ingestion order: GET /leads pages by it (`start` names the last lead of the previous page).
  seq              bigint GENERATED ALWAYS AS IDENTITY,
  environment      text NOT NULL,
  agency_id        text NOT NULL,
  request_id       uuid NOT NULL,
  category         text NOT NULL DEFAULT 'CLASSIFIED',
  classified_id    text,
  ingested_at      timestamptz NOT NULL DEFAULT now(),
  submitted_at     timestamptz NOT NULL,
  -- The author's personal data; erasure (GDPR) nulls these and empties phone_numbers.
  email            text NOT NULL,
  first_name       text,
  last_name        text,
  gender           text,
  language         text,
  phone_numbers    jsonb NOT NULL DEFAULT '[]',
  message          text,
  erased_at        timestamptz
);
CREATE UNIQUE INDEX leads_seq ON leads (seq);
CREATE INDEX leads_by_ingestion ON leads (environment, agency_id, ingested_at, seq);
-- Erasure finds every lead of an author, whatever the agency.
CREATE INDEX leads_by_email ON leads (lower(email));

CREATE TABLE lead_webhook_subscriptions (
  id               uuid PRIMARY KEY,               -- the subscriptionId
  environment      text NOT NULL,
  agency_id        text NOT NULL,
  url              text NOT NULL,
  -- Sent as X-Api-Key and keys the signature; write-only in the API.
  api_key          text NOT NULL,
  status           text NOT NULL CHECK (status IN ('ACTIVE', 'INACTIVE')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lead_webhook_subscriptions_agency ON lead_webhook_subscriptions (environment, agency_id);

SELECT immogate_isolate_tenant('leads');
SELECT immogate_isolate_tenant('lead_webhook_subscriptions');
