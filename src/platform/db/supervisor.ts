/*
 * Keeps the embedded PostgreSQL running: when the server this process owns dies (kill -9, a PANIC
 * on a full disk, the OOM killer), it is started again on the same port and data directory, where
 * PostgreSQL's own crash recovery replays the WAL. Pools, the work listener and the workers carry
 * on: they reconnect by themselves, to the same URL, once it is back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../caught.js';
import type { Logger } from '../log.js';
import type { EmbeddedDatabase } from './embedded.js';

/** How often the server's pid is looked at: a check is a kill(pid, 0) and a read of /proc. */
const POLL_MS = 500;
/** Seconds between failed tries: 1, 2, 4, 8, 16, then 30 for as long as it takes. */
export function restartDelaySeconds(failures: number): number {
  return Math.min(30, 2 ** (failures - 1));
}

export class EmbeddedSupervisor {
  private timer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly database: EmbeddedDatabase,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.restarting || this.database.running()) return;
      this.restarting = this.restart().finally(() => (this.restarting = undefined));
    }, POLL_MS);
    // The server and the worker keep the process alive, not the watch over their database.
    this.timer.unref();
  }

  /** Before the server is stopped on purpose: no restart from now on, and none left running. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.restarting;
  }

  private async restart(): Promise<void> {
    const since = Date.now();
    for (let attempt = 1; !this.stopping.signal.aborted; attempt += 1) {
      this.logger.warn({ try: attempt }, `the embedded PostgreSQL stopped; restarting it (try ${attempt})`);
      try {
        await this.database.restart();
        this.logger.info({ tries: attempt, tookMs: Date.now() - since }, 'the embedded PostgreSQL is back');
        return;
      } catch (error) {
        const delay = restartDelaySeconds(attempt);
        this.logger.warn({ try: attempt, retryInSeconds: delay, reason: messageOf(error) }, 'restarting the embedded PostgreSQL failed');
        await sleep(delay * 1000, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      }
    }
  }
}
