/* The periodic tasks of the listing import: the sandbox retention and the media sweep. */
import { LocalBlobStore } from '../../platform/blobs/local.js';
import type { ScheduledTask } from '../../platform/work/schedule.js';
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
