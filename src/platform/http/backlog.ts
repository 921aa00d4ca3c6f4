/*
 * Backlog bounds: an agency's unfinished work in each work stream (classifieds waiting to be
 * processed, webhook deliveries not yet delivered) is bounded twice, per environment:
 *
 * - in all: at most MAX_BACKLOG_PER_AGENCY items, whatever they wait for (a receiver down for a
 *   day keeps its deliveries, waiting for their retries, and no more than that);
 * - waiting for a worker: at most MAX_WAITING_PER_AGENCY items due now and not yet taken by one.
 *   So the server admits no more than the workers get done: when they fall behind (a machine whose
 *   CPU other work takes, more agencies writing than they keep up with, one agency's receiver or
 *   media host holding its own items back), each agency's writes are refused while its own work
 *   waits, and the queue it waits in stays short, its newest item taken within that many items of
 *   the pace the workers keep (a thousand classifieds: about three seconds at the 2-core machine's
 *   pace of processing). A bound on how long the oldest item waited instead swung: that wait falls
 *   below it only once every item as old is done, the whole queue admitted behind it included,
 *   so all writes were refused for as long as that took, then all admitted again.
 *
 * A write that would add to a stream past a bound is answered 429 with Retry-After: nothing of it
 * is done. A route names the streams its writes add to (`config.addsWork`). Both counts are read
 * from the database at most once a second per agency and stream in each process, in one statement
 * over an index range (counting no further than the bound), so a flood of writes costs a statement
 * a second; a write may therefore pass a second's worth of writes past a bound, never more.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { TenantScope } from '../db/tenant.js';
import { databaseRefusal } from '../db/unavailable.js';
import { getOrMake } from '../memo.js';
import type { AgencyBacklog, BacklogMeasure, WorkStream } from '../work/stream.js';
import { tooManyRequests } from './problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The work streams a request to this route adds items to (their names): it is refused while the agency's backlog in one is at a bound. */
    addsWork?: readonly string[];
  }
}

/** How long a measure is used before it is read again. */
const FRESH_MS = 1_000;
/** Seconds a writer refused for all its unfinished items is asked to wait: a receiver down, or a retry schedule, takes long. */
export const BACKLOG_RETRY_AFTER_SECONDS = 10;
/** Seconds a writer refused for its items waiting for a worker is asked to wait: they are taken hundreds a second. */
export const WAITING_RETRY_AFTER_SECONDS = 2;

/** The bounds, per agency and stream; 0: that bound is off. */
export type BacklogBounds = BacklogMeasure;

interface Measured {
  value: BacklogMeasure;
  at: number;
  reading: Promise<BacklogMeasure> | undefined;
}

const NOTHING: BacklogMeasure = { count: 0, waiting: 0 };

export class Backlogs {
  private readonly measured = new Map<string, Measured>();
  private readonly streams: ReadonlyMap<string, WorkStream<unknown>>;

  constructor(
    private readonly pool: pg.Pool,
    streams: readonly WorkStream<unknown>[],
    readonly bounds: BacklogBounds,
  ) {
    this.streams = new Map(streams.map((stream) => [stream.name, stream]));
  }

  /** Why the tenant's writes to `names` are refused now (the first stream at a bound), or undefined. */
  async refusal(tenant: TenantScope, names: readonly string[]): Promise<{ detail: string; retryAfterSeconds: number } | undefined> {
    for (const name of names) {
      const backlog = this.streams.get(name)?.backlog;
      if (!backlog) continue;
      const { count, waiting } = await this.measure(tenant, name, backlog);
      if (this.bounds.count > 0 && count >= this.bounds.count) {
        return {
          detail: `This agency has ${count} ${backlog.noun}, the most this server keeps; retry once some are done`,
          retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS,
        };
      }
      if (this.bounds.waiting > 0 && waiting >= this.bounds.waiting) {
        return {
          detail: `This agency has ${waiting} ${backlog.waiting}, the most this server lets wait; retry in ${WAITING_RETRY_AFTER_SECONDS} s`,
          retryAfterSeconds: WAITING_RETRY_AFTER_SECONDS,
        };
      }
    }
    return undefined;
  }

  private async measure(tenant: TenantScope, name: string, backlog: AgencyBacklog): Promise<BacklogMeasure> {
    const measured = getOrMake(this.measured, `${name}|${tenant.environment}|${tenant.agencyId}`, () => ({
      value: NOTHING,
      at: 0,
      reading: undefined,
    }));
    if (Date.now() - measured.at < FRESH_MS) return measured.value;
    measured.reading ??= backlog
      .measure(this.pool, tenant, this.bounds)
      .then(
        (value) => {
          measured.value = value;
          measured.at = Date.now();
          return value;
        },
        (error: unknown) => {
          // The database cannot say: the write goes on, and meets the database itself.
          if (databaseRefusal(error) === undefined) throw error;
          return NOTHING;
        },
      )
      .finally(() => {
        measured.reading = undefined;
      });
    return measured.reading;
  }
}

/** The backlog hook of one API root (or the console's copy of it): after validation, so a bad body is told what is wrong with it first. */
export function installBacklogBounds(app: FastifyInstance, backlogs: Backlogs): void {
  if (backlogs.bounds.count === 0 && backlogs.bounds.waiting === 0) return;
  app.addHook('preHandler', (request, _reply, done) => {
    const names = request.routeOptions.config.addsWork;
    const tenant = request.tenant;
    // Only what adds work waits for the count: a callback hook, so reads pay no promise for it.
    if (names === undefined || tenant === null) return done();
    backlogs.refusal(tenant, names).then(
      (refused) => done(refused ? tooManyRequests(refused.retryAfterSeconds, refused.detail) : undefined),
      (error: unknown) => done(error as Error),
    );
  });
}
