-- Each client holds the environments it may get tokens for. Clients that existed before keep both
-- (they could get either until now); new ones are created with what the operator gives, by
-- default the sandbox only.
ALTER TABLE clients ADD COLUMN environments text[] NOT NULL DEFAULT '{sandbox,production}';
ALTER TABLE clients ALTER COLUMN environments SET DEFAULT '{sandbox}';
ALTER TABLE clients ADD CONSTRAINT clients_environments_known
  CHECK (environments <> '{}' AND environments <@ '{sandbox,production}');

-- Failed client authentications, counted in fixed windows per client id and per source address,
-- in the database so that every process sees the same count.
CREATE TABLE auth_failures (
  kind              text NOT NULL CHECK (kind IN ('client', 'address')),
  key               text NOT NULL,
  window_started_at timestamptz NOT NULL,
  failures          integer NOT NULL,
  PRIMARY KEY (kind, key)
);

-- Failed authentications per known client and day (UTC), for the operator's report.
CREATE TABLE auth_failure_days (
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  day       date NOT NULL,
  failures  integer NOT NULL,
  PRIMARY KEY (client_id, day)
);
