-- What runs after an acknowledgement is claimed by workers from these tables, in batches, each
-- item with a lease (a due time pushed forward while a worker holds it). A worker that dies
-- stops renewing its leases, and any other worker takes the items over once they run out.

-- Classified processing: one row per classified with revisions to process. The write that
-- acknowledges a revision adds the row (or finds it there); the worker that processed the last
-- pending revision removes it.
CREATE TABLE caas_processing_queue (
  classified_id  uuid PRIMARY KEY REFERENCES classifieds (id) ON DELETE CASCADE,
  environment    text NOT NULL,
  agency_id      text NOT NULL,
  -- Claimable from then on: when queued, the time it was; while a worker holds it, the end of
  -- its lease; after a failed run, the time of the retry.
  due_at         timestamptz NOT NULL DEFAULT now(),
  claimed_by     uuid,
  -- Runs started; reset when the row goes, so it counts the failures of the current work.
  attempts       integer NOT NULL DEFAULT 0,
  last_error     text
);
CREATE INDEX caas_processing_queue_due ON caas_processing_queue (due_at);
SELECT immogate_isolate_tenant('caas_processing_queue');

-- Webhook deliveries are their own queue: a PENDING delivery is due at next_attempt_at (while an
-- attempt runs, the end of its lease).
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by uuid;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'PENDING';
-- When the delivery last left PENDING (delivered, failed or cancelled): retention counts from it,
-- so a delivery redelivered today is kept however old it is.
ALTER TABLE webhook_deliveries ADD COLUMN finished_at timestamptz;
UPDATE webhook_deliveries SET finished_at = coalesce(delivered_at, created_at) WHERE state <> 'PENDING';
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE state <> 'PENDING';
GRANT SELECT (claimed_by, finished_at) ON webhook_deliveries TO immogate_tenant;
-- Retention removes classifieds (with their statuses) some time after their deletion.
CREATE INDEX classifieds_deleted ON classifieds (deleted_at) WHERE deleted_at IS NOT NULL;

-- A worker sleeps until it is told there is work: a statement adding queue rows tells every
-- listening worker, once per transaction, when it commits.
CREATE FUNCTION immogate_notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added) THEN
    PERFORM pg_notify('immogate_work', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER caas_processing_queued AFTER INSERT ON caas_processing_queue
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_notify_work('caas:processing');
CREATE TRIGGER webhook_deliveries_queued AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_notify_work('platform:webhooks');

-- Periodic maintenance: one row per task; the worker that moves next_run_at forward runs it.
CREATE TABLE scheduled_tasks (
  name              text PRIMARY KEY,
  next_run_at       timestamptz NOT NULL,
  last_started_at   timestamptz,
  last_finished_at  timestamptz,
  last_error        text
);

-- From now on the latest POST or PUT revision of a classified stores no payload of its own (its
-- payload is the classified's); a PUT replacing the classified's payload copies it there first.

-- A PUT equal to the stored payload is found by comparing the jsonb values themselves (key order
-- does not matter to jsonb equality): the hash kept for that comparison goes.
ALTER TABLE classifieds DROP COLUMN payload_hash;

-- As 008 did for media URLs: the unique index of live offererEstateIds led with (environment,
-- agency_id), which row-level security's current_setting() comparisons make look selective to
-- the planner, and the listing index (environment, agency_id, seq) has the same prefix. A create's
-- duplicate probe, planned once while the table was small, took the listing index and scanned the
-- agency's classifieds for each (200 ms a probe at 16k rows; POST fell from 1,600 to 23 per
-- second). With the offererEstateId first, only this index fits the probe.
DROP INDEX classifieds_offerer_estate_id;
CREATE UNIQUE INDEX classifieds_offerer_estate_id ON classifieds (offerer_estate_id, environment, agency_id) WHERE deleted_at IS NULL;

-- Times as the APIs write them (JavaScript's toISOString: UTC, milliseconds, Z).
CREATE FUNCTION immogate_iso_time(t timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- Work that graphile-worker held moves here: revisions waiting for processing are queued again
-- (pending webhook deliveries are queued already, as PENDING rows). Then its schema goes.
INSERT INTO caas_processing_queue (classified_id, environment, agency_id)
SELECT DISTINCT ON (classified_id) classified_id, environment, agency_id FROM classified_revisions WHERE processed_at IS NULL
ON CONFLICT (classified_id) DO NOTHING;
-- (002 created immogate_add_job on databases migrated before 010.)
DROP FUNCTION IF EXISTS immogate_add_job(text, json, text, timestamptz, integer, text);
DROP SCHEMA IF EXISTS graphile_worker CASCADE;

-- A classified status as GET .../statuses shows it and the status webhook posts it; `received_at`
-- is when its revision was acknowledged (the item's creationDate).
CREATE FUNCTION immogate_caas_status_item(s classified_statuses, received_at timestamptz) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'statusId', s.status_id, 'classifiedId', s.classified_id, 'customerId', s.agency_id,
    'creationDate', immogate_iso_time(received_at), 'revision', s.revision, 'portals', to_jsonb(s.portals),
    'status', s.status, 'subStatus', s.sub_status, 'subStatusDetails', s.sub_status_details, 'message', s.message,
    'statusDate', immogate_iso_time(s.status_date), 'mediaStatuses', s.media_statuses, 'stage', s.stage))
$$;
