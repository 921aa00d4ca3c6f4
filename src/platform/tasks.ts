/*
 * The platform's periodic tasks (each API module adds its own).
 */
import { pruneAuthFailures } from './auth/authFailures.js';
import { pruneSessions } from './console/sessions.js';
import { deliveryRetentionTask } from './delivery/retention.js';
import { eventRetentionTask } from './events/retention.js';
import { pruneIdempotencyKeys } from './http/idempotency.js';
import { pruneRateLimitWindows } from './http/rateLimit.js';
import { pruneQuotaBuckets } from './http/quotas.js';
import type { ScheduledTask } from './work/schedule.js';

const pruneRateLimits: ScheduledTask = {
  name: 'platform:prune_rate_limits',
  everySeconds: 60,
  async run({ pool }) {
    await pruneRateLimitWindows(pool);
    await pruneQuotaBuckets(pool);
  },
};

const pruneTokenIssuance: ScheduledTask = {
  name: 'platform:prune_token_issuance',
  everySeconds: 24 * 3600,
  async run({ pool, logger }) {
    // The report looks 90 days back at most; older issuance records serve nothing.
    const { rowCount } = await pool.query("DELETE FROM token_issuance WHERE issued_at < now() - interval '90 days'");
    logger.info({ deleted: rowCount }, 'pruned token issuance records');
  },
};

const pruneFailures: ScheduledTask = {
  name: 'platform:prune_auth_failures',
  everySeconds: 3600,
  async run({ pool, config }) {
    await pruneAuthFailures(pool, config.authFailureLimits.windowSeconds);
  },
};

const pruneConsoleSessions: ScheduledTask = {
  name: 'platform:prune_console_sessions',
  everySeconds: 3600,
  async run({ pool }) {
    await pruneSessions(pool);
  },
};

/** The platform's periodic tasks; each API module adds its own. */
export const PLATFORM_TASKS: readonly ScheduledTask[] = [
  pruneRateLimits,
  pruneTokenIssuance,
  pruneFailures,
  pruneConsoleSessions,
  deliveryRetentionTask,
  eventRetentionTask,
  pruneIdempotencyKeys,
];
