/*
 * A start waits for its database. Each step of a start that needs it (connecting, migrating,
 * sealing, the first client, the signing keys, the listener's record, the worker) is tried again
 * while the database is unavailable (unavailable.ts says which errors mean that), after 0.5, 1, 2,
 * 4, 8, then every 10 s, each failed try logged on one line with why. A database restarting, a
 * failover, a container started before its database: all pass by waiting, and a process that
 * gave up would only be restarted by whatever supervises it, with less to say.
 *
 * Any other error fails the start at once: a wrong password or a database that does not exist
 * (3D000) is a configuration to fix, which no wait mends. The wait is bounded all the same
 * (DATABASE_START_TIMEOUT_SECONDS), so that a start that cannot succeed ends with its reason
 * rather than logging for ever, unless the operator asks for that (0).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { unavailability } from './unavailable.js';

/** Seconds before the next try after `failures` failed tries of a step in a row: 0.5, 1, 2, 4, 8, then 10. */
export function retryDelaySeconds(failures: number): number {
  return Math.min(10, 0.5 * 2 ** (failures - 1));
}

/** The database stayed unavailable for as long as a start waits for it. */
export class DatabaseStartTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartTimeout';
  }
}

/** The start was asked to stop (a signal) while it waited: not a failure, nothing to report. */
export class StartStopped extends Error {
  constructor() {
    super('the start was stopped while it waited for the database');
    this.name = 'StartStopped';
  }
}

export class StartWait {
  /** How long this start has waited in all, over the steps done: the limit is for the whole start. */
  private waitedMs = 0;

  constructor(
    private readonly logger: Logger,
    /** DATABASE_START_TIMEOUT_SECONDS; 0: for ever. */
    private readonly limitSeconds: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Runs `step` until it succeeds, trying again while the database is unavailable. */
  async run<T>(step: string, fn: () => Promise<T>): Promise<T> {
    let failures = 0;
    let since = 0;
    for (;;) {
      if (this.signal?.aborted) throw new StartStopped();
      try {
        const result = await fn();
        if (failures > 0) {
          const waited = Date.now() - since;
          this.waitedMs += waited;
          this.logger.info({ step, tries: failures + 1, waitedSeconds: Math.round(waited / 100) / 10 }, `database available: ${step} done`);
        }
        return result;
      } catch (error) {
        if (this.signal?.aborted) throw new StartStopped();
        const reason = unavailability(error);
        if (reason === undefined) throw error;
        if (failures === 0) since = Date.now();
        failures += 1;
        const waited = this.waitedMs + (Date.now() - since);
        const left = this.limitSeconds * 1000 - waited;
        if (this.limitSeconds > 0 && left <= 0) {
          throw new DatabaseStartTimeout(
            `the database stayed unavailable for ${this.limitSeconds} s (DATABASE_START_TIMEOUT_SECONDS) while ${step}: ${reason}`,
          );
        }
        // The last try comes at the limit, not a backoff's length past it.
        const delay = this.limitSeconds > 0 ? Math.min(retryDelaySeconds(failures), left / 1000) : retryDelaySeconds(failures);
        const retryInSeconds = Math.round(delay * 10) / 10;
        this.logger.warn(
          { step, try: failures, retryInSeconds, reason },
          `database unavailable at start (${step}): trying again in ${retryInSeconds} s`,
        );
        await sleep(delay * 1000, undefined, { signal: this.signal }).catch(() => undefined);
      }
    }
  }
}
