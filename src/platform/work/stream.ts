/*
 * Work streams: work claimed from a table of its own with a lease, and the runner that claims, runs
 * and renews it in one worker.
 */
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import type { TenantScope } from '../db/tenant.js';
import type { Logger } from '../log.js';
import type { Outage } from '../db/outage.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { telemetry } from '../telemetry/index.js';
import type { StartPace } from './requestsFirst.js';

/** What a stream's claims and runs get from the worker that runs them. */
export interface WorkContext {
  pool: Pool;
  logger: Logger;
  config: Config;
  /** The worker process's id: the holder named on the items it claims. */
  workerId: string;
  /** Seconds a claim lasts unless renewed (renewed while the item runs). */
  leaseSeconds: number;
  /** Aborts when a stopping worker has waited its grace period: pass it to outbound calls. */
  signal: AbortSignal;
  /** Failures for want of the database are counted here, logged once per outage, not each with its stack. */
  outage?: Outage;
  /** While true (the disk under DATA_DIR is low), no new work is claimed; running items finish. */
  paused?: () => boolean;
  /** How many items a stream may start now, beside its free slots (requestsFirst.ts); none: as many as are free. */
  pace?: StartPace;
}

/** Logs a failure of the worker's, or counts it towards the outage when the database is unavailable. */
export function reportFailure(context: WorkContext, error: unknown, log: () => void): void {
  if (context.outage && isDatabaseUnavailable(error)) context.outage.refused(error);
  else log();
}

/**
 * A kind of work claimed from a table of its own: items are due at a time, claimed in batches by
 * whichever worker asks first (FOR UPDATE SKIP LOCKED), and held with a lease, a due time moved
 * past the end of the claim. A worker renews the leases of what it runs; when it dies they run
 * out and another worker claims the items again, so work left by a crash resumes in seconds.
 */
export interface WorkStream<T> {
  /** The stream's name, which is also the payload of the NOTIFY that announces new items. */
  readonly name: string;
  /** Items one worker runs at once. */
  concurrency(config: Config): number;
  /**
   * Up to `limit` due items, now leased to `context.workerId`, taken fairly (fairClaim.ts): `busy`
   * counts the items the worker runs per share key, as `shares` names them.
   */
  claim(context: WorkContext, limit: number, busy: ReadonlyMap<string, number>): Promise<T[]>;
  key(item: T): string;
  /** The keys of the shares of the worker's slots an item counts against while it runs (its lane, agency, host). */
  shares(item: T): readonly string[];
  /**
   * Runs a claimed item and records its outcome, which ends the claim. Throwing means the outcome
   * could not be recorded: the item goes back to the queue (see fail).
   */
  run(item: T, context: WorkContext): Promise<void>;
  /** Moves the leases of running items forward. */
  renew(context: WorkContext, keys: string[]): Promise<void>;
  /**
   * Gives back an item whose run threw: due again after a backoff, or at once when the run was
   * interrupted because the worker is stopping.
   */
  fail(context: WorkContext, item: T, error: unknown, interrupted: boolean): Promise<void>;
  /**
   * The earliest time after now at which an item becomes claimable by time alone (a retry, a
   * lease running out). A claim that came back short took everything it could: what is due and
   * not taken waits for a share of this worker to free up (a finished item wakes the runner) or
   * is being claimed by another worker, so the runner sleeps until then, a finished item or a
   * notification.
   */
  nextDue(context: WorkContext): Promise<Date | undefined>;
  /** How many items wait or run (the queue depth metric). */
  depth(pool: Pool): Promise<QueueDepth>;
  /** An agency's unfinished items, which writes adding to the stream are bounded by (http/backlog.ts). */
  readonly backlog?: AgencyBacklog;
  /**
   * Heavy work whose start may wait while the servers beside the worker are busy (the context's
   * pace, requestsFirst.ts); a stream whose latency is promised (webhook deliveries) is never held.
   */
  readonly yieldsToRequests?: boolean;
}

export interface AgencyBacklog {
  /** What the items are, as a refusal names them: "webhook deliveries not yet delivered". */
  readonly noun: string;
  /** The items a worker has yet to take, as a refusal names them: "classifieds waiting to be processed". */
  readonly waiting: string;
  /**
   * The agency's unfinished items in the environment, and of those the ones due now and not taken
   * by a worker (waiting for one), each counted up to its limit.
   */
  measure(pool: Pool, scope: TenantScope, limits: BacklogMeasure): Promise<BacklogMeasure>;
}

export interface BacklogMeasure {
  /** Unfinished items. */
  count: number;
  /** Of those, due now and not taken by a worker. */
  waiting: number;
}

export interface QueueDepth {
  /** Claimable now (new, due for a retry, or left by a dead worker). */
  ready: number;
  /** Waiting for a retry. */
  scheduled: number;
  /** Held by a worker. */
  locked: number;
}

/** Longest sleep between claims without a notification: a safety net for a missed NOTIFY. */
const POLL_MS = 5_000;
/** Pause after a failed claim (database unreachable), so a worker does not spin. */
const CLAIM_ERROR_PAUSE_MS = 1_000;
/**
 * Shortest sleep: an item the last claim just missed (due a moment later, or locked by another
 * worker's claim) is looked for again after it, not in a busy loop. Due times have microseconds
 * and timers milliseconds, hence also the millisecond added to every wait.
 */
