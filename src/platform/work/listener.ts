/*
 * LISTEN for the NOTIFY that announces new work, on a connection of its own that reconnects: a
 * worker wakes at once instead of waiting for its next poll.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../log.js';

/** The channel of the NOTIFY sent after work is added (immogate_notify_work announces it, db/announcements.ts sends it); the payload names the stream. */
export const WORK_CHANNEL = 'immogate_work';

/**
 * One connection per worker process that LISTENs for new work and hands each notification's
 * stream name to `onNotice`. It reconnects when the connection drops, and then calls
 * `onReconnect`: notifications sent meanwhile were lost, so every stream should look for work.
 */
export class WorkListener {
  private stopped = false;
  private running: Promise<void> | undefined;
  private connectionLost: (() => void) | undefined;

  constructor(
    private readonly url: string | pg.ClientConfig,
    private readonly logger: Logger,
    private readonly onNotice: (stream: string) => void,
    private readonly onReconnect: () => void,
    // The event feed's long polls listen the same way on their own channel (events/waiters.ts).
    private readonly channel: string = WORK_CHANNEL,
  ) {}

  /** Resolves once listening (or after the first failed attempt, retrying in the background). */
  async start(): Promise<void> {
    let first: () => void = () => undefined;
    const listening = new Promise<void>((resolve) => (first = resolve));
    this.running = this.keepListening(first);
    await listening;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connectionLost?.();
    await this.running;
  }

  private async keepListening(ready: () => void): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const connection = typeof this.url === 'string' ? { connectionString: this.url } : this.url;
      const client = new pg.Client({ ...connection, connectionTimeoutMillis: 10_000 });
      const lost = new Promise<void>((resolve) => {
        this.connectionLost = resolve;
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      });
      client.on('notification', (message) => {
        if (message.channel === this.channel && message.payload) this.onNotice(message.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${this.channel}`);
        if (failures > 0) this.logger.info({ channel: this.channel }, 'listener reconnected');
        failures = 0;
        ready();
        this.onReconnect();
        await lost;
      } catch (error) {
        failures += 1;
        ready();
        if (failures === 1) this.logger.warn({ err: error, channel: this.channel }, 'listener lost its connection; retrying');
      } finally {
        await client.end().catch(() => undefined);
      }
      if (!this.stopped) await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)));
    }
  }
}
