-- Quotas (README "Quotas"): a token bucket per client, agency, environment and kind of request
-- (writes, reads), shared by every server process. A process takes tokens from its bucket a few at
-- a time and spends them itself, so most requests cost no statement. Unlogged, as the rate-limit
-- windows: a bucket lost in a crash comes back full, which is what an idle one is anyway.
CREATE UNLOGGED TABLE quota_buckets (
  key text PRIMARY KEY,
  -- Tokens left after the last take, at stamped_at; refilled at the quota's rate since then.
  tokens double precision NOT NULL,
  -- What the last take granted: read back by the statement that took them.
  granted integer NOT NULL,
  stamped_at timestamptz NOT NULL
);
CREATE INDEX quota_buckets_stamped ON quota_buckets (stamped_at);
