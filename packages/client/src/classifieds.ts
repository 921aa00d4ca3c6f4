/*
 * The classifieds ingestion API v4: writes acknowledged with 202 and processed afterwards, the
 * reads, the statuses of a classified (and a wait for the outcome of its latest write), and the
 * status webhook subscription. Every call carries the three-part User-Agent the API requires.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'openapi-fetch';
import { ImmogateError, WaitTimeoutError } from './errors.js';
import type { components, paths } from './generated/caas.js';
import { Paged } from './paging.js';
import { type WriteOptions, writeHeaders } from './transport.js';

export type CaasPaths = paths;
/** A classified as POST and PUT take it. */
export type Classified = components['schemas']['AvivClassified'];
/** A classified as GET answers it: the payload with its classifiedId. */
export type StoredClassified = paths['/classifieds/{classifiedId}']['get']['responses'][200]['content']['application/json'];
/** A status as GET .../statuses lists it and the status webhook posts it. */
export type ClassifiedStatus = components['schemas']['ClassifiedStatusInternal'];
export type StatusName = ClassifiedStatus['status'];
export type Portal = Classified['portals'][number];
/** The body of PUT /webhooks: where to post statuses, which ones, and the key to sign them with. */
export type StatusWebhook = components['schemas']['Webhook'];
export type ClassifiedListQuery = Omit<NonNullable<paths['/classifieds']['get']['parameters']['query']>, 'nextToken'>;
export type StatusQuery = Omit<
  NonNullable<paths['/classifieds/{classifiedId}/statuses']['get']['parameters']['query']>,
  'nextToken' | 'current'
>;

/** One event of the feed (GET /events): a status recorded, with the cursor to resume after it. */
export type FeedEvent = paths['/events']['get']['responses'][200]['content']['application/json']['events'][number];

export interface EventFollowOptions {
  /** Resume after this cursor (an event's `cursor` or a page's `next`); absent: from the oldest event kept. */
  after?: string;
  /** Only these types (the classifieds API has `classified.status`). */
  types?: string[];
  /** Seconds each long poll waits for an event when there is none (1..30, default 30). */
  waitSeconds?: number;
  /** Ends the iteration (the long poll under way is abandoned). */
  signal?: AbortSignal;
}

/** What a write's 202 says: the classified, and the ETag (the revision the write creates) for a later If-Match. */
export interface Acknowledgement {
  classifiedId: string;
  etag: string | undefined;
  revision: number | undefined;
}

export interface ClassifiedRead {
  classified: StoredClassified;
  etag: string | undefined;
  revision: number | undefined;
}

export interface WaitOptions {
  /** Give up (WaitTimeoutError) after this long (default 2 minutes). */
  timeoutMs?: number;
  /** The first pause between polls; each next one doubles, up to maxDelayMs (default 250 ms). */
  initialDelayMs?: number;
  /** The longest pause between polls (default 5 s). */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/** The outcome of a classified's latest write. */
export interface TerminalState {
  classifiedId: string;
  revision: number;
  /** No outcome is a failure: accepted by its portals (media errors included), or deleted. */
  succeeded: boolean;
  /** The outcome statuses (accepted or rejected, per portal group), newest first. */
  outcomes: ClassifiedStatus[];
  /** Every status of the revision, newest first. */
  statuses: ClassifiedStatus[];
}

/** The statuses that end a write's processing, for some or all of its portals. */
const OUTCOMES: ReadonlySet<StatusName> = new Set<StatusName>([
  'RECEIVING_FAILED',
  'CREATED',
  'CREATED_WITH_MEDIA_ERROR',
  'CREATING_FAILED',
  'UPDATED',
  'UPDATED_WITH_MEDIA_ERROR',
  'UPDATING_FAILED',
  'DELETED',
  'DELETING_FAILED',
]);

function revisionOf(etag: string | null): number | undefined {
  const match = etag === null ? null : /^"(\d+)"$/.exec(etag);
  return match ? Number(match[1]) : undefined;
}

/**
 * The outcome of a revision from its statuses, once it is complete: an outcome status names the
 * portals it speaks for, so the write is done when the outcomes cover every portal its RECEIVED
 * status names (immogate records them together; an API recording them portal by portal is waited
 * for until the last), or one speaks for the whole write (no portals: a failure before the
 * portals' rules; a delete).
 */
function terminalOf(classifiedId: string, statuses: ClassifiedStatus[]): TerminalState | undefined {
  const outcomes = statuses.filter((status) => OUTCOMES.has(status.status));
  const first = statuses[0];
  if (outcomes.length === 0 || first === undefined) return undefined;
  const received = statuses.find((status) => status.status === 'RECEIVED');
  const covered = new Set(outcomes.flatMap((status) => status.portals));
  const whole =
    received === undefined ||
    received.subStatus === 'RECEIVED_DELETE' ||
    outcomes.some((status) => status.portals.length === 0 || status.status === 'RECEIVING_FAILED') ||
    received.portals.every((portal) => covered.has(portal));
  if (!whole) return undefined;
  return {
    classifiedId,
    revision: first.revision,
    succeeded: outcomes.every((status) => !status.status.endsWith('_FAILED')),
    outcomes,
    statuses,
  };
}

export class StatusWebhooks {
  constructor(
    private readonly http: Client<paths>,
    private readonly header: { 'User-Agent': string },
  ) {}

