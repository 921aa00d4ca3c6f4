-- Redelivery by the webhook-id a receiver saw (`immogate deliveries redeliver --delivery`): a
-- message announcing a feed event carries the event's id as its webhook-id, so the lookup reads
-- deliveries by event_id, an index range instead of a scan of every delivery kept.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id) WHERE event_id IS NOT NULL;
