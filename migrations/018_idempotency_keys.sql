-- Idempotency-Key on the POSTs of the API roots (README "Idempotent writes: Idempotency-Key"):
-- the first request with a key claims its row (state running), its answer is stored there once
-- sent (state done), and a retry with the same key gets that answer again. A key is the caller's
-- own: client, environment and agency are part of the primary key, so another client's key never
-- matches. Not a tenant table: only the platform's hook reads it, outside the tenant's transaction,
-- and every statement names the whole key.
CREATE TABLE idempotency_keys (
  client_id text NOT NULL,
  environment text NOT NULL,
  agency_id text NOT NULL,
  key text NOT NULL,
  -- sha256 of the request body's bytes: the same key with another body is refused.
  request_hash bytea NOT NULL,
  path text NOT NULL,
  -- Who holds the row while it runs: a takeover (the first holder died) changes it, so the first
  -- holder's late answer is not stored over the second's.
  claim uuid NOT NULL UNIQUE,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  started_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- The answer (status, headers, body as JSON), sealed like the other secrets: a subscription's
  -- answer carries its webhook secret.
  answer text,
  PRIMARY KEY (client_id, environment, agency_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