  /** PUT /webhooks: posts every new status (of `statuses`, or all) to `{url}/classifieds/{classifiedId}/statuses`, signed with `secret`. Replaces an earlier subscription. */
  async subscribe(webhook: StatusWebhook): Promise<void> {
    await this.http.PUT('/webhooks', { params: { header: this.header }, body: webhook });
  }

  /** DELETE /webhooks: ends the subscription (a ProblemError 404 when there is none). */
  async unsubscribe(): Promise<void> {
    await this.http.DELETE('/webhooks', { params: { header: this.header } });
  }
}

export class Classifieds {
  readonly webhooks: StatusWebhooks;
  private readonly header: { 'User-Agent': string };

  constructor(
    private readonly http: Client<paths>,
    userAgent: string,
  ) {
    this.header = { 'User-Agent': userAgent };
    this.webhooks = new StatusWebhooks(http, this.header);
  }

  /** POST /classifieds: acknowledged at once (202), processed afterwards (see waitForTerminal). */
  async create(classified: Classified, options: WriteOptions = {}): Promise<Acknowledgement> {
    const { data, response } = await this.http.POST('/classifieds', {
      params: { header: this.header },
      headers: writeHeaders(options),
      body: classified,
    });
    return this.acknowledgement(data?.classifiedId, response);
  }

  /** PUT /classifieds/{id}; with `ifMatch` (an ETag) only if nobody wrote it since (else a ProblemError 412). */
  async update(classifiedId: string, classified: Classified, options: { ifMatch?: string } = {}): Promise<Acknowledgement> {
    const header = options.ifMatch === undefined ? this.header : { ...this.header, 'If-Match': options.ifMatch };
    const { response } = await this.http.PUT('/classifieds/{classifiedId}', {
      params: { header, path: { classifiedId } },
      body: classified,
    });
    return this.acknowledgement(classifiedId, response);
  }

  /** DELETE /classifieds/{id}: once DELETED is recorded the classified is gone. */
  async delete(classifiedId: string): Promise<Acknowledgement> {
    const { response } = await this.http.DELETE('/classifieds/{classifiedId}', { params: { header: this.header, path: { classifiedId } } });
    return this.acknowledgement(classifiedId, response);
  }

  /** GET /classifieds/{id} with its ETag; with `ifNoneMatch`, undefined while the classified is still at that ETag (304). */
  async get(classifiedId: string): Promise<ClassifiedRead>;
  async get(classifiedId: string, options: { ifNoneMatch?: string }): Promise<ClassifiedRead | undefined>;
  async get(classifiedId: string, options: { ifNoneMatch?: string } = {}): Promise<ClassifiedRead | undefined> {
    const header = options.ifNoneMatch === undefined ? this.header : { ...this.header, 'If-None-Match': options.ifNoneMatch };
    const { data, response } = await this.http.GET('/classifieds/{classifiedId}', { params: { header, path: { classifiedId } } });
    if (response.status === 304) return undefined;
    if (data === undefined) throw new ImmogateError(`GET ${response.url}: ${response.status} without a body`);
    const etag = response.headers.get('etag');
    return { classified: data, etag: etag ?? undefined, revision: revisionOf(etag) };
  }

