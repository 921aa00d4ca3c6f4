-- Secrets at rest are sealed (envelope encryption, src/platform/secrets/sealer.ts) with a key
-- kept outside the database. SQL cannot seal, so the first process started after this migration
-- seals what is stored in clear (src/platform/secrets/stored.ts) and records it here; from then
-- on every writer stores sealed values only.
CREATE TABLE secrets_state (
  id         smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  sealed_at  timestamptz NOT NULL DEFAULT now()
);

-- Sealed text beside the clear values of these two, which the sealing step empties.
ALTER TABLE signing_keys ADD COLUMN private_jwk_sealed text;
ALTER TABLE signing_keys ALTER COLUMN private_jwk DROP NOT NULL;
ALTER TABLE blob_signing_keys ADD COLUMN secret_sealed text;
ALTER TABLE blob_signing_keys ALTER COLUMN secret DROP NOT NULL;

-- The header of a delivery that carries its secret (the lead API's X-Api-Key), so the secret is
-- stored once, sealed, instead of in clear among the headers.
ALTER TABLE webhook_deliveries ADD COLUMN secret_header text;
