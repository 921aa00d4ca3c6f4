-- The integrator console: its sign-in sessions, and what the delivery view shows of each attempt.

-- One row per signed-in browser. The cookie carries a random value; only its SHA-256 is stored,
-- so a copy of this table opens no session. An integrator's session holds its client's tokens
-- (sealed, one per API audience), got from the token service at sign-in and reused by later
-- sign-ins of the same client, agency and environment while they live long enough.
CREATE TABLE console_sessions (
  id           text PRIMARY KEY,            -- hex SHA-256 of the cookie value
  kind         text NOT NULL CHECK (kind IN ('integrator', 'operator')),
  client_id    text REFERENCES clients (client_id) ON DELETE CASCADE,
  agency_id    text,
  environment  text CHECK (environment IN ('sandbox', 'production')),
  csrf_token   text NOT NULL,
  tokens       text,                        -- sealed JSON [{ audience, token, expiresAt }]
  tokens_expire_at timestamptz,             -- the earliest expiry among them
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  CHECK (kind = 'operator' OR (client_id IS NOT NULL AND agency_id IS NOT NULL AND environment IS NOT NULL AND tokens IS NOT NULL))
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
-- Sign-in: the tokens of the latest session of the same client, agency and environment.
CREATE INDEX console_sessions_tokens ON console_sessions (client_id, agency_id, environment, tokens_expire_at DESC) WHERE kind = 'integrator';

-- What each attempt sent and got back, for the delivery view: the request's headers (a header
-- carrying the secret masked) and the start of the receiver's answer.
ALTER TABLE webhook_attempts ADD COLUMN request_headers jsonb;
ALTER TABLE webhook_attempts ADD COLUMN response_body text;
ALTER TABLE webhook_attempts ADD COLUMN response_truncated boolean NOT NULL DEFAULT false;

-- A test event sent from the console or the API: a sample, delivered like any message.
ALTER TABLE webhook_deliveries ADD COLUMN test boolean NOT NULL DEFAULT false;
GRANT SELECT (test) ON webhook_deliveries TO immogate_tenant;

-- No index for the delivery views (newest first, per tenant): one on every delivery cost each lead's
-- POST about 0.7 ms of its 3 (npm run bench, leads), for a troubleshooting read of a table that
-- retention keeps to DELIVERY_RETENTION_DAYS.
