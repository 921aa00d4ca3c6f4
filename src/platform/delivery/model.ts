/*
 * The schemas of what the delivery views answer: a delivery, its attempts, its summary in a list.
 */
import Type from 'typebox';
import { ENVIRONMENTS } from '../catalogue.js';
import { nullable, stringEnum } from '../http/schemas.js';
import { DELIVERY_STATES } from './views.js';

const dateTime = Type.String({ format: 'date-time' });
// Any names, each a string: as additionalProperties, not a Record's patternProperties, which OpenAPI 3.0 has not.
const headers = Type.Object({}, { additionalProperties: Type.String() });

export const DeliverySummary = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'The delivery; redelivery names it by this id. Also the webhook-id header the receiver sees when eventId is null',
  }),
  eventId: nullable(
    Type.String({
      format: 'uuid',
      description:
        'The event of the feed (GET /events) the message announces, whose id is then the webhook-id header; null when there is none',
    }),
  ),
  source: Type.String(),
  environment: stringEnum(ENVIRONMENTS),
  agency: Type.String(),
  subscriptionId: Type.String(),
  url: Type.String(),
  state: stringEnum(DELIVERY_STATES),
  attempts: Type.Integer(),
  test: Type.Boolean({ description: 'A sample sent on request (Send test event)' }),
  createdAt: dateTime,
  deliveredAt: nullable(dateTime),
  nextAttemptAt: nullable(dateTime),
  lastStatusCode: nullable(Type.Integer()),
  lastError: nullable(Type.String({ description: 'Why the latest attempt failed, e.g. a refused connection; null when it did not' })),
  event: nullable(
    Type.Object(
      {
        name: Type.String({ description: 'The status sent (e.g. CREATED), or lead' }),
        subjectType: Type.String({ description: 'classified or lead' }),
        subjectId: Type.String({ description: 'The classifiedId or the leadId' }),
      },
      { description: 'What the delivery carries; null when its payload does not say' },
    ),
  ),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  attemptedAt: dateTime,
  statusCode: nullable(Type.Integer()),
  latencyMs: nullable(Type.Integer()),
  error: nullable(Type.String()),
  requestHeaders: headers,
  responseBody: nullable(Type.String({ description: 'The first 4 KiB of the answer' })),
  responseTruncated: Type.Boolean(),
});

/** One delivery with every attempt: what the console shows, and the answer to a test event. */
export const Delivery = Type.Object({
  ...DeliverySummary.properties,
  request: Type.Object({ body: Type.String(), headers }),
  attemptList: Type.Array(Attempt),
});
