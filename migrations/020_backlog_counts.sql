-- Backlog bounds (README "Backlog bounds"): a write that adds work first reads its agency's
-- unfinished deliveries, once a second per process: how many (up to the bound) and since when the
-- oldest has been due. An index range of the agency's pending deliveries in due order answers both
-- for the entries it reads, not a scan of the queue. (The processing queue's lanes index,
-- environment, agency and due time, serves its own already.)
CREATE INDEX webhook_deliveries_agency_pending ON webhook_deliveries (environment, agency_id, next_attempt_at) WHERE state = 'PENDING';
