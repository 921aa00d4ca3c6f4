-- Outbound webhook deliveries, shared by every API that notifies receivers (classifieds status
-- webhooks, lead notifications). One row per message; one attempt row per HTTP call.

CREATE TABLE webhook_deliveries (
  -- Also the webhook-id header: the same on every attempt, so receivers can drop duplicates.
  id               uuid PRIMARY KEY,
  environment      text NOT NULL,
  agency_id        text NOT NULL,
  source           text NOT NULL,           -- the API that owns the subscription: 'caas', 'leads'
  subscription_id  text NOT NULL,           -- unique within its source
  url              text NOT NULL,
  payload          jsonb NOT NULL,
  -- The signing key (for leads, the subscription's apiKey) and extra headers (X-Api-Key), kept
  -- because every retry must sign again. The request role cannot read either (column grants below).
  secret           text NOT NULL,
  headers          jsonb NOT NULL DEFAULT '{}',
  state            text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DELIVERED', 'FAILED', 'CANCELLED')),
  attempts         integer NOT NULL DEFAULT 0,  -- every attempt ever made; numbers the attempt rows
  round_attempts   integer NOT NULL DEFAULT 0,  -- attempts since (re)scheduling; indexes the retry schedule
  -- PENDING: when the next attempt is due; while an attempt runs, the end of its lease.
  next_attempt_at  timestamptz,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- A pending delivery always has a due time: its job compares against it.
  CHECK (state <> 'PENDING' OR next_attempt_at IS NOT NULL)
);
-- redeliver(): the failed deliveries of a source since a time.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (source, created_at) WHERE state = 'FAILED';
-- cancelDeliveries() / retargetDeliveries(): the open deliveries of a subscription.
CREATE INDEX webhook_deliveries_open ON webhook_deliveries (source, subscription_id) WHERE state IN ('PENDING', 'FAILED');
-- The audit's last success of a subscription.
CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (source, subscription_id, delivered_at DESC) WHERE delivered_at IS NOT NULL;

CREATE TABLE webhook_attempts (
  delivery_id      uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  -- Copied from the delivery so the audit reads one table and tenant isolation applies here too.
  environment      text NOT NULL,
  agency_id        text NOT NULL,
  source           text NOT NULL,
  subscription_id  text NOT NULL,
  attempted_at     timestamptz NOT NULL DEFAULT now(),
  status_code      integer,                 -- null: no HTTP answer (see error)
  latency_ms       integer,                 -- null while the attempt runs (or if it never finished)
  error            text,                    -- null on success
  PRIMARY KEY (delivery_id, attempt)
);
-- The audit: the most recent attempts of a subscription.
CREATE INDEX webhook_attempts_recent ON webhook_attempts (source, subscription_id, attempted_at DESC);

-- Request-path code reads the audit and schedules deliveries under withTenant.
SELECT immogate_isolate_tenant('webhook_deliveries');
SELECT immogate_isolate_tenant('webhook_attempts');
-- The tenant role may write the secret and headers (scheduling, key rotation) but never read them back:
-- a request handler cannot leak what it cannot select.
REVOKE SELECT ON webhook_deliveries FROM immogate_tenant;
GRANT SELECT (id, environment, agency_id, source, subscription_id, url, payload, state, attempts, round_attempts,
              next_attempt_at, delivered_at, created_at) ON webhook_deliveries TO immogate_tenant;
