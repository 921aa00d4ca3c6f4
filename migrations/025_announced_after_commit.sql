-- New work and new events are announced to the listening processes after the write's commit, not
-- by a NOTIFY in the write's own transaction. PostgreSQL lets one transaction at a time commit
-- with notifications queued: from queuing them until its commit is on disk it holds a lock on the
-- notification queue that every other such commit waits for. With every POST queuing work and
-- recording a RECEIVED status, and the worker recording statuses, all those commits took turns:
-- on the bench (`post`) a fifth of the database's busy sessions were waiting for that lock, and
-- POST went from 76-81% of the durable floor to 87% without it.
--
-- A trigger now raises a notice to the session that wrote (SQLSTATE IGANN, the message the channel,
-- the detail the payload); the pool of that session collects them and, once the connection is given
-- back after the commit, sends the NOTIFYs in a transaction of their own that waits for nothing
-- (src/platform/db/announcements.ts). A notice of a write that rolled back wakes a listener for
-- nothing, which costs it one look; a process that dies between its commit and the NOTIFY leaves
-- the work to the workers' regular look (every 5 s) and the long polls to their end.
CREATE FUNCTION immogate_announce(channel text, payload text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE USING MESSAGE = channel, DETAIL = payload, ERRCODE = 'IGANN';
END
$$;

CREATE OR REPLACE FUNCTION immogate_notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added) THEN
    PERFORM immogate_announce('immogate_work', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION immogate_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM immogate_announce('immogate_events', t.environment || ' ' || t.agency_id)
     FROM (SELECT DISTINCT environment, agency_id FROM added) t;
  RETURN NULL;
END
$$;
