/*
 * Announcements of new work and new events, sent after the commit of the write that made them.
 *
 * A NOTIFY in a write's transaction makes its commit wait for every other such commit:
 * PostgreSQL holds a lock on its notification queue from the moment a transaction queues its
 * notifications until its commit is on disk (migrations/025). The triggers that used to NOTIFY
 * raise a notice instead (SQLSTATE IGANN: the message is the channel, the detail the payload),
 * which reaches the session that wrote at once. Each connection of a pool keeps the notices it
 * receives; when the connection is given back, after its transaction ended, they go to the pool's
 * Announcer, which sends them as NOTIFYs in a transaction of its own that does not wait for the
 * disk: one statement for everything announced while the previous one was on its way.
 *
 * A notice of a write that rolled back is sent too: a listener woken for nothing looks once and
 * finds nothing. A NOTIFY that is never sent (the process ended first, the database was away) is
 * what the listeners' own safety nets are for: the workers look for work every few seconds
 * anyway, and a long poll ends at its time and is asked again.
 */
import type pg from 'pg';
import { getOrMake } from '../memo.js';

/** The SQLSTATE of the notices immogate_announce() raises. */
const ANNOUNCEMENT = 'IGANN';

/**
 * Distinct announcements waiting for the next NOTIFY statement. Far beyond what one statement's
 * time gathers (a few per work stream, one per tenant with new events); beyond it, a listener
 * falls back on its safety net.
 */
const MAX_PENDING = 10_000;

const NOTIFY: { name: string; text: string } = {
  name: 'platform.announce',
  // Committed without waiting for the disk: a notification has nothing to keep, and a commit
  // that waited would hold the notification queue's lock for as long as the disk takes.
  text: `WITH async AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))
         SELECT pg_notify(n.channel, n.payload) FROM async, unnest($1::text[], $2::text[]) AS n (channel, payload)`,
};

class Announcer {
  /** channel, then payload: each pair once. */
  private readonly pending = new Map<string, Set<string>>();
  private size = 0;
  private sending = false;
  private readonly heard = new WeakMap<pg.ClientBase, Map<string, Set<string>>>();

  constructor(private readonly pool: pg.Pool) {
    pool.on('connect', (client) => client.on('notice', (notice) => this.hear(client, notice)));
    pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => this.handOver(client));
  }

  private hear(client: pg.ClientBase, notice: { code?: string; message?: string; detail?: string }): void {
    if (notice.code !== ANNOUNCEMENT || notice.message === undefined) return;
    add(
      getOrMake(this.heard, client, () => new Map()),
      notice.message,
      notice.detail ?? '',
    );
  }

  /** The connection's transaction has ended: what it announced goes out. */
  private handOver(client: pg.PoolClient): void {
    const heard = this.heard.get(client);
    if (!heard || heard.size === 0) return;
    for (const [channel, payloads] of heard) {
      for (const payload of payloads) {
        if (this.size >= MAX_PENDING) break;
        if (add(this.pending, channel, payload)) this.size += 1;
      }
    }
    heard.clear();
    this.schedule();
  }

  private schedule(): void {
    if (this.sending || this.size === 0) return;
    this.sending = true;
    // Whatever else is given back in this turn of the event loop goes in the same statement.
    setImmediate(() => void this.send());
  }

  private async send(): Promise<void> {
    const channels: string[] = [];
    const payloads: string[] = [];
    for (const [channel, set] of this.pending) {
      for (const payload of set) {
        channels.push(channel);
        payloads.push(payload);
      }
    }
    this.pending.clear();
    this.size = 0;
    try {
      await this.pool.query({ ...NOTIFY, values: [channels, payloads] });
    } catch {
      // Lost: the listeners' safety nets (see the module comment) find what it announced.
    } finally {
      this.sending = false;
      this.schedule();
    }
  }
}

/** Adds the pair; true if it was not there yet. */
function add(map: Map<string, Set<string>>, channel: string, payload: string): boolean {
  const set = getOrMake(map, channel, () => new Set<string>());
  if (set.has(payload)) return false;
  set.add(payload);
  return true;
}

/** Announcements of `pool`'s connections are sent once their transaction has ended (see the module comment). */
export function announceAfterCommit(pool: pg.Pool): void {
  new Announcer(pool);
}
