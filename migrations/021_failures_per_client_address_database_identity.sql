-- A client id is no secret: a known client's wrong secrets now count against the client and the
-- address they came from together (kind 'client_address', key "<address> <client id>"), so that
-- nobody locks a client out from elsewhere. The windows counted per client id alone mean nothing
-- any more. 'address' now counts only failures for client ids that name no active client.
-- 'client' stays allowed while servers of the version before finish in a rolling upgrade (their
-- rows are read by nobody now, and pruned with the window).
DELETE FROM auth_failures WHERE kind = 'client';
ALTER TABLE auth_failures DROP CONSTRAINT auth_failures_kind_check;
ALTER TABLE auth_failures ADD CONSTRAINT auth_failures_kind_check
  CHECK (kind IN ('client_address', 'address', 'operator', 'client'));

-- A random key made once per database, never backed up nor restored (backup.ts) and never sent:
-- a server proves it serves this database by a MAC under it of the CLI's challenge and its own
-- PUBLIC_URL, before the CLI sends a client secret to a URL it read from server_listeners.
CREATE TABLE database_identity (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  key      bytea NOT NULL
);
INSERT INTO database_identity (key)
  VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
