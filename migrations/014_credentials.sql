-- Credentials: revoking a client's tokens, and counting wrong ADMIN_TOKENs.

-- Every token carries the generation its client had when it was issued (claim token_generation;
-- tokens issued before this migration carry none and count as 0). Rotating a secret with
-- "revoke tokens" moves the generation on in the same UPDATE as the new secret hash, so every
-- token issued before it is refused and none issued after it, however close together they are.
ALTER TABLE clients ADD COLUMN token_generation integer NOT NULL DEFAULT 0 CHECK (token_generation >= 0);

-- Wrong ADMIN_TOKENs (on /admin and at the console's operator sign-in) are counted per source
-- address beside the failed client authentications, as kind 'operator'.
ALTER TABLE auth_failures DROP CONSTRAINT auth_failures_kind_check;
ALTER TABLE auth_failures ADD CONSTRAINT auth_failures_kind_check CHECK (kind IN ('client', 'address', 'operator'));
