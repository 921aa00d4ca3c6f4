/*
 * GET {root}/events (an immogate extension on every API root): the tenant's events after a
 * cursor, in commit order; `wait` long-polls until one exists.
 */
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type pg from 'pg';
import type { EventWaiterLimits } from '../../config.js';
import { tenantOf } from '../auth/guard.js';
import type { ApiDescriptor } from '../catalogue.js';
import type { OperationDocs } from '../http/openapiDocs.js';
import { badRequest, tooManyRequests } from '../http/problems.js';
import { decodeCursor, readFeed, START, type FeedPage } from './feed.js';
import { FEEDS } from './types.js';
import type { EventWaiters, WaiterCap } from './waiters.js';

export const MAX_WAIT_SECONDS = 30;
export const MAX_EVENTS_PAGE = 100;
export const EVENT_OPERATION_IDS: Readonly<Record<ApiDescriptor['id'], string>> = {
  caas: 'listClassifiedEvents',
  leads: 'listLeadEvents',
  clim: 'listListingEvents',
};

export const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ maxLength: 200, description: 'A `cursor` or `next` this feed returned; absent: from the oldest event kept.' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: MAX_EVENTS_PAGE, default: 50, description: 'Events per page.' }),
    types: Type.Optional(Type.String({ maxLength: 500, description: 'Comma-separated event types to keep; absent: all.' })),
    wait: Type.Integer({
      minimum: 0,
      maximum: MAX_WAIT_SECONDS,
      default: 0,
      description: 'Seconds to wait for an event when there is none yet (long polling); 0 answers at once.',
    }),
  },
  { additionalProperties: false },
);

const FeedEventSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The event id; also the webhook-id of the webhooks that announce it.' }),
  type: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  subject: Type.String({ description: 'What the event is about: a classifiedId, a leadId or an externalListingId.' }),
  data: Type.Object({}, { additionalProperties: true }),
  cursor: Type.String({ description: 'Opaque: `after` resumes just after this event.' }),
});

export const EventPage = Type.Object({
  events: Type.Array(FeedEventSchema),
  next: Type.String({ description: 'The cursor to read on from: the last event’s, or the `after` given when there was none.' }),
});

/** What the document says of the operation, per API (each API's docs.ts lists it). */
export function eventFeedDocs(id: ApiDescriptor['id']): OperationDocs {
  return {
    tags: ['Events'],
    summary: 'Read the event feed (immogate extension)',
    description:
      `What happened to your agency in this environment, oldest first, in commit order: ${FEEDS[id].types.map((type) => `\`${type}\``).join(', ')}. ` +
      'Pass the `next` of a page as `after` to read on; a follower never misses an event, even of transactions that commit ' +
      `out of order. With \`wait\` (at most ${MAX_WAIT_SECONDS} seconds) an empty answer waits until an event exists. Events are ` +
      'kept as long as webhook deliveries (DELIVERY_RETENTION_DAYS of the server); an `after` older than that is answered 410 ' +
      'with the `oldestCursor` to resume from.',
    responses: {
      '200': 'A page of events, possibly empty.',
      // Only the classifieds document lists its problem answers one by one (openapi.ts adds the 410).
      ...(id === 'caas' ? { '410': 'Events after this cursor were removed by retention: resume from `oldestCursor`.' } : {}),
    },
  };
}

export const EVENTS_TAG = {
  name: 'Events',
  description: 'The event feed: what happened since a cursor, to catch up after an outage or follow without a webhook.',
};

export interface EventRouteOptions {
  pool: pg.Pool;
  waiters: EventWaiters;
  retentionDays: number;
}

/** The detail of a 429 of each waiter cap. */
const REFUSALS: Readonly<Record<WaiterCap, (limits: EventWaiterLimits) => string>> = {
  client: (limits) =>
    `Too many long polls of this client are waiting: at most ${limits.perClient} per client on this server; retry in a second.`,
  server: (limits) => `Too many long polls are waiting on this server: at most ${limits.perServer}; retry in a second.`,
};

function typesOf(api: ApiDescriptor['id'], text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const types = text.split(',').map((type) => type.trim());
  const known = FEEDS[api].types;
  const unknown = types.filter((type) => !known.includes(type));
  if (unknown.length > 0 || types.length === 0) {
    throw badRequest(
      [
        {
          name: 'types',
          reason: `${unknown.map((type) => `"${type}"`).join(', ')} is not an event type of this API; known: ${known.join(', ')}.`,
        },
      ],
      'requestParameter',
    );
  }
  return types;
}

export function eventRoutes(app: FastifyInstance, api: ApiDescriptor, options: EventRouteOptions): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/events',
    {
      // A long poll waits holding nothing: not counted among the requests in flight (http/inFlight.ts).
      config: { scope: FEEDS[api.id].scope, uncounted: true },
      schema: {
        operationId: EVENT_OPERATION_IDS[api.id],
        'x-immogate-extension': true,
        querystring: EventsQuery,
        response: { 200: EventPage },
      },
    },
    async (request, reply): Promise<FeedPage> => {
      const query: Static<typeof EventsQuery> = request.query;
      const after = query.after === undefined ? START : decodeCursor(query.after);
      if (after === undefined) throw badRequest([{ name: 'after', reason: 'is not a cursor this feed returned.' }], 'requestParameter');
      const types = typesOf(api.id, query.types);
      const tenant = tenantOf(request);
      const read = (heldBack: boolean) =>
        readFeed(options.pool, tenant, api.id, { after, types, limit: query.limit, heldBack }, options.retentionDays);
      if (query.wait === 0) return read(false);
      const deadline = Date.now() + query.wait * 1000;
      const gone = new AbortController();
      // The answer's stream closes when the client goes away (or once answered): stop waiting then.
      reply.raw.once('close', () => gone.abort());
      // Woken from before the first read on: a commit notified while a read runs is not missed.
      const poll = await options.waiters.open(tenant);
      try {
        for (;;) {
          const { heldBackFrom, ...page } = await read(true);
          const left = deadline - Date.now();
          if (page.events.length > 0 || left <= 0 || gone.signal.aborted || options.waiters.stopped) return page;
          const refused = poll.admit();
          if (refused) throw tooManyRequests(1, REFUSALS[refused](options.waiters.limits));
          // Unwoken, nothing the last read did not see can show (a commit after it began notifies, the
          // horizon passing its held-back events wakes): its page is the answer, with no read again.
          if (!(await poll.sleep(left, gone.signal, heldBackFrom))) return page;
        }
      } finally {
        poll.close();
      }
    },
  );
}
