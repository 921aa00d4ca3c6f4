/*
 * One database outage as the log tells it: a warning when the first failure shows it, a line
 * when it is over with how much was refused and for how long, and nothing per request or claim
 * in between (a stack per request made 900 lines in 15 s of an outage, and hid its start).
 */
import type pg from 'pg';
import type { Logger } from '../log.js';
import { unavailability } from './unavailable.js';

/** The database's state as /ready and the outage probe see it. */
export type DatabaseState = 'ok' | 'read-only' | 'unreachable';

/**
 * Whether the database takes writes: reachable, and not read-only (a standby in recovery, or
 * default_transaction_read_only set on it; both show in transaction_read_only of a new session).
 */
export async function databaseState(pool: pg.Pool): Promise<DatabaseState> {
  try {
    const { rows } = await pool.query<{ read_only: string }>("SELECT current_setting('transaction_read_only') AS read_only");
    return rows[0]?.read_only === 'on' ? 'read-only' : 'ok';
  } catch {
    return 'unreachable';
  }
}

const PROBE_INTERVAL_MS = 1_000;

export interface OutageLines {
  readonly started: string;
  readonly ended: string;
  /** The member of the ending line that says how many were refused or failed. */
  readonly counted: string;
}

export class Outage {
  private since: number | undefined;
  private count = 0;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;

  /**
   * `lines`: the messages that start and end an outage, and the name of the count the end gives.
   * `isOver`, when given, is asked every second during an outage whether it has passed; without
   * it, the caller says so (ended()) when an operation succeeds again.
   */
  constructor(
    private readonly logger: Logger,
    private readonly lines: OutageLines,
    private readonly isOver?: () => Promise<boolean>,
  ) {}

  get active(): boolean {
    return this.since !== undefined;
  }

  /** Counts a refusal for `error`; the first of an outage is logged, with why. */
  refused(error: unknown): void {
    this.count++;
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.logger.warn({ reason: unavailability(error) ?? String(error) }, this.lines.started);
    if (this.isOver) {
      this.probe = setInterval(() => void this.check(), PROBE_INTERVAL_MS);
      this.probe.unref();
    }
  }

  /** The outage, if any, is over: logged with its figures. */
  ended(): void {
    if (this.since === undefined) return;
    const seconds = Math.round((Date.now() - this.since) / 100) / 10;
    this.logger.info({ [this.lines.counted]: this.count, seconds }, this.lines.ended);
    this.since = undefined;
    this.count = 0;
    this.stopProbe();
  }

  /** Stops probing (on shutdown), without logging an end. */
  close(): void {
    this.stopProbe();
  }

  private stopProbe(): void {
    if (this.probe !== undefined) clearInterval(this.probe);
    this.probe = undefined;
  }

  private async check(): Promise<void> {
    if (this.probing || this.isOver === undefined) return;
    this.probing = true;
    try {
      if (await this.isOver()) this.ended();
    } finally {
      this.probing = false;
    }
  }
}
