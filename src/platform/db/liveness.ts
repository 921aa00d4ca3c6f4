/*
 * Noticing, while a migration or another start-up step runs on maintenance connections, that the
 * database stopped answering. Those connections have no deadline on purpose (limits.ts): a
 * migration takes as long as its data takes, a CREATE INDEX on a big table minutes, so no
 * timeout per statement tells a long statement from a database gone silent behind a partition,
 * where no error ever comes back and the statement waits for ever, with nothing logged.
 *
 * So a second connection asks the database every 2 s whether the sessions the watched pool has
 * checked out are still there (pg_stat_activity). A statement however long, on a database that
 * answers, is left to run. Two things end it: its session is gone from the server (it was ended
 * there while our side heard nothing), or the database has answered nothing at all, neither the
 * check nor a new connection, for 15 s. Its connection is then destroyed with DatabaseUnreachable,
 * which fails the statement as any lost connection would, and the start retries the step
 * (startWait.ts). A check the server refuses with an error of its own (no connection slot left,
 * starting up) is an answer: the server is there, and a session it ended tells our side itself.
 *
 * Behind a partition the server may not learn that our side gave up: the session we abandoned
 * runs on there, holding its transaction's locks and the migrations' advisory lock, until its
 * own TCP keepalive ends it, hours later by default. The next watch on that database therefore
 * first ends the sessions abandoned before (pg_terminate_backend, a session of our own role,
 * matched by pid and start time), so that the retried step does not wait on them.
 */
import pg from 'pg';
import { messageOf } from '../caught.js';
import type { Pool } from './pool.js';
import { DatabaseUnreachable } from './unavailable.js';

const CHECK_EVERY_MS = 2_000;
/** A check (its connect, then its query) answered later than this counts as no answer. */
const CHECK_TIMEOUT_MS = 5_000;
/** No answer at all for this long: the watched connections are given up. */
const SILENCE_MS = 15_000;

interface Session {
  pid: number;
  /** pg_stat_activity.backend_start, once a check saw it: with the pid, it names the session for good. */
  started: string | undefined;
}

interface Abandoned extends Session {
  at: Date;
}

/** Sessions given up for lost, per database (its connection string), for the next watch to end. */
const abandoned = new Map<string, Abandoned[]>();

/**
 * Runs `fn`, whose statements use `pool`, and fails those that wait on a database that stopped
 * answering (see the module comment). Sessions given up by an earlier watch on the same database
 * are ended first; failing to reach the database for that fails this call as unavailable.
 */
export async function whileAnswering<T>(pool: Pool, fn: () => Promise<T>): Promise<T> {
  const watch = new Watch(pool);
  await watch.endAbandoned();
  watch.start();
  try {
    return await fn();
  } finally {
    watch.stop();
  }
}

/** The connection of a pg client, whose type pg's declarations leave out: every member optional. */
function socketOf(client: pg.ClientBase): { destroy?(error?: Error): void } | undefined {
  return (client as { connection?: { stream?: { destroy?(error?: Error): void } } }).connection?.stream;
}

class Watch {
  private readonly sessions = new Map<pg.ClientBase, Session>();
  private readonly key: string;
  private timer: NodeJS.Timeout | undefined;
  private checker: pg.Client | undefined;
  private checking = false;
  private stopped = false;
  /** The last time the database answered anything, or nothing was waiting on it. */
  private answeredAt = Date.now();

  private readonly acquired = (client: pg.ClientBase) => {
    const pid = (client as { processID?: number | null }).processID;
    if (typeof pid === 'number') this.sessions.set(client, { pid, started: undefined });
  };

  private readonly released = (_error: unknown, client: pg.ClientBase) => {
    this.sessions.delete(client);
  };

  constructor(private readonly pool: Pool) {
    this.key = pool.options.connectionString ?? JSON.stringify({ host: pool.options.host, port: pool.options.port });
  }

