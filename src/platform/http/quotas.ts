/*
 * Quotas: on the API roots (and the console's copies of their routes), each client acting for an
 * agency in an environment makes at most QUOTA_WRITES_PER_SECOND writes and QUOTA_READS_PER_SECOND
 * reads a second, bursts of one second's worth included (README "Quotas"). Past it: 429 with
 * Retry-After. Every answer says where the caller stands, in the IETF RateLimit-Policy and
 * RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `"writes";q=50;w=1` and `"writes";r=37;t=1`.
 *
 * Each quota is a token bucket in PostgreSQL (quota_buckets), so it holds across every server
 * process of a deployment. A process does not ask it per request: it takes a tenth of a second's
 * tokens at a time and spends them itself, so a client at its full rate costs a statement every
 * tenth request, and one far below it a statement every tenth request too. What a process holds
 * and has not spent is lost when the client moves to another process: a client may find up to
 * that much less than its quota, never more than its quota plus each process's handful.
 *
 * A bucket the database cannot be asked about lets the request through: the request will meet the
 * database itself, and a quota is no reason to refuse what the database would serve.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { QuotaRates } from '../../config.js';
import { databaseRefusal } from '../db/unavailable.js';
import { onlyRow, transaction, type Statement } from '../db/pool.js';
import { tooManyRequests } from './problems.js';

export type QuotaKind = 'writes' | 'reads';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Of a second's tokens, the share a process takes at a time. */
const TAKE_SHARE = 0.1;
/** Buckets a process remembers; past it the oldest go (their tokens with them: a tenth of a second's). */
const REMEMBERED = 10_000;

/** Where a caller stands after a request, for its RateLimit field and, when refused, its Retry-After. */
export interface Standing {
  allowed: boolean;
  /** Requests left now, about. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until a request would be allowed. */
  retryAfterSeconds: number;
}

interface Held {
  /** Tokens this process took and has not spent. */
  tokens: number;
  /** The shared bucket's tokens after the last take, and when. */
  shared: number;
  at: number;
  /** Until then the shared bucket is known empty: refused without asking. */
  emptyUntil: number;
  taking: Promise<void> | undefined;
}

/**
 * The statement that takes up to $3 tokens from the bucket $1 (capacity $2, refilled at $4 a
 * second since it was last stamped): one statement, the row's lock held for it alone.
 */
const TAKE = `
  INSERT INTO quota_buckets AS b (key, tokens, granted, stamped_at)
  VALUES ($1, $2::float8 - least($3::int, floor($2::float8)), least($3::int, floor($2::float8)), clock_timestamp())
  ON CONFLICT (key) DO UPDATE SET (tokens, granted, stamped_at) = (
    SELECT a.available - g.n, g.n, a.at
      FROM (SELECT least($2::float8, b.tokens + $4::float8 * extract(epoch FROM c.at - b.stamped_at)) AS available, c.at
              FROM (SELECT clock_timestamp() AS at) c) a,
           LATERAL (SELECT least($3::int, floor(a.available))::int AS n) g)
  RETURNING granted, tokens`;

/**
 * A take commits without waiting for the disk: a take lost in a crash of the database costs a
 * client at most a tenth of a second's tokens, while a take that waits for the flush of the WAL
 * holds up the request that needed it (one in ten) for as long as the disk takes, behind whatever
 * else the disk is writing.
 */
const ASYNC_COMMIT: Statement = { name: 'quota.async_commit', text: "SELECT set_config('synchronous_commit', 'off', true)" };

export class QuotaBuckets {
  private readonly held = new Map<string, Held>();

  constructor(private readonly pool: pg.Pool) {}

  /**
   * Spends one request of `key`'s bucket of `rate` a second when that needs no take from the shared
   * bucket (this process holds a token, or knows the bucket empty): most requests, answered without
   * a promise. Undefined when a take is needed: then spend().
   */
  spendHeld(key: string, rate: number): Standing | undefined {
    const held = this.held.get(key);
    return held === undefined ? undefined : standingOf(held, rate, Date.now());
  }

  /** Spends one request of `key`'s bucket of `rate` a second. */
  async spend(key: string, rate: number): Promise<Standing> {
    let held = this.held.get(key);
    if (!held) {
      held = { tokens: 0, shared: rate, at: Date.now(), emptyUntil: 0, taking: undefined };
      this.remember(key, held);
    }
    // Requests that arrive together wait for one take; those it did not cover take again, until
    // one is refused by an empty bucket.
    for (;;) {
      const standing = standingOf(held, rate, Date.now());
      if (standing !== undefined) return standing;
      if (!held.taking) {
        const taking = this.take(key, rate, held).finally(() => {
          if (held.taking === taking) held.taking = undefined;
        });
        held.taking = taking;
      }
      await held.taking;
    }
  }

