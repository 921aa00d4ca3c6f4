-- The event feed (README "Catching up: the event feed"): what happened to a tenant, per API, in an
-- order a follower can resume from without ever skipping an event.
--
-- Events are written by the triggers below, in the transaction of the change they record: they
-- commit or vanish with it, and no code path that writes a status, a lead or a listing can forget
-- one. A reader must not step past a row whose transaction is still in flight: the position comes
-- from a sequence when the row is inserted, not when it commits, so a later position may commit
-- first. Each row therefore also keeps its transaction id, and the feed is ordered by (xid,
-- position) and only shows rows whose xid is below the oldest transaction still running (the
-- reader's snapshot xmin): any transaction that commits later has an xid at or above that xmin,
-- so its events sort after everything a reader has been shown. A long transaction holds the
-- feed back until it ends; it never makes it skip.
CREATE TABLE events (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  position     bigint GENERATED ALWAYS AS IDENTITY,
  xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
  environment  text NOT NULL,
  agency_id    text NOT NULL,
  api          text NOT NULL,              -- 'caas', 'leads', 'clim': the API root whose feed shows it
  type         text NOT NULL,              -- classified.status, lead.received, listing.created, ...
  subject      text NOT NULL,              -- the classifiedId, leadId or externalListingId
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_feed ON events (environment, agency_id, api, xid, position);
-- Retention: the oldest first.
CREATE INDEX events_created ON events (created_at);
SELECT immogate_isolate_tenant('events');

-- The feed's epoch, part of every cursor. Transaction ids belong to one database: a restore
-- (immogate restore) puts every restored event at xid 1, before anything the new database commits,
-- and draws a new epoch, so that a cursor of the database before is answered 410 (read again from
-- the oldest event: its order among the restored events is not kept) instead of skipping events.
CREATE TABLE event_feed_epoch (
  epoch  text NOT NULL
);
INSERT INTO event_feed_epoch (epoch) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 12));
GRANT SELECT ON event_feed_epoch TO immogate_tenant;

-- The last event retention removed from each feed: a cursor at or before it asks for events that
-- are gone (410), a cursor after it misses nothing.
CREATE TABLE event_horizons (
  environment  text NOT NULL,
  agency_id    text NOT NULL,
  api          text NOT NULL,
  xid          xid8 NOT NULL,
  position     bigint NOT NULL,
  PRIMARY KEY (environment, agency_id, api)
);
SELECT immogate_isolate_tenant('event_horizons');

-- Wakes the long polls of the servers (platform/events/waiters.ts) once per tenant and
-- transaction, at commit: the payload is "<environment> <agency_id>".
CREATE FUNCTION immogate_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('immogate_events', t.environment || ' ' || t.agency_id)
     FROM (SELECT DISTINCT environment, agency_id FROM added) t;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_added AFTER INSERT ON events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_notify_events();

-- classified.status: every status recorded, as the status webhook and GET .../statuses carry it.
-- Its id is the status id, which is also the webhook-id of the status webhooks that announce it.
CREATE FUNCTION immogate_events_of_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A restore (immogate restore) copies the events as they were: the rows it loads record nothing new.
  IF current_setting('immogate.restoring', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO events (id, environment, agency_id, api, type, subject, data)
  SELECT a.status_id, a.environment, a.agency_id, 'caas', 'classified.status', a.classified_id::text,
         immogate_caas_status_item(ROW(a.*)::classified_statuses, coalesce(r.received_at, now()))
    FROM added a
    LEFT JOIN classified_revisions r ON r.classified_id = a.classified_id AND r.revision = a.revision
   ORDER BY a.seq;
  RETURN NULL;
END
$$;
CREATE TRIGGER classified_statuses_events AFTER INSERT ON classified_statuses
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_statuses();

-- lead.received: the lead's identity, not its author's personal data, which erasure must be able
-- to remove (the event outlives nothing: GET /leads/{leadId} reads the rest while it exists).
CREATE FUNCTION immogate_events_of_leads() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A restore (immogate restore) copies the events as they were: the rows it loads record nothing new.
  IF current_setting('immogate.restoring', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO events (id, environment, agency_id, api, type, subject, data)
  SELECT a.id, a.environment, a.agency_id, 'leads', 'lead.received', a.id::text,
         jsonb_strip_nulls(jsonb_build_object('leadId', a.id, 'category', a.category, 'classifiedId', a.classified_id,
                                              'submittedAt', immogate_iso_time(a.submitted_at)))
    FROM added a ORDER BY a.seq;
  RETURN NULL;
END
$$;
CREATE TRIGGER leads_events AFTER INSERT ON leads
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_leads();

-- listing.created / updated / deleted.
CREATE FUNCTION immogate_listing_event_data(l listings) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('listingId', l.id, 'externalListingId', l.external_listing_id, 'estateType', l.estate_type,
                            'isPublished', l.is_published)
$$;
CREATE FUNCTION immogate_events_of_listings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A restore (immogate restore) copies the events as they were: the rows it loads record nothing new.
  IF current_setting('immogate.restoring', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    INSERT INTO events (environment, agency_id, api, type, subject, data)
    SELECT o.environment, o.agency_id, 'clim', 'listing.deleted', o.external_listing_id,
           jsonb_build_object('listingId', o.id, 'externalListingId', o.external_listing_id)
      FROM removed o ORDER BY o.seq;
  ELSE
    INSERT INTO events (environment, agency_id, api, type, subject, data)
    SELECT a.environment, a.agency_id, 'clim', CASE TG_OP WHEN 'INSERT' THEN 'listing.created' ELSE 'listing.updated' END, a.external_listing_id,
           immogate_listing_event_data(ROW(a.*)::listings)
      FROM added a ORDER BY a.seq;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER listings_created_events AFTER INSERT ON listings
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_listings();
CREATE TRIGGER listings_updated_events AFTER UPDATE ON listings
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_listings();
CREATE TRIGGER listings_deleted_events AFTER DELETE ON listings
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_listings();

-- listing.media_attached: a medium becoming ATTACHED to a listing (or moving to another one).
CREATE FUNCTION immogate_events_of_media() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A restore (immogate restore) copies the events as they were: the rows it loads record nothing new.
  IF current_setting('immogate.restoring', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO events (environment, agency_id, api, type, subject, data)
  SELECT n.environment, n.agency_id, 'clim', 'listing.media_attached', l.external_listing_id,
         jsonb_build_object('externalListingId', l.external_listing_id, 'externalMediaId', n.external_media_id,
                            'fileName', n.file_name)
    FROM added n
    JOIN previous o USING (environment, agency_id, external_media_id)
    JOIN listings l ON l.id = n.listing_id
   WHERE n.state = 'ATTACHED' AND (o.state <> 'ATTACHED' OR o.listing_id IS DISTINCT FROM n.listing_id)
   ORDER BY n.external_media_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER listing_media_events AFTER UPDATE ON listing_media
  REFERENCING OLD TABLE AS previous NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION immogate_events_of_media();

-- The status webhook's webhook-id is the id of the event it announces (null: the delivery's own id).
ALTER TABLE webhook_deliveries ADD COLUMN event_id uuid;
GRANT SELECT (event_id) ON webhook_deliveries TO immogate_tenant;
