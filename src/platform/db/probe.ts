/*
 * The database as a server process sees it now: a probe on a connection of its own, asked by
 * /ready, by the outage log and, while a request's query has waited for a while, by the server
 * itself. A query that waits may wait on a lock, or on a database that stopped answering (a
 * partition, a dead host): the probe takes no lock, so when it gets no answer either, the database
 * is unreachable. Then the queries that wait are dropped, their requests answered 503 at once
 * rather than when TCP gives up minutes later, and every new one is refused until the probe is
 * answered again (a circuit breaker, closed by the first answer).
 *
 * An idle server asks nothing: the probe runs only when asked, or while a checkout is held longer
 * than STALLED_MS, or while the database is unreachable.
 */
import pg from 'pg';
import { messageOf } from '../caught.js';

export type DatabaseCondition =
  | { readonly state: 'ok'; readonly ms: number }
  | { readonly state: 'read-only'; readonly ms: number }
  /** Connected, but the probe's query was not answered in time. */
  | { readonly state: 'slow'; readonly reason: string }
  | { readonly state: 'unreachable'; readonly reason: string };

/** How long the probe waits for a connection and for its answer: /ready answers within a second. */
export const PROBE_TIMEOUT_MS = 800;
/** What the probe waits for an answer on the connection it kept, before it tries a new one. */
const KEPT_SHARE_MS = 400;
/** How often held checkouts are looked at, and the probe asked again while the database is unreachable. */
const TICK_MS = 250;
/** A checkout held this long may be waiting on a database that stopped answering: the probe is asked. */
const STALLED_MS = 500;

/** pg's stream, which its types do not declare: Node's socket, reset so that nothing written is still sent. */
function dropConnection(client: pg.ClientBase): void {
  const stream = (client as { connection?: { stream?: { resetAndDestroy?(): void; destroy?(): void } } }).connection?.stream;
  if (stream?.resetAndDestroy) stream.resetAndDestroy();
  else stream?.destroy?.();
}

export class DatabaseProbe {
  private client: pg.Client | undefined;
  private asking: Promise<DatabaseCondition> | undefined;
  /** Why the database is unreachable, while it is. */
  private down: string | undefined;
  /** Checked-out connections of the watched pools, with when each was checked out. */
  private readonly held = new Map<pg.PoolClient, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `url`: the database's, reached on a connection of the probe's own. */
  constructor(private readonly url: string) {}

  /** Follows the checkouts of `pool`: a long-held one starts the probe, and is dropped if the database turns out unreachable. */
  watch(pool: pg.Pool): void {
    pool.on('acquire', (client) => this.held.set(client, Date.now()));
    pool.on('release', (_error, client) => this.held.delete(client));
    pool.on('remove', (client) => this.held.delete(client));
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.asking?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Why the database is not to be asked now (the probe found it unreachable), or undefined. */
  refusal(): string | undefined {
    return this.down;
  }

  /** The condition now: one probe at a time, its answer shared by whoever asks meanwhile. */
  check(): Promise<DatabaseCondition> {
    this.asking ??= this.probe().finally(() => {
      this.asking = undefined;
    });
    return this.asking;
  }

  private tick(): void {
    const now = Date.now();
    let stalled = false;
    for (const since of this.held.values()) if (now - since > STALLED_MS) stalled = true;
    if (stalled || this.down) void this.check();
  }

  private async probe(): Promise<DatabaseCondition> {
    const condition = await this.ask();
    if (condition.state === 'unreachable' || condition.state === 'slow') this.unreachable(condition.reason);
    else this.reachable();
    return condition;
  }

  private async ask(): Promise<DatabaseCondition> {
    const started = Date.now();
    const deadline = started + PROBE_TIMEOUT_MS;
    const kept = this.client;
    if (kept) {
      // Part of the time only: a kept connection that the server ended meanwhile (its backends
      // terminated, a restart), or that a partition silenced, tells nothing of now. A new one,
      // opened in the time left, does: refused or unanswered, the database is unreachable;
      // opened but silent, it is slow.
      const answer = await this.query(kept, started, Math.min(deadline, started + KEPT_SHARE_MS));
      if (answer.state === 'ok' || answer.state === 'read-only') return answer;
    }
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: Math.max(1, deadline - Date.now()),
      keepAlive: true,
    });
    // A probe's connection that breaks is replaced at the next probe; the error is the probe's answer, not a crash.
    client.on('error', () => this.forget(client));
    client.on('end', () => this.forget(client));
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      return { state: 'unreachable', reason: messageOf(error) };
    }
    this.client = client;
    return this.query(client, started, deadline);
  }

  private async query(client: pg.Client, started: number, deadline: number): Promise<DatabaseCondition> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now()));
    });
    try {
      const answer = await Promise.race([
        client.query<{ read_only: string }>("SELECT current_setting('transaction_read_only') AS read_only"),
        timeout,
      ]);
      if (answer === 'timeout') {
        this.forget(client);
        return { state: 'slow', reason: `no answer to the health probe within ${PROBE_TIMEOUT_MS} ms` };
      }
      const ms = Date.now() - started;
      return answer.rows[0]?.read_only === 'on' ? { state: 'read-only', ms } : { state: 'ok', ms };
    } catch (error) {
      this.forget(client);
      return { state: 'unreachable', reason: messageOf(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  private forget(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    dropConnection(client);
  }

  private unreachable(reason: string): void {
    // Told by the requests refused meanwhile (the outage's log lines, app.ts), not here.
    this.down = reason;
    // Every connection held now waits on the same silence (no new one is handed out while the
    // database is unreachable): its request is answered now, not when TCP gives up in minutes.
    for (const client of this.held.keys()) dropConnection(client);
    this.held.clear();
  }

  private reachable(): void {
    this.down = undefined;
  }
}