  private remember(key: string, held: Held): void {
    if (this.held.size >= REMEMBERED) {
      const oldest = this.held.keys().next().value;
      if (oldest !== undefined) this.held.delete(oldest);
    }
    this.held.set(key, held);
  }

  private async take(key: string, rate: number, held: Held): Promise<void> {
    const want = Math.max(1, Math.ceil(rate * TAKE_SHARE));
    try {
      const [taken] = await transaction(this.pool, [{ name: 'quota.take', text: TAKE, values: [key, rate, want, rate] }], [ASYNC_COMMIT]);
      const { granted, tokens } = onlyRow(taken.rows as { granted: number; tokens: number }[]);
      held.tokens += granted;
      held.shared = tokens;
      held.at = Date.now();
      // Empty: no request until the bucket has refilled a whole token.
      if (granted === 0) held.emptyUntil = held.at + ((1 - tokens) / rate) * 1000;
    } catch (error) {
      // The database cannot say: the request goes on (see the module comment); anything else is ours.
      if (databaseRefusal(error) === undefined) throw error;
      held.tokens += 1;
    }
  }
}

/** One request spent of what `held` has, or undefined when that needs a take. */
function standingOf(held: Held, rate: number, now: number): Standing | undefined {
  if (held.tokens >= 1) {
    held.tokens -= 1;
    const remaining = Math.floor(Math.min(rate, held.tokens + held.shared + ((now - held.at) / 1000) * rate));
    return { allowed: true, remaining, resetSeconds: Math.ceil((rate - remaining) / rate), retryAfterSeconds: 0 };
  }
  if (now < held.emptyUntil) {
    // Empty: a whole second until it is full again.
    return { allowed: false, remaining: 0, resetSeconds: 1, retryAfterSeconds: Math.max(1, Math.ceil((held.emptyUntil - now) / 1000)) };
  }
  return undefined;
}

/** The kind of a request, by its method. */
export function quotaKind(method: string): QuotaKind {
  return WRITES.has(method) ? 'writes' : 'reads';
}

function rateOf(rates: QuotaRates, kind: QuotaKind): number {
  return kind === 'writes' ? rates.writesPerSecond : rates.readsPerSecond;
}

/** RateLimit-Policy and RateLimit, as draft-ietf-httpapi-ratelimit-headers writes them. */
function announce(reply: FastifyReply, kind: QuotaKind, rate: number, standing: Standing): void {
  reply.header('ratelimit-policy', `"${kind}";q=${rate};w=1`);
  reply.header('ratelimit', `"${kind}";r=${standing.remaining};t=${standing.resetSeconds}`);
}

/**
 * The quota hook of one API root (or the console's copy of it): after the guard, which set the
 * request's tenant; a public route (none is counted) has none.
 */
export function installQuotas(app: FastifyInstance, buckets: QuotaBuckets, rates: QuotaRates): void {
  const settle = (reply: FastifyReply, kind: QuotaKind, rate: number, standing: Standing): Error | undefined => {
    announce(reply, kind, rate, standing);
    if (standing.allowed) return undefined;
    return tooManyRequests(
      standing.retryAfterSeconds,
      `At most ${rate} ${kind} a second are allowed for this client and agency; retry in ${standing.retryAfterSeconds} s`,
    );
  };
  // A callback hook: a request this process holds a token for is answered without a promise.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const tenant = request.tenant;
    if (tenant === null) return done();
    const kind = quotaKind(request.method);
    const rate = rateOf(rates, kind);
    if (rate === 0) return done();
    const key = `${kind}|${tenant.environment}|${tenant.clientId}|${tenant.agencyId}`;
    const held = buckets.spendHeld(key, rate);
    if (held !== undefined) return done(settle(reply, kind, rate, held));
    buckets.spend(key, rate).then(
      (standing) => done(settle(reply, kind, rate, standing)),
      (error: unknown) => done(error as Error),
    );
  });
}

/** Deletes buckets untouched for a minute: refilled long since, they are what an absent one is. */
export async function pruneQuotaBuckets(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query("DELETE FROM quota_buckets WHERE stamped_at < now() - interval '1 minute'");
  return rowCount ?? 0;
}
