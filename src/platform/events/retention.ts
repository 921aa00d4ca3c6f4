/*
 * Events go DELIVERY_RETENTION_DAYS after they were written, as webhook deliveries do: the feed
 * is how a receiver catches up on what its webhooks missed, so it keeps as long as they are
 * retried and audited. Each batch also moves the horizon of the feeds it cut into (the last event
 * removed), so a cursor from before it is answered 410 instead of silently skipping.
 */
import type { ScheduledTask } from '../work/schedule.js';
import { sweep } from '../work/sweep.js';

export const EXPIRE_EVENTS = `WITH batch AS MATERIALIZED (
    SELECT id FROM events WHERE created_at < now() - make_interval(days => $2) ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED),
  removed AS (DELETE FROM events e USING batch WHERE e.id = batch.id RETURNING e.environment, e.agency_id, e.api, e.xid, e.position),
  last AS (SELECT DISTINCT ON (environment, agency_id, api) environment, agency_id, api, xid, position
             FROM removed ORDER BY environment, agency_id, api, xid DESC, position DESC),
  moved AS (INSERT INTO event_horizons AS h (environment, agency_id, api, xid, position)
            SELECT environment, agency_id, api, xid, position FROM last
            ON CONFLICT (environment, agency_id, api) DO UPDATE SET xid = excluded.xid, position = excluded.position
             WHERE (excluded.xid, excluded.position) > (h.xid, h.position))
  SELECT 1 FROM removed`;

export const eventRetentionTask: ScheduledTask = {
  name: 'platform:event_retention',
  everySeconds: 3600,
  async run({ pool, config, logger, signal }) {
    const deleted = await sweep(pool, EXPIRE_EVENTS, [config.deliveryRetentionDays], signal);
    if (deleted > 0) logger.info({ deleted, days: config.deliveryRetentionDays }, 'removed events past their retention');
  },
};
