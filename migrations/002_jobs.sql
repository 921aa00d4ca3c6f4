-- Lets a request transaction running as immogate_tenant enqueue its job in the same
-- transaction: graphile_worker's tables stay closed to the tenant role, this one door is open.
CREATE FUNCTION immogate_add_job(
  identifier text,
  payload json,
  queue_name text DEFAULT NULL,
  run_at timestamptz DEFAULT NULL,
  max_attempts integer DEFAULT NULL,
  job_key text DEFAULT NULL
) RETURNS bigint LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
  SELECT (graphile_worker.add_job(identifier, payload, queue_name, run_at, max_attempts, job_key)).id;
$$;
REVOKE ALL ON FUNCTION immogate_add_job(text, json, text, timestamptz, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION immogate_add_job(text, json, text, timestamptz, integer, text) TO immogate_tenant;