  start(): void {
    this.pool.on('acquire', this.acquired);
    this.pool.on('release', this.released);
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.pool.off('acquire', this.acquired);
    this.pool.off('release', this.released);
    this.dropChecker();
  }

  /** Ends the sessions an earlier watch gave up, which may still hold their locks on the server. */
  async endAbandoned(): Promise<void> {
    const lost = abandoned.get(this.key);
    if (!lost || lost.length === 0) return;
    const client = this.newClient();
    try {
      await client.connect();
      for (const session of [...lost]) {
        try {
          // Of our role only, and the very session: a pid alone may name a newer one by now.
          await client.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE pid = $1 AND usename = current_user
                AND (backend_start = $2::timestamptz OR ($2::timestamptz IS NULL AND backend_start < $3))`,
            [session.pid, session.started ?? null, session.at],
          );
        } catch (error) {
          // Refused by the server (a role that may not end it): left to its keepalive. Not answered: tried again next time.
          if (!(error instanceof pg.DatabaseError)) throw error;
        }
        lost.splice(lost.indexOf(session), 1);
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private newClient(): pg.Client {
    const client = new pg.Client({
      ...this.pool.options,
      connectionTimeoutMillis: CHECK_TIMEOUT_MS,
      query_timeout: CHECK_TIMEOUT_MS,
      statement_timeout: CHECK_TIMEOUT_MS,
      lock_timeout: CHECK_TIMEOUT_MS,
      idle_in_transaction_session_timeout: 0,
    });
    // A check's connection that breaks is made again by the next check; its error is that check's answer.
    client.on('error', () => {
      if (this.checker === client) this.checker = undefined;
    });
    return client;
  }

  private dropChecker(): void {
    const checker = this.checker;
    this.checker = undefined;
    if (!checker) return;
    socketOf(checker)?.destroy?.();
    checker.end().catch(() => undefined);
  }

  private async check(): Promise<void> {
    if (this.checking || this.stopped) return;
    const watched = [...this.sessions];
    if (watched.length === 0) {
      // Silence while nothing waits on the database costs nothing: it is not counted.
      this.answeredAt = Date.now();
      return;
    }
    this.checking = true;
    try {
      if (!this.checker) {
        const client = this.newClient();
        this.checker = client;
        await client.connect();
      }
      const { rows } = await this.checker.query<{ pid: number; started: string }>(
        'SELECT pid, backend_start::text AS started FROM pg_stat_activity WHERE pid = ANY($1::int[])',
        [watched.map(([, session]) => session.pid)],
      );
      this.answeredAt = Date.now();
      for (const [client, session] of watched) {
        const row = rows.find((candidate) => candidate.pid === session.pid);
        if (row) session.started ??= row.started;
        // Gone from the server: nothing of it is left there to end.
        else this.lose(client, `the session of a start-up connection ended on the server (pid ${session.pid})`, false);
      }
    } catch (error) {
      this.dropChecker();
      // The server refused with an error of its own: it is there, and answers.
      if (error instanceof pg.DatabaseError) this.answeredAt = Date.now();
      else if (Date.now() - this.answeredAt >= SILENCE_MS) {
        const why = `no answer from the database for ${SILENCE_MS / 1000} s while a start-up statement waited on it (${messageOf(error)})`;
        for (const [client] of watched) this.lose(client, why, true);
      }
    } finally {
      this.checking = false;
    }
  }

  private lose(client: pg.ClientBase, why: string, mayRunOn: boolean): void {
    const session = this.sessions.get(client);
    if (this.stopped || !session) return;
    this.sessions.delete(client);
    if (mayRunOn) {
      const list = abandoned.get(this.key) ?? [];
      list.push({ ...session, at: new Date() });
      abandoned.set(this.key, list);
    }
    // As a reset connection would: its statement fails, and the pool drops the connection when it is released.
    socketOf(client)?.destroy?.(new DatabaseUnreachable(why));
  }
}
