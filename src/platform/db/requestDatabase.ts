/*
 * The database as a server process's requests reach it: the request pool, cut into shares (one per
 * API, one for the platform's own routes, db/share.ts), behind the health probe that refuses every
 * checkout while the database is unreachable (db/probe.ts).
 */
import type pg from 'pg';
import { DatabaseProbe, type DatabaseCondition } from './probe.js';
import { PoolPressure, PoolShare, shareOf } from './share.js';

export class RequestDatabase {
  readonly probe: DatabaseProbe;
  readonly pressure: PoolPressure;
  private readonly shares = new Map<string, PoolShare>();

  /** `pool`: the request pool, made with the request limits (db/limits.ts); its owner ends it. */
  constructor(
    readonly pool: pg.Pool,
    private readonly checkoutTimeoutMs: number,
  ) {
    const url = pool.options.connectionString;
    if (url === undefined) throw new Error('the request pool has no connectionString');
    this.probe = new DatabaseProbe(url);
    this.probe.watch(pool);
    this.pressure = new PoolPressure(pool);
  }

  /** The share of `name` (an API's id, or "platform"), made on first use. */
  share(name: string): pg.Pool {
    let share = this.shares.get(name);
    if (!share) {
      share = new PoolShare(
        this.pool,
        name,
        shareOf(this.pool.options.max ?? 10),
        this.checkoutTimeoutMs,
        { now: () => this.probe.refusal(), fresh: async () => unreachableReason(await this.probe.check()) },
        this.pressure,
      );
      this.shares.set(name, share);
    }
    return share;
  }

  start(): void {
    this.probe.start();
  }

  stop(): Promise<void> {
    return this.probe.stop();
  }
}

function unreachableReason(condition: DatabaseCondition): string | undefined {
  return condition.state === 'unreachable' || condition.state === 'slow' ? condition.reason : undefined;
}