  /** GET /classifieds, newest first, every page. */
  list(query: ClassifiedListQuery = {}): Paged<StoredClassified> {
    return new Paged(async (nextToken) => {
      const { data, response } = await this.http.GET('/classifieds', {
        params: { header: this.header, query: { ...query, ...(nextToken === undefined ? {} : { nextToken }) } },
      });
      if (data === undefined) throw new ImmogateError(`GET ${response.url}: ${response.status} without a body`);
      return { items: data.items, next: data.nextToken };
    });
  }

  /** GET /classifieds/{id}/statuses, newest first, every page. */
  statuses(classifiedId: string, query: StatusQuery = {}): Paged<ClassifiedStatus> {
    return new Paged(async (nextToken) => {
      const { data, response } = await this.http.GET('/classifieds/{classifiedId}/statuses', {
        params: { header: this.header, path: { classifiedId }, query: { ...query, ...(nextToken === undefined ? {} : { nextToken }) } },
      });
      if (data === undefined) throw new ImmogateError(`GET ${response.url}: ${response.status} without a body`);
      return { items: data.items, next: data.nextToken };
    });
  }

  /**
   * GET /events (an immogate extension): every event after `after`, page by page, then following
   * the feed by long polls until `signal` aborts; the iteration never ends by itself. Keep the
   * `cursor` of the last event handled to resume after a restart; a cursor older than the
   * retention throws a ProblemError 410 whose `oldestCursor` says where to resume.
   */
  async *events(options: EventFollowOptions = {}): AsyncGenerator<FeedEvent, void, undefined> {
    let after = options.after;
    const wait = options.waitSeconds ?? 30;
    while (!options.signal?.aborted) {
      let data: { events: FeedEvent[]; next: string } | undefined;
      let response: Response;
      try {
        ({ data, response } = await this.http.GET('/events', {
          params: {
            header: this.header,
            query: {
              limit: 100,
              wait,
              ...(after === undefined ? {} : { after }),
              ...(options.types === undefined ? {} : { types: options.types.join(',') }),
            },
          },
          signal: options.signal,
        }));
      } catch (error) {
        if (options.signal?.aborted) return;
        throw error;
      }
      if (data === undefined) throw new ImmogateError(`GET ${response.url}: ${response.status} without a body`);
      for (const event of data.events) {
        if (options.signal?.aborted) return;
        yield event;
      }
      after = data.next;
    }
  }

  /**
   * Polls the statuses of the classified's latest write (filter=latest) until its outcome is
   * recorded for all its portals, pausing longer after each poll.
   */
  async waitForTerminal(classifiedId: string, options: WaitOptions = {}): Promise<TerminalState> {
    const until = Date.now() + (options.timeoutMs ?? 120_000);
    let delay = options.initialDelayMs ?? 250;
    const maxDelay = options.maxDelayMs ?? 5_000;
    for (;;) {
      const statuses = await this.statuses(classifiedId, { filter: 'latest' }).toArray();
      const terminal = terminalOf(classifiedId, statuses);
      if (terminal) return terminal;
      const left = until - Date.now();
      if (left <= 0) {
        throw new WaitTimeoutError(
          `classified ${classifiedId}: no outcome within ${options.timeoutMs ?? 120_000} ms (latest status ${statuses[0]?.status ?? 'none'})`,
          statuses,
        );
      }
      await sleep(Math.min(delay, left), undefined, { signal: options.signal });
      delay = Math.min(delay * 2, maxDelay);
    }
  }

  private acknowledgement(classifiedId: string | undefined, response: Response): Acknowledgement {
    if (classifiedId === undefined) throw new ImmogateError(`${response.url}: ${response.status} without a classifiedId`);
    const etag = response.headers.get('etag');
    return { classifiedId, etag: etag ?? undefined, revision: revisionOf(etag) };
  }
}
