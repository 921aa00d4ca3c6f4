-- OpenImmo intake (an extension of the listing import): a ZIP or XML file posted by an agency is
-- kept here with its work, committed with the 202 that acknowledges it; a worker claims it, applies
-- each object to the agency's listings and records the outcome per object.
CREATE TABLE openimmo_imports (
  id            uuid PRIMARY KEY,                -- the importId
  -- Arrival order: the list of imports pages by it.
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  environment   text NOT NULL,
  agency_id     text NOT NULL,
  status        text NOT NULL DEFAULT 'PROCESSING' CHECK (status IN ('PROCESSING', 'DONE', 'FAILED')),
  kind          text NOT NULL CHECK (kind IN ('zip', 'xml')),
  -- The file as received, until the import is done: a crash before then runs it again from here.
  payload       bytea,
  size_bytes    bigint NOT NULL,
  umfang        text CHECK (umfang IN ('VOLL', 'TEIL')),
  -- One outcome per object, in document order (the GET's `objects`).
  objects       jsonb NOT NULL DEFAULT '[]',
  -- What the file carries outside any object that the listings have no place for.
  warnings      jsonb NOT NULL DEFAULT '[]',
  problem       jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  -- The queue, as the other work queues: claimable from due_at; while a worker holds the import,
  -- the end of its lease.
  due_at        timestamptz NOT NULL DEFAULT now(),
  claimed_by    uuid,
  attempts      integer NOT NULL DEFAULT 0,
  last_error    text
);
CREATE INDEX openimmo_imports_recent ON openimmo_imports (environment, agency_id, seq);
-- The lanes of the fair claim (fairClaim.ts): one per agency, what is still to do.
CREATE INDEX openimmo_imports_lanes ON openimmo_imports (environment, agency_id, due_at) WHERE status = 'PROCESSING';
CREATE INDEX openimmo_imports_finished ON openimmo_imports (finished_at) WHERE status <> 'PROCESSING';
SELECT immogate_isolate_tenant('openimmo_imports');
CREATE TRIGGER openimmo_imports_queued AFTER INSERT ON openimmo_imports
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_notify_work('clim:openimmo');

-- Which OpenImmo provider (anbieternr, else openimmo_anid) a listing came from: a VOLL transfer
-- deletes that provider's listings missing from the file, and no other listing.
ALTER TABLE listings ADD COLUMN openimmo_provider text;
CREATE INDEX listings_openimmo ON listings (environment, agency_id, openimmo_provider) WHERE openimmo_provider IS NOT NULL;
