-- Platform: API clients, token signing keys, token issuance log, tenant isolation.

CREATE TABLE clients (
  client_id         text PRIMARY KEY,
  name              text NOT NULL,
  -- scrypt$N$r$p$salt$hash (base64url); the secret itself is never stored.
  secret_hash       text NOT NULL,
  scopes            text[] NOT NULL,
  intermediaries    text[] NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  secret_rotated_at timestamptz,
  disabled_at       timestamptz
);

-- Every process signs with the newest key and verifies with all of them, so a key written by
-- one process is used by all (the private half never leaves the database).
CREATE TABLE signing_keys (
  kid          text PRIMARY KEY,
  algorithm    text NOT NULL,
  private_jwk  jsonb NOT NULL,
  public_jwk   jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- One row per issued token: the operator's report shows clients that fetch a token per call.
CREATE TABLE token_issuance (
  jti              uuid PRIMARY KEY,
  client_id        text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  audience         text NOT NULL,
  intermediary_id  text NOT NULL,
  scope            text NOT NULL,
  issued_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX token_issuance_client_day ON token_issuance (client_id, issued_at);

-- Tenant isolation. Requests run their queries under the role immogate_tenant with the
-- environment and agency of their token in two settings; row-level security on every
-- tenant table then hides and refuses every row outside them, whatever a query says.
DO $$
BEGIN
  CREATE ROLE immogate_tenant NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- roles are cluster-wide: another database of the cluster created it
END
$$;

DO $$
BEGIN
  EXECUTE format('GRANT immogate_tenant TO %I', current_user);
EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
  NULL; -- superusers may SET ROLE without membership
END
$$;

GRANT USAGE ON SCHEMA public TO immogate_tenant;

-- Call once per tenant table (again after adding a serial column: it is idempotent). The
-- tenant role also needs USAGE on the table's serial sequences, or its INSERTs fail on nextval().
CREATE FUNCTION immogate_isolate_tenant(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  seq regclass;
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %s', tbl);
  EXECUTE format(
    'CREATE POLICY tenant_isolation ON %s
       USING (environment = current_setting(''immogate.environment'', true)
              AND agency_id = current_setting(''immogate.agency_id'', true))
       WITH CHECK (environment = current_setting(''immogate.environment'', true)
              AND agency_id = current_setting(''immogate.agency_id'', true))', tbl);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO immogate_tenant', tbl);
  FOR seq IN
    SELECT d.objid::regclass FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
    WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
      AND d.refobjid = tbl AND s.relkind = 'S' AND d.deptype IN ('a', 'i')
  LOOP
    EXECUTE format('GRANT USAGE ON SEQUENCE %s TO immogate_tenant', seq);
  END LOOP;
END
$$;
REVOKE ALL ON FUNCTION immogate_isolate_tenant(regclass) FROM PUBLIC;

-- Fixed-window request counters shared by every server process. Unlogged: counters are
-- worthless after a crash, and skipping the WAL keeps the per-request upsert cheap.
CREATE UNLOGGED TABLE rate_limit_windows (
  key           text NOT NULL,
  window_start  bigint NOT NULL, -- epoch milliseconds, a multiple of the window length
  window_end    bigint NOT NULL, -- epoch milliseconds; the row is worthless after it
  hits          integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
