/*
 * What the console reads of classifieds beyond the API: summaries to list them by, a classified's
 * revisions with what changed between two, and the client's status webhook subscription.
 */
import Type, { type Static } from 'typebox';
import { nullable, stringEnum, withDefaults } from '../../../platform/http/schemas.js';
import { STAGES, STATUSES } from './statuses.js';
import { TOKEN_MAX_LENGTH } from '../../../platform/http/cursors.js';

const dateTime = Type.String({ format: 'date-time' });
const cursor = Type.Optional(Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'nextCursor of the previous page' }));
const limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }));

export const SummaryQuery = withDefaults(
  Type.Object(
    {
      offererEstateId: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
      status: Type.Optional(stringEnum(STATUSES, { description: 'The latest status' })),
      limit,
      cursor,
    },
    { additionalProperties: false },
  ),
  'limit',
);
export type SummaryQuery = Static<typeof SummaryQuery>;

export const Summary = Type.Object({
  classifiedId: Type.String({ format: 'uuid' }),
  offererEstateId: Type.String(),
  revision: Type.Integer(),
  createdAt: dateTime,
  updatedAt: dateTime,
  deleted: Type.Boolean(),
  latest: nullable(
    Type.Object({
      status: stringEnum(STATUSES),
      subStatus: nullable(Type.String()),
      stage: stringEnum(STAGES),
      statusDate: dateTime,
    }),
  ),
});
export type Summary = Static<typeof Summary>;

export const SummaryPage = Type.Object({ items: Type.Array(Summary), nextCursor: Type.Optional(Type.String()) });

export const RevisionQuery = withDefaults(Type.Object({ limit, cursor }, { additionalProperties: false }), 'limit');

const operation = stringEnum(['POST', 'PUT', 'DELETE']);

export const RevisionSummary = Type.Object({
  revision: Type.Integer(),
  operation,
  receivedAt: dateTime,
  processedAt: nullable(dateTime),
  unchanged: Type.Boolean({ description: 'A PUT of the payload already stored' }),
});
export type RevisionSummary = Static<typeof RevisionSummary>;

export const RevisionPage = Type.Object({ items: Type.Array(RevisionSummary), nextCursor: Type.Optional(Type.String()) });

export const Revision = Type.Object({
  ...RevisionSummary.properties,
  payload: nullable(Type.Unknown({ description: 'The classified as that write sent it; null for a DELETE' })),
});
export type Revision = Static<typeof Revision>;

export const RevisionParams = Type.Object(
  { classifiedId: Type.String({ format: 'uuid' }), revision: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const ChangesQuery = Type.Object(
  { from: Type.Integer({ minimum: 1 }), to: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const Changes = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  changes: Type.Array(
    Type.Object({
      path: Type.String({ description: 'JSON pointer into the payload' }),
      change: stringEnum(['added', 'removed', 'changed']),
      before: Type.Optional(Type.Unknown()),
      after: Type.Optional(Type.Unknown()),
    }),
  ),
});
export type Changes = Static<typeof Changes>;

export const WebhookView = Type.Object({
  url: Type.String(),
  statuses: nullable(Type.Array(stringEnum(STATUSES))),
  createdAt: dateTime,
  updatedAt: dateTime,
});
export type WebhookView = Static<typeof WebhookView>;
/** The status webhook, null when none is set. */
export const WebhookAnswer = nullable(WebhookView);
