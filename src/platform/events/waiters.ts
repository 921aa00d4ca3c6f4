/*
 * Long polls of the event feed: one LISTEN connection per server process, shared by every
 * waiting request (a NOTIFY per tenant after each commit with its events: immogate_notify_events
 * announces it, db/announcements.ts sends it),
 * and a bounded number of waiters, per client and in all. A waiter holds no pooled connection and
 * runs no query: a notification of its tenant wakes it, or the horizon watch when what it waits
 * for was held back by an older transaction (horizonWatch.ts), or the end of its wait.
 */
import type pg from 'pg';
import type { EventWaiterLimits } from '../../config.js';
import type { Logger } from '../log.js';
import { WorkListener } from '../work/listener.js';
import { HorizonWatch } from './horizonWatch.js';

export const EVENTS_CHANNEL = 'immogate_events';

/** Which cap refused a long poll: its client's (EVENT_WAITERS_PER_CLIENT) or the process's (EVENT_WAITERS_PER_SERVER). */
export type WaiterCap = 'client' | 'server';

/**
 * One long poll's wake-ups. It is registered for its tenant's notifications before its first read,
 * and stays so between its reads: a commit notified after a read began wakes the next wait, however
 * soon it comes, instead of falling between the read and the wait.
 */
export class LongPoll {
  private woken = false;
  private resume: (() => void) | undefined;
  private admitted = false;

  constructor(
    private readonly waiters: EventWaiters,
    readonly key: string,
    readonly clientId: string,
  ) {}

  /** The tenant may have a new event: the wait ends, or the next one does not begin. */
  readonly wake = (): void => {
    this.woken = true;
    this.resume?.();
  };

  /** Counts the poll among the waiters once; the cap that refuses it, if one does. */
  admit(): WaiterCap | undefined {
    if (this.admitted) return undefined;
    const refusal = this.waiters.admit(this.clientId);
    this.admitted = refusal === undefined;
    return refusal;
  }

  /**
   * Resolves when woken since the last wait, after `ms` at most, or when `signal` aborts: true when
   * woken, the tenant may have a new event. `heldBackFrom` (FeedRead's) also wakes it once the
   * horizon passes that transaction id.
   */
  async sleep(ms: number, signal: AbortSignal, heldBackFrom: string | undefined): Promise<boolean> {
    if (!this.woken && !signal.aborted) {
      let end: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.resume = end;
      const timer = setTimeout(end, ms);
      signal.addEventListener('abort', end, { once: true });
      if (heldBackFrom !== undefined) this.waiters.horizon.watch(heldBackFrom, this.wake);
      try {
        await ended;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        this.resume = undefined;
        this.waiters.horizon.forget(this.wake);
      }
    }
    const woken = this.woken;
    this.woken = false;
    return woken;
  }

  /** Once the request is answered. */
  close(): void {
    this.waiters.horizon.forget(this.wake);
    this.waiters.forget(this);
    if (this.admitted) this.waiters.release(this.clientId);
    this.admitted = false;
  }
}

export class EventWaiters {
  readonly horizon: HorizonWatch;
  private readonly polls = new Map<string, Set<LongPoll>>();
  private readonly perClient = new Map<string, number>();
  private count = 0;
  private listener: WorkListener | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly limits: EventWaiterLimits,
    private readonly logger: Logger,
  ) {
    this.horizon = new HorizonWatch(pool, logger);
  }

  /** True once the server closes: long polls answer what they have instead of waiting. */
  get stopped(): boolean {
    return this.closed;
  }

  /** A long poll of the tenant, woken from now on; close() it once answered. */
  async open(tenant: { environment: string; agencyId: string; clientId: string }): Promise<LongPoll> {
    // The connection is opened by the first long poll: a server nobody follows keeps none.
    if (!this.closed) {
      this.starting ??= this.start();
      await this.starting;
    }
    const poll = new LongPoll(this, `${tenant.environment} ${tenant.agencyId}`, tenant.clientId);
    const set = this.polls.get(poll.key) ?? new Set<LongPoll>();
    this.polls.set(poll.key, set.add(poll));
    if (this.closed) poll.wake();
    return poll;
  }

  /** @internal LongPoll's. */
  admit(clientId: string): WaiterCap | undefined {
    const mine = this.perClient.get(clientId) ?? 0;
    if (mine >= this.limits.perClient) return 'client';
    if (this.count >= this.limits.perServer) return 'server';
    this.perClient.set(clientId, mine + 1);
    this.count += 1;
    return undefined;
  }

  /** @internal LongPoll's. */
  release(clientId: string): void {
    const mine = (this.perClient.get(clientId) ?? 1) - 1;
    if (mine > 0) this.perClient.set(clientId, mine);
    else this.perClient.delete(clientId);
    this.count -= 1;
  }

  /** @internal LongPoll's. */
  forget(poll: LongPoll): void {
    const set = this.polls.get(poll.key);
    set?.delete(poll);
    if (set?.size === 0) this.polls.delete(poll.key);
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    await this.horizon.stop();
    if (this.starting) {
      await this.starting;
      await this.listener?.stop();
    }
  }

  private wakeAll(): void {
    for (const set of this.polls.values()) for (const poll of set) poll.wake();
  }

  private async start(): Promise<void> {
    this.listener = new WorkListener(
      this.pool.options,
      this.logger,
      (key) => {
        for (const poll of this.polls.get(key) ?? []) poll.wake();
      },
      // Notifications sent while the connection was down are lost: every poll reads again.
      () => this.wakeAll(),
      EVENTS_CHANNEL,
    );
    await this.listener.start();
  }
}
