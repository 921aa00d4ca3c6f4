/*
 * The feed's horizon, watched for the long polls whose events are held back: committed and
 * notified, but not shown while a transaction older than theirs, anyone's, is still in flight
 * (feed.ts). That older transaction notifies nobody when it ends, so while such a poll waits, the
 * process asks the database for the horizon: one query a tick, whatever the number of polls, and
 * none at all while no poll waits for it.
 */
import type pg from 'pg';
import type { Logger } from '../log.js';

/** How often the horizon is read while a poll waits for it to move: how late a held-back event may show. */
export const HORIZON_TICK_MS = 150;

type Wake = () => void;

export class HorizonWatch {
  // Each poll's transaction id, as a bigint: xid8 compared as text puts 1000 before 999.
  private readonly waiting = new Map<Wake, bigint>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private failing = false;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** Calls `wake` once the horizon is past `xid` (an xid8 as text), unless forgotten first. */
  watch(xid: string, wake: Wake): void {
    if (this.stopped) return;
    this.waiting.set(wake, BigInt(xid));
    this.timer ??= setTimeout(() => (this.ticking = this.tick()), HORIZON_TICK_MS);
  }

  forget(wake: Wake): void {
    this.waiting.delete(wake);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    clearTimeout(this.timer);
    await this.ticking;
  }

  private async tick(): Promise<void> {
    // A poll woken meanwhile (by a notification, its end) forgot itself: no query for nobody.
    if (this.waiting.size > 0) {
      try {
        const { rows } = await this.pool.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
        const horizon = BigInt((rows[0] as { horizon: string }).horizon);
        for (const [wake, xid] of this.waiting) {
          if (xid >= horizon) continue;
          this.waiting.delete(wake);
          wake();
        }
        this.failing = false;
      } catch (error) {
        // The polls wait on (their own deadline ends them): the next tick tries again.
        if (!this.failing && !this.stopped) this.logger.warn({ err: error }, 'could not read the event feed horizon; retrying');
        this.failing = true;
      }
    }
    this.timer = this.waiting.size > 0 && !this.stopped ? setTimeout(() => (this.ticking = this.tick()), HORIZON_TICK_MS) : undefined;
  }
}
