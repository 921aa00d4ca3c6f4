/*
 * Shares of the request pool. Each part of the server (each API's routes; the platform's own: the
 * token endpoint, the console, /admin) holds at most its share of the pool's connections at once.
 * A part whose queries wait (a table an operator locked, a slow statement) fills its own share and
 * waits there, and the other parts find the rest of the pool free: before, requests waiting on one
 * locked table held every connection, and every request of every API waited for the pool.
 *
 * Every wait is bounded: a checkout that gets no connection within DATABASE_CHECKOUT_TIMEOUT_MS is
 * refused (DatabaseBusy, a 503), and one made while the health probe finds the database
 * unreachable is refused at once (DatabaseUnreachable). A share whose every place has been held
 * longer than STALLED_MS is stalled (its holders wait on a lock, or on a slow statement): a
 * checkout waiting there would most likely wait on the same thing, after its turn came, so it is
 * refused at once rather than after its wait, and the time to a refusal stays the lock's deadline
 * and no more.
 *
 * A share is a pg.Pool to whoever uses it (repositories take pools), but opens no connection of
 * its own: pg-pool's query() checks a connection out through connect(), which a share overrides.
 */
import pg from 'pg';
import { DatabaseBusy, DatabaseUnreachable, isDatabaseBusy } from './unavailable.js';

/** The health probe's verdict (db/probe.ts): why the database must not be asked, or undefined. */
export interface Verdict {
  /** As last found, at once. */
  now(): string | undefined;
  /** Asked again now (once for every caller meanwhile): a checkout that found no connection may have met a database that stopped answering. */
  fresh(): Promise<string | undefined>;
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

interface Waiter {
  resolve(place: Place): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One of a share's places, held from the start of a checkout to the release of its connection. */
interface Place {
  since: number;
}

/** A place held this long is stalled (a short transaction takes milliseconds); see the module comment. */
export const STALLED_MS = 500;
/** How often a share with waiters looks whether its places all stalled meanwhile. */
const STALL_CHECK_MS = 100;

/** The request pool's state that /ready reports: when a checkout last found the whole pool taken. */
export class PoolPressure {
  private lastBusy = 0;

  constructor(readonly pool: pg.Pool) {}

  busy(): void {
    this.lastBusy = Date.now();
  }

  /** Whether every connection is taken now, and a checkout found none free within `withinMs` before. */
  exhausted(withinMs: number): boolean {
    const pool = this.pool;
    return Date.now() - this.lastBusy < withinMs && pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
  }
}

export class PoolShare extends pg.Pool {
  private readonly places = new Set<Place>();
  private readonly queue: Waiter[] = [];
  private stallCheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly base: pg.Pool,
    readonly share: string,
    private readonly max: number,
    private readonly checkoutTimeoutMs: number,
    private readonly verdict: Verdict,
    private readonly pressure: PoolPressure,
  ) {
    // The base's options, for whoever reads them (the event feed's listener connects with them).
    super(base.options);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    const checkout = this.checkout();
    if (!callback) return checkout;
    checkout.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as boolean | Error | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
    return undefined;
  }

  /** The base pool is ended by its owner, once, after every share's users are done. */
  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | undefined {
    if (callback) {
      callback();
      return undefined;
    }
    return Promise.resolve();
  }

  private async checkout(): Promise<pg.PoolClient> {
    const refused = this.verdict.now();
    if (refused !== undefined) throw new DatabaseUnreachable(refused);
    const started = Date.now();
    const place = await this.take(started);
    let client: pg.PoolClient;
    try {
      client = await this.fromBase(this.checkoutTimeoutMs - (Date.now() - started));
    } catch (error) {
      this.giveBack(place);
      throw error;
    }
    const release = client.release.bind(client);
    let released = false;
    client.release = (error?: boolean | Error) => {
      // pg-pool refuses a second release itself; the share's place must not be given back twice either.
      if (!released) {
        released = true;
        this.giveBack(place);
      }
      release(error);
    };
    return client;
  }

  /**
   * Why a checkout got no connection: the database stopped answering (the probe, asked now, says
   * so: the connections are held by queries that will get no answer), or the server is busy.
   */
  private async busy(fromPool = false): Promise<Error> {
    const unreachable = await this.verdict.fresh();
    if (unreachable !== undefined) return new DatabaseUnreachable(unreachable);
    // The pool itself had none to give (not just this share's part of it): /ready says so.
    if (fromPool) this.pressure.busy();
    return new DatabaseBusy(this.share, this.checkoutTimeoutMs);
  }

  /** Whether every place is taken, each for longer than STALLED_MS. */
  private stalled(now: number): boolean {
    if (this.places.size < this.max) return false;
    for (const place of this.places) if (now - place.since < STALLED_MS) return false;
    return true;
  }

  /** One of the share's places, within the checkout deadline. */
  private take(now: number): Promise<Place> {
    if (this.places.size < this.max) {
      const place = { since: now };
      this.places.add(place);
      return Promise.resolve(place);
    }
    if (this.stalled(now)) return this.busy().then((error) => Promise.reject(error));
    return new Promise<Place>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => this.refuse(waiter), this.checkoutTimeoutMs),
      };
      this.queue.push(waiter);
      this.stallCheck ??= setInterval(() => {
        if (this.stalled(Date.now())) for (const waiting of [...this.queue]) this.refuse(waiting);
      }, STALL_CHECK_MS);
    });
  }

  private refuse(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    this.queue.splice(this.queue.indexOf(waiter), 1);
    this.quietIfNoneWait();
    void this.busy().then((error) => waiter.reject(error));
  }

  /** A place is free: the longest waiter takes it over, as a place of its own from now. */
  private giveBack(place: Place): void {
    this.places.delete(place);
    const waiter = this.queue.shift();
    this.quietIfNoneWait();
    if (!waiter) return;
    clearTimeout(waiter.timer);
    const taken = { since: Date.now() };
    this.places.add(taken);
    waiter.resolve(taken);
  }

  private quietIfNoneWait(): void {
    if (this.queue.length > 0 || this.stallCheck === undefined) return;
    clearInterval(this.stallCheck);
    this.stallCheck = undefined;
  }

  /** A connection of the base pool within `ms`; one that comes later goes back to the pool unused. */
  private fromBase(ms: number): Promise<pg.PoolClient> {
    if (ms <= 0) return this.busy(true).then((error) => Promise.reject(error));
    const connecting = this.base.connect();
    return new Promise<pg.PoolClient>((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        void this.busy(true).then(reject);
      }, ms);
      connecting.then(
        (client) => {
          clearTimeout(timer);
          if (late) client.release();
          else resolve(client);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (late) return;
          // The pool's own wait may end first (it began first, for as long): told like ours.
          if (isDatabaseBusy(error)) void this.busy(true).then(reject);
          else reject(error);
        },
      );
    });
  }
}

/** How many connections of a pool of `size` one part may hold: half, so that a stuck part leaves the rest to the others. */
export function shareOf(size: number): number {
  return Math.max(1, Math.ceil(size / 2));
}
