/*
 * Status webhooks: PUT /webhooks subscribes the calling client for its offerer in its
 * environment; every status recorded from then on (filtered by `statuses`, see recordStatuses in
 * repository.ts) is POSTed, signed and retried by the platform's delivery machinery, to
 * `{url}/classifieds/{classifiedId}/statuses`.
 */
import Type, { type Static } from 'typebox';
import { jsonText, openMembers, stringEnum } from '../../../platform/http/schemas.js';
import { BOUND_MARK, BOUND_NOTE } from './bounds.js';
import { STATUSES } from './statuses.js';

/** The source of the status webhooks in the platform's delivery machinery. */
export const WEBHOOK_SOURCE = 'caas';

/** Bounds of ours on the contract's Webhook (the served document shows them too). */
export const URL_MAX_LENGTH = 2048;
export const STATUS_FILTER_MAX_ITEMS = 100;

/** The key of the signatures: an immogate extension of the contract's Webhook. */
export const SubscriptionSecret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'immogate extension: the key of the Standard Webhooks signature of each delivery. Generated when absent.',
});

// Open as the contract's Webhook is: members it does not name are accepted and ignored.
export const Subscription = Type.Object(
  {
    url: Type.String({ format: 'uri', maxLength: URL_MAX_LENGTH }),
    // The contract's Webhook.statuses has no uniqueness rule: repeats are accepted and stored once.
    statuses: Type.Optional(Type.Array(stringEnum(STATUSES), { maxItems: STATUS_FILTER_MAX_ITEMS, [BOUND_MARK]: BOUND_NOTE })),
    secret: Type.Optional(SubscriptionSecret),
  },
  // Within bounds: so many other members, each of bounded size.
  openMembers(3),
);
export type Subscription = Static<typeof Subscription>;

/** The contract's answer to both webhook operations: the JSON string "success". */
export const Success = jsonText(stringEnum(['success']));
