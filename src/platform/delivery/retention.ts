/*
 * Finished deliveries (delivered, failed, cancelled) and their attempts go DELIVERY_RETENTION_DAYS
 * after they finished; a pending one stays whatever its age. Hourly, in bounded batches.
 */
import type { ScheduledTask } from '../work/schedule.js';
import { sweep } from '../work/sweep.js';

export const deliveryRetentionTask: ScheduledTask = {
  name: 'platform:delivery_retention',
  everySeconds: 3600,
  async run({ pool, config, logger, signal }) {
    const deleted = await sweep(
      pool,
      `WITH batch AS MATERIALIZED (
         SELECT id FROM webhook_deliveries WHERE state <> 'PENDING' AND finished_at < now() - make_interval(days => $2) LIMIT $1
            -- A finished delivery held by a redelivery or an erasure goes at the next run: the sweep never waits.
            FOR UPDATE SKIP LOCKED)
       DELETE FROM webhook_deliveries d USING batch WHERE d.id = batch.id`,
      [config.deliveryRetentionDays],
      signal,
    );
    if (deleted > 0)
      logger.info({ deleted, days: config.deliveryRetentionDays }, 'removed finished webhook deliveries past their retention');
  },
};