const MIN_SLEEP_MS = 5;

/**
 * Runs one stream in one worker: claims as many items as it has free slots whenever it is woken
 * (a notification, a finished item, the next due time), runs them, renews their leases.
 */
export class StreamRunner<T> {
  private readonly running = new Map<string, { item: T; done: Promise<void> }>();
  /** Running items per share key. */
  private readonly busy = new Map<string, number>();
  private stopping = false;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private loop: Promise<void> | undefined;
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: WorkStream<T>,
    private readonly context: WorkContext,
  ) {}

  get name(): string {
    return this.stream.name;
  }

  start(): void {
    this.loop = this.claimLoop();
    this.renewal = setInterval(() => void this.renewLeases(), (this.context.leaseSeconds * 1000) / 3);
    this.renewal.unref();
  }

  /** There may be due items: claim at the next chance. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Items running now (keys), for tests and metrics. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Claims nothing more and waits for what runs (the caller aborts the signal when it stops waiting). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    await this.drained();
    clearInterval(this.renewal);
  }

  /** Resolves when every running item has finished. */
  async drained(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((entry) => entry.done));
  }

  private async claimLoop(): Promise<void> {
    const capacity = this.stream.concurrency(this.context.config);
    while (!this.stopping) {
      this.woken = false;
      const free = capacity - this.running.size;
      const paused = this.context.paused?.() === true;
      const pace = this.stream.yieldsToRequests === true ? this.context.pace : undefined;
      const wanted = paused ? 0 : Math.min(free, pace?.allowed(this.name) ?? free);
      let sleepMs = POLL_MS;
      if (wanted > 0) {
        let claimed: T[] = [];
        try {
          claimed = await this.stream.claim(this.context, wanted, this.busy);
          this.context.outage?.ended();
        } catch (error) {
          reportFailure(this.context, error, () =>
            this.context.logger.warn({ err: error, stream: this.name }, 'claiming work failed; trying again'),
          );
          sleepMs = CLAIM_ERROR_PAUSE_MS;
        }
        pace?.started(this.name, claimed.length);
        for (const item of claimed) this.startItem(item);
        // A full batch means more may be due: claim again as soon as slots free up, or, held back
        // by the pace, as soon as it allows one more.
        if (claimed.length === free) continue;
        if (pace !== undefined && claimed.length === wanted) sleepMs = pace.untilNext(this.name);
        else if (sleepMs === POLL_MS) sleepMs = await this.untilNextDue();
      } else if (free > 0 && !paused && pace !== undefined) {
        sleepMs = pace.untilNext(this.name);
      }
      await this.sleep(sleepMs);
      // Completions and notifications that arrive together become one claim.
      await yieldToEvents();
    }
  }

  private async untilNextDue(): Promise<number> {
    try {
      const next = await this.stream.nextDue(this.context);
      return next === undefined ? POLL_MS : Math.min(POLL_MS, Math.max(MIN_SLEEP_MS, next.getTime() - Date.now() + 1));
    } catch {
      return CLAIM_ERROR_PAUSE_MS;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private startItem(item: T): void {
    const key = this.stream.key(item);
    const shares = this.stream.shares(item);
    for (const share of shares) this.busy.set(share, (this.busy.get(share) ?? 0) + 1);
    const done = this.runItem(item).finally(() => {
      this.running.delete(key);
      for (const share of shares) {
        const left = (this.busy.get(share) ?? 1) - 1;
        if (left > 0) this.busy.set(share, left);
        else this.busy.delete(share);
      }
      this.wake();
    });
    this.running.set(key, { item, done });
  }

  private async runItem(item: T): Promise<void> {
    try {
      const tracing = telemetry();
      if (tracing) await tracing.work(this.name, () => this.stream.run(item, this.context));
      else await this.stream.run(item, this.context);
    } catch (error) {
      const interrupted = this.context.signal.aborted;
      if (!interrupted)
        reportFailure(this.context, error, () =>
          this.context.logger.error({ err: error, stream: this.name, item: this.stream.key(item) }, 'work item failed; it will be retried'),
        );
      // If even this fails, the lease runs out and the item is claimed again.
      await this.stream.fail(this.context, item, error, interrupted).catch((failError: unknown) => {
        reportFailure(this.context, failError, () =>
          this.context.logger.error(
            { err: failError, stream: this.name, item: this.stream.key(item) },
            'could not give a failed work item back',
          ),
        );
      });
    }
  }

  private async renewLeases(): Promise<void> {
    const keys = [...this.running.keys()];
    if (keys.length === 0) return;
    try {
      await this.stream.renew(this.context, keys);
    } catch (error) {
      reportFailure(this.context, error, () => this.context.logger.warn({ err: error, stream: this.name }, 'renewing leases failed'));
    }
  }
}

/** Seconds before the n-th retry of a failed item (n from 1): exponential, at most five minutes. */
export function backoffSeconds(failures: number): number {
  return Math.min(300, 2 ** Math.max(0, failures - 1));
}
