import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { pruneRateLimitWindows } from '../http/rateLimit.js';
import { deliverWebhookJob } from '../delivery/deliverJob.js';

export interface JobContext {
  pool: Pool;
  logger: Logger;
  config: Config;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  jobId: string;
  /** Aborts when a worker shutting down has waited its grace period: pass it to outbound calls. */
  signal: AbortSignal;
}

/** One job type: a name, and a handler that throws to have the job retried with backoff. */
export interface JobDefinition {
  name: string;
  handler(payload: unknown, context: JobContext): Promise<void>;
  /** A crontab schedule (graphile-worker syntax) when the job also runs periodically. */
  schedule?: string;
}

const pruneRateLimits: JobDefinition = {
  name: 'platform:prune_rate_limits',
  schedule: '* * * * *',
  async handler(_payload, { pool }) {
    await pruneRateLimitWindows(pool);
  },
};

const pruneTokenIssuance: JobDefinition = {
  name: 'platform:prune_token_issuance',
  schedule: '17 3 * * *',
  async handler(_payload, { pool, logger }) {
    // The report looks 90 days back at most; older issuance records serve nothing.
    const { rowCount } = await pool.query("DELETE FROM token_issuance WHERE issued_at < now() - interval '90 days'");
    logger.info({ deleted: rowCount }, 'pruned token issuance records');
  },
};

/** Every job type of immogate; each API adds its own here. */
export const JOBS: readonly JobDefinition[] = [pruneRateLimits, pruneTokenIssuance, deliverWebhookJob({ sources: {} })];
