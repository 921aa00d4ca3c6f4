/*
 * Requests first: in `immogate start`, the worker's process starts new work at a bounded pace while
 * the server processes beside it are busy, so that a backlog takes no more of the machine from
 * requests than that pace costs.
 *
 * The worker's nice value (cluster.ts) lowers its own process only. Its work is done as much by
 * PostgreSQL's sessions, at the servers' priority, and by the hosts it downloads from; and lowering
 * those sessions' priority made it worse (a preempted session holds its locks while it waits for a
 * core). What the worker asks of the database is bounded at the source instead: each server
 * reports the share of time its event loop was busy (its utilisation) every REPORT_MS through
 * the primary; for STALE_MS after a server reported BUSY_UTILISATION or more, each stream
 * starts at most `pace` items a second (a bucket of a quarter second's worth), whatever its free
 * slots. Items already running run on; when the servers calm down the streams are woken and fill
 * their slots again. A worker that hears nothing (its own `immogate worker` on another machine, the
 * servers gone) is never held back: a report counts for STALE_MS.
 */
import { performance } from 'node:perf_hooks';

/** What a server process sends the primary, and the primary passes on to the worker with `from`. */
export interface LoadReport {
  type: 'immogate:load';
  /** Share of the last REPORT_MS its event loop was busy, 0-1. */
  utilisation: number;
  /** The reporting server's pid, added by the primary. */
  from?: number;
}

/** How often a server reports. */
export const REPORT_MS = 250;
/**
 * A busy report holds this long: the pace does not flap with each report, and a server that
 * stopped reporting (gone, or hung) holds nothing back after it.
 */
export const STALE_MS = 1_000;
/**
 * A server whose loop was busy this share of a report's time counts as busy. Under the bench's
 * full POST load the 2-core machine's server reported 0.6-1 (it also waits for the database, its
 * loop idle meanwhile), so a higher bar let the worker run unpaced for a third of the time.
 */
export const BUSY_UTILISATION = 0.5;
/** The burst a stream may start at once while paced: this many seconds of its pace. */
const BURST_SECONDS = 0.25;

export function isLoadReport(message: unknown): message is LoadReport {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === 'immogate:load' &&
    typeof (message as { utilisation?: unknown }).utilisation === 'number'
  );
}

/** In a server process: sends its loop's utilisation every REPORT_MS; returns what stops it. */
export function reportLoad(send: (report: LoadReport) => void): () => void {
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    send({ type: 'immogate:load', utilisation: Math.round(performance.eventLoopUtilization(now, last).utilization * 100) / 100 });
    last = now;
  }, REPORT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** In the worker: whether a server reported itself busy within the last STALE_MS. */
export class ServersLoad {
  /** Per server, until when its last busy report holds. */
  private readonly busyUntil = new Map<number, number>();
  private readonly calmListeners: (() => void)[] = [];
  private wasBusy = false;

  constructor(private readonly clock: () => number = Date.now) {}

  heed(report: LoadReport): void {
    if (report.utilisation >= BUSY_UTILISATION) this.busyUntil.set(report.from ?? 0, this.clock() + STALE_MS);
    const wasBusy = this.wasBusy;
    if (!this.busy() && wasBusy) for (const listener of this.calmListeners) listener();
  }

  /** Whether a server is busy now (and, for heed, whether one was when last asked). */
  busy(): boolean {
    const now = this.clock();
    for (const [from, until] of this.busyUntil) if (until <= now) this.busyUntil.delete(from);
    this.wasBusy = this.busyUntil.size > 0;
    return this.wasBusy;
  }

  /** Called when a report finds every server calm after one was busy. */
  onCalm(listener: () => void): void {
    this.calmListeners.push(listener);
  }
}

/** How many items a stream may start now; see StreamRunner. */
export interface StartPace {
  /** Items `stream` may start now: Infinity when it is not held back. */
  allowed(stream: string): number;
  /** `count` items of `stream` were started. */
  started(stream: string, count: number): void;
  /** Milliseconds until `stream` may start one more, once allowed() said 0. */
  untilNext(stream: string): number;
}

/** Each stream at most `perSecond` new items a second while `load` says a server is busy. */
export class RequestsFirstPace implements StartPace {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(
    private readonly load: ServersLoad,
    private readonly perSecond: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.burst = Math.max(1, perSecond * BURST_SECONDS);
  }

  allowed(stream: string): number {
    if (!this.load.busy()) {
      this.buckets.delete(stream);
      return Number.POSITIVE_INFINITY;
    }
    return Math.floor(this.refilled(stream).tokens);
  }

  started(stream: string, count: number): void {
    if (!this.load.busy()) return;
    const bucket = this.refilled(stream);
    bucket.tokens = Math.max(0, bucket.tokens - count);
  }

  untilNext(stream: string): number {
    const bucket = this.refilled(stream);
    return Math.max(1, Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000));
  }

  private refilled(stream: string): { tokens: number; at: number } {
    const now = this.clock();
    let bucket = this.buckets.get(stream);
    if (!bucket) {
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(stream, bucket);
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    return bucket;
  }
}
