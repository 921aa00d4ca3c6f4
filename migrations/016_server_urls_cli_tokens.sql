-- Where the servers on this database listen, so that the CLI (immogate url, token, demo) finds the
-- PUBLIC_URL of the running server without being told, whatever its port (README "CLI"). A row per
-- server process, written once it listens and deleted when it stops; the newest row is the answer.
-- A server killed without a stop leaves its row until the next server starts (a newer row then).
CREATE TABLE server_listeners (
  instance_id  uuid PRIMARY KEY,
  public_url   text NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now()
);

-- The claims of each token `immogate token` minted through the database that its issuance record
-- lacks. A later call for the same client, audience, agency and scopes signs these claims again
-- (same jti, iat and exp) while the token is valid for long enough, instead of minting another:
-- `clients report` then counts one token, not one per call. The token itself is not stored.
CREATE TABLE cli_tokens (
  jti               uuid PRIMARY KEY REFERENCES token_issuance (jti) ON DELETE CASCADE,
  issuer            text NOT NULL,
  token_generation  integer NOT NULL,
  -- iat and exp of the token, in seconds since the epoch as the JWT carries them.
  iat               bigint NOT NULL,
  exp               bigint NOT NULL
);
