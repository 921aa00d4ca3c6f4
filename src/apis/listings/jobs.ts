/* The listing import's work: the OpenImmo imports (a work stream), the sandbox retention and the media sweep. */
import { LocalBlobStore } from '../../platform/blobs/local.js';
import { addressPolicy, sharedOutbound } from '../../platform/delivery/outbound.js';
import type { ScheduledTask } from '../../platform/work/schedule.js';
import { backoffSeconds, type WorkStream } from '../../platform/work/stream.js';
import {
  type ClaimedImport,
  claimImports,
  deleteFinishedImports,
  giveBackImport,
  importQueueDepth,
  nextImportDue,
  renewImports,
} from './openimmo/imports.js';
import { runImport } from './openimmo/intake.js';
import { checkListing } from './rules.js';
import { mediaStore, sweepMedia } from './services/medias.js';
import { sweepSandboxListings } from './services/retention.js';

export const RETENTION_TASK = 'clim:sweep_sandbox_listings';
export const MEDIA_SWEEP_TASK = 'listings:sweep_media';

/** An upload file untouched this long was abandoned: no upload may go quiet for an hour (see slowClients.ts). */
export const ABANDONED_UPLOAD_MS = 3600_000;

export const retentionTask: ScheduledTask = {
  name: RETENTION_TASK,
  everySeconds: 24 * 3600,
  async run({ pool, logger }) {
    const deleted = await sweepSandboxListings(pool, new Date());
    logger.info({ deleted }, 'swept sandbox listings older than 90 days');
  },
};

export const mediaSweepTask: ScheduledTask = {
  name: MEDIA_SWEEP_TASK,
  everySeconds: 5 * 60,
  async run({ pool, config, logger }) {
    const store = await mediaStore({ pool, config });
    const deleted = await sweepMedia(pool, store, logger);
    if (deleted > 0) logger.info({ deleted }, 'swept unattached listing media');
    if (store instanceof LocalBlobStore) {
      const abandoned = await store.sweepIncoming(ABANDONED_UPLOAD_MS);
      if (abandoned > 0) logger.info({ abandoned }, 'swept uploads a crash left unfinished');
    }
  },
};

export const OPENIMMO_STREAM = 'clim:openimmo';
export const OPENIMMO_RETENTION_TASK = 'clim:openimmo_retention';

/**
 * OpenImmo imports, claimed like the other queues (fair between agencies, at most one of an
 * agency's at a time per worker: its objects are applied in order). The rules run on the worker's
 * own loop: a worker serves no request that would wait for them.
 */
export const openimmoStream: WorkStream<ClaimedImport> = {
  name: OPENIMMO_STREAM,
  concurrency: () => 2,
  claim: (context, limit, busy) =>
    claimImports(context.pool, { workerId: context.workerId, leaseSeconds: context.leaseSeconds, limit, busy, perAgency: 1 }),
  key: (claimed) => claimed.id,
  shares: (claimed) => claimed.shares,
  run: (claimed, context) =>
    runImport(claimed, {
      pool: context.pool,
      workerId: context.workerId,
      rules: { check: async (request, options) => checkListing(request, options) },
      store: () => mediaStore(context),
      outbound: sharedOutbound(context.config, {
        ...addressPolicy(context.config, claimed.environment === 'sandbox' ? 'sandbox' : 'production'),
        userAgent: 'immogate-openimmo/1.0',
      }),
      logger: context.logger,
      signal: context.signal,
    }),
  renew: (context, ids) => renewImports(context.pool, context.workerId, context.leaseSeconds, ids),
  fail: (context, claimed, error, interrupted) =>
    giveBackImport(
      context.pool,
      claimed.id,
      context.workerId,
      interrupted ? 0 : backoffSeconds(claimed.attempts),
      interrupted ? null : error instanceof Error ? error.message : String(error),
    ),
  nextDue: (context) => nextImportDue(context.pool),
  depth: (pool) => importQueueDepth(pool),
};

/** A finished import's outcome is kept DELIVERY_RETENTION_DAYS, as deliveries are; hourly, in bounded batches. */
export const openimmoRetentionTask: ScheduledTask = {
  name: OPENIMMO_RETENTION_TASK,
  everySeconds: 3600,
  async run({ pool, config, logger }) {
    let deleted = 0;
    for (let round = 0; round < 100; round += 1) {
      const batch = await deleteFinishedImports(pool, config.deliveryRetentionDays, 500);
      deleted += batch;
      if (batch < 500) break;
    }
    if (deleted > 0) logger.info({ deleted, days: config.deliveryRetentionDays }, 'removed OpenImmo imports past their retention');
  },
};
