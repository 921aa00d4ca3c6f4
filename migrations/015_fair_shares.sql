-- Fair shares of the workers' slots (README "Limits and fairness"): a worker claims work lane by
-- lane, round-robin across agencies, and no lane, agency or receiver host takes more than its cap
-- of the worker's slots, so one agency's hanging receiver or slow media host delays only itself.

-- Webhook deliveries: a lane is a subscription. The host (with its port) of the receiver, which a
-- worker also caps its attempts to; computed from the URL, so a re-aimed delivery follows its URL.
ALTER TABLE webhook_deliveries
  ADD COLUMN target text GENERATED ALWAYS AS (lower(substring(url FROM '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'))) STORED;
-- Ready: due now or under way. A delivery waiting for a retry is not ready until its time comes
-- (a claim promotes it then): the claim walks the lanes that have ready deliveries, so receivers
-- that have been failing for hours, with retries far ahead, cost it nothing.
ALTER TABLE webhook_deliveries ADD COLUMN ready boolean NOT NULL DEFAULT true;
UPDATE webhook_deliveries SET ready = false WHERE state = 'PENDING' AND next_attempt_at > now() AND claimed_by IS NULL;
CREATE INDEX webhook_deliveries_lanes ON webhook_deliveries (source, subscription_id, next_attempt_at) WHERE state = 'PENDING' AND ready;
CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (next_attempt_at) WHERE state = 'PENDING' AND NOT ready;
GRANT SELECT (target, ready) ON webhook_deliveries TO immogate_tenant;

-- Processing: a lane is an agency of an environment.
CREATE INDEX caas_processing_queue_lanes ON caas_processing_queue (environment, agency_id, due_at);
