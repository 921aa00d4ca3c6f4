/*
 * Long polls of the event feed: one LISTEN connection per server process, shared by every
 * waiting request (a NOTIFY per tenant and transaction at commit, see immogate_notify_events),
 * and a bounded number of waiters, none of which holds a pooled connection while it waits.
 */
import type pg from 'pg';
import type { Logger } from '../log.js';
import { WorkListener } from '../work/listener.js';

export const EVENTS_CHANNEL = 'immogate_events';

/** Waiters one process keeps at most; more long polls are refused with a 429 rather than queued. */
export const MAX_WAITERS = 1000;

/**
 * A read that found nothing checks again this often even without a notification: an event held
 * back by an older transaction in flight becomes readable when that one ends, which notifies
 * nobody; and notifications sent while the listener reconnects are lost.
 */
export const RECHECK_MS = 2_000;

type Wake = () => void;

export class EventWaiters {
  private readonly waiting = new Map<string, Set<Wake>>();
  private count = 0;
  private listener: WorkListener | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly logger: Logger,
  ) {}

  /** True once the server closes: long polls answer what they have instead of waiting. */
  get stopped(): boolean {
    return this.closed;
  }

  /** Resolves when the tenant may have a new event, after `ms` at most, or when `signal` aborts. False: no room to wait. */
  async wait(environment: string, agencyId: string, ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.count >= MAX_WAITERS) return false;
    // The connection is opened by the first long poll: a server nobody follows keeps none.
    if (this.closed) return true;
    this.starting ??= this.start();
    await this.starting;
    const key = `${environment} ${agencyId}`;
    let wake: Wake = () => undefined;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiting.get(key) ?? new Set<Wake>();
    this.waiting.set(key, set.add(wake));
    this.count += 1;
    const timer = setTimeout(wake, Math.min(ms, RECHECK_MS));
    signal.addEventListener('abort', wake, { once: true });
    try {
      await woken;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      set.delete(wake);
      if (set.size === 0) this.waiting.delete(key);
      this.count -= 1;
    }
    return true;
  }

  async stop(): Promise<void> {
    this.closed = true;
    for (const set of this.waiting.values()) for (const wake of set) wake();
    if (this.starting) {
      await this.starting;
      await this.listener?.stop();
    }
  }

  private async start(): Promise<void> {
    this.listener = new WorkListener(
      this.connection,
      this.logger,
      (key) => {
        for (const wake of this.waiting.get(key) ?? []) wake();
      },
      () => {
        for (const set of this.waiting.values()) for (const wake of set) wake();
      },
      EVENTS_CHANNEL,
    );
    await this.listener.start();
  }
}
