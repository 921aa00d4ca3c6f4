import type { ScheduledTask } from '../../platform/work/schedule.js';
import { sweep } from '../../platform/work/sweep.js';

/**
 * A DELETED classified keeps its statuses readable (its DELETED status is how a client learns the
 * delete was done) for DELIVERY_RETENTION_DAYS; then it goes with its statuses and revisions.
 * Hourly, in bounded batches.
 */
export const retentionTask: ScheduledTask = {
  name: 'caas:deleted_classifieds_retention',
  everySeconds: 3600,
  async run({ pool, config, logger, signal }) {
    const deleted = await sweep(
      pool,
      `DELETE FROM classifieds WHERE id IN (
         SELECT id FROM classifieds WHERE deleted_at < now() - make_interval(days => $2) LIMIT $1)`,
      [config.deliveryRetentionDays],
      signal,
    );
    if (deleted > 0)
      logger.info({ deleted, days: config.deliveryRetentionDays }, 'removed deleted classifieds past their retention, with their statuses');
  },
};
