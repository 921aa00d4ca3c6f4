/*
 * Webhook subscriptions of the Lead API as its clients create, change, list and audit them, and
 * the names their notifications travel under.
 */
import Type, { type Static } from 'typebox';
import { TOKEN_MAX_LENGTH } from '../../../platform/http/cursors.js';
import { nullable, stringEnum, withDefaults } from '../../../platform/http/schemas.js';

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The scope that manages webhook subscriptions (and shows their deliveries). */
export const SUBSCRIPTION_SCOPE = 'leads:webhooks';
/** The delivery source of lead notifications (selects the lead API's delivery hooks). */
export const DELIVERY_SOURCE = 'leads';
/** The header that carries a subscription's apiKey with every notification; the same key signs it. */
export const API_KEY_HEADER = 'X-Api-Key';
export const MAX_SUBSCRIPTION_PAGE_SIZE = 100;
// The spec: a required string. Visible ASCII only: it travels as an HTTP header value, and
// deliveries are signed with its bytes, which the standardwebhooks package reads one character
// per byte. 1,024 characters at most: our bound, the spec sets none.
export const API_KEY_MAX_LENGTH = 1024;

const status = stringEnum(SUBSCRIPTION_STATUSES);

const apiKey = Type.String({
  minLength: 1,
  maxLength: API_KEY_MAX_LENGTH,
  pattern: '^[!-~]*$',
  writeOnly: true,
  description:
    'Write-only: sent as X-Api-Key with every notification and the key of its Standard Webhooks signature (HMAC-SHA256 of its ASCII bytes)',
});

export const Subscription = Type.Object({
  subscriptionId: Type.String({ format: 'uuid', minLength: 1 }),
  url: Type.String({ format: 'uri' }),
  status,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type Subscription = Static<typeof Subscription>;

export const SubscriptionIdParams = Type.Object(
  { id: Type.String({ format: 'uuid', description: 'The subscriptionId' }) },
  { additionalProperties: false },
);

export const CreateSubscriptionRequest = Type.Object(
  {
    url: Type.String({ format: 'uri', maxLength: 2048, description: 'Where new leads are POSTed' }),
    apiKey,
    status: Type.Optional(stringEnum(SUBSCRIPTION_STATUSES, { default: 'ACTIVE', description: 'ACTIVE when omitted' })),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionRequest = Static<typeof CreateSubscriptionRequest>;

export const UpdateSubscriptionRequest = Type.Object(
  { apiKey: Type.Optional(apiKey), status: Type.Optional(status) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSubscriptionRequest = Static<typeof UpdateSubscriptionRequest>;

export const SubscriptionListQuery = withDefaults(
  Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SUBSCRIPTION_PAGE_SIZE, default: MAX_SUBSCRIPTION_PAGE_SIZE })),
      nextToken: Type.Optional(Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'metadata.nextToken of the previous page' })),
    },
    { additionalProperties: false },
  ),
  'limit',
);
export type SubscriptionListQuery = Static<typeof SubscriptionListQuery>;

export const SubscriptionPage = Type.Object({
  metadata: Type.Object({
    count: Type.Integer({ description: 'Items in this page' }),
    limit: Type.Integer(),
    nextToken: Type.Optional(Type.String({ description: 'Present when another page follows: pass it as nextToken' })),
  }),
  items: Type.Array(Subscription),
});
export type SubscriptionPage = Static<typeof SubscriptionPage>;

export const DeletedSubscription = Type.Object({ ...Subscription.properties, message: Type.String() });

export const AuditQuery = withDefaults(
  Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many recent events to return' })) },
    { additionalProperties: false },
  ),
  'limit',
);

export const AuditEvent = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  deliveryId: Type.String({
    description:
      "The notification (one per lead and subscription), the same on each of its attempts; its webhook-id header is the lead's id, the id of the lead.received event of GET /events",
  }),
  leadId: nullable(Type.String()),
  // The attempt's number within its notification, from 1.
  attempt: Type.Integer({ minimum: 1 }),
  // Null when no HTTP answer came (error says why) or the attempt is still running.
  statusCode: nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came" })),
  latencyMs: nullable(Type.Integer()),
  // Null on success and while the attempt runs.
  error: nullable(Type.String({ description: 'Why the attempt failed; null on success' })),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const Audit = Type.Object({
  ...Subscription.properties,
  lastSuccessTimestamp: nullable(Type.String({ format: 'date-time' })),
  recentEvents: Type.Array(AuditEvent, { description: 'Notification attempts, most recent first' }),
});
export type Audit = Static<typeof Audit>;
