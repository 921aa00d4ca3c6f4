/*
 * The classifieds API's work: the processing stream (acknowledged revisions, services/processing.ts)
 * and the retention of deleted classifieds.
 */
import type { Config } from '../../config.js';
import type { ScheduledTask } from '../../platform/work/schedule.js';
import { backoffSeconds, type WorkStream } from '../../platform/work/stream.js';
import * as repository from './repository.js';
import type { ClaimedClassified } from './repository.js';
import { processClassified } from './services/processing.js';

export const PROCESSING_STREAM = 'caas:processing';
export const RETENTION_TASK = 'caas:deleted_classifieds_retention';

/**
 * The processing queue holds one row per classified with revisions to process; a worker claims a
 * batch of them and processes each classified's pending revisions in the order they were
 * acknowledged. Its claim is a lease, renewed while it works: if the worker dies, another takes
 * the classified over once the lease runs out.
 */
export const processingStream: WorkStream<ClaimedClassified> = {
  name: PROCESSING_STREAM,
  concurrency: (config: Config) => config.workerConcurrency,
  // Six media downloads and a dozen rows a classified: what takes the cores from requests.
  yieldsToRequests: true,
  claim: (context, limit, busy) =>
    repository.claimClassifieds(context.pool, {
      workerId: context.workerId,
      leaseSeconds: context.leaseSeconds,
      limit,
      busy,
      perAgency: context.config.workerConcurrencyPerAgency,
    }),
  key: (claimed) => claimed.classified_id,
  shares: (claimed) => claimed.shares,
  run: processClassified,
  renew: (context, ids) => repository.renewClaims(context.pool, context.workerId, context.leaseSeconds, ids),
  fail: (context, claimed, error, interrupted) =>
    repository.giveBack(
      context.pool,
      claimed.classified_id,
      context.workerId,
      interrupted ? 0 : backoffSeconds(claimed.attempts),
      interrupted ? null : error instanceof Error ? error.message : String(error),
    ),
  nextDue: (context) => repository.nextDue(context.pool),
  depth: (pool) => repository.queueDepth(pool),
  backlog: {
    noun: 'classifieds waiting to be processed',
    waiting: 'classifieds waiting to be processed',
    measure: repository.agencyBacklog,
  },
};

/**
 * A DELETED classified keeps its statuses readable (its DELETED status is how a client learns the
 * delete was done) for DELIVERY_RETENTION_DAYS; then it goes with its statuses and revisions.
 * Hourly, in bounded batches.
 */
export const retentionTask: ScheduledTask = {
  name: RETENTION_TASK,
  everySeconds: 3600,
  async run({ pool, config, logger, signal }) {
    const deleted = await repository.removeExpiredDeleted(pool, config.deliveryRetentionDays, signal);
    if (deleted > 0)
      logger.info({ deleted, days: config.deliveryRetentionDays }, 'removed deleted classifieds past their retention, with their statuses');
  },
};
