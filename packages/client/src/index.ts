/*
 * @immogate/client: a typed client of immogate, and of the real APIs it implements (classifieds
 * ingestion v4, listing import v1, lead API v1), typed from their OpenAPI documents.
 */
export {
  type Acknowledgement,
  type Classified,
  type ClassifiedListQuery,
  type ClassifiedRead,
  type ClassifiedStatus,
  Classifieds,
  type EventFollowOptions,
  type FeedEvent,
  type Portal,
  type StatusName,
  type StatusQuery,
  type StatusWebhook,
  StatusWebhooks,
  type StoredClassified,
  type TerminalState,
  type WaitOptions,
} from './classifieds.js';
export { ImmogateClient } from './client.js';
export type { WriteOptions } from './transport.js';
export {
  ImmogateError,
  type Problem,
  ProblemError,
  type ProblemFieldError,
  TokenError,
  WaitTimeoutError,
  WebhookVerificationError,
} from './errors.js';
export {
  type DeletedSubscription,
  type Lead,
  Leads,
  type LeadSearch,
  type LeadSearchQuery,
  type LeadSubmitted,
  type NewLead,
  type NewSubscription,
  type Subscription,
  type SubscriptionAudit,
  type SubscriptionChange,
  Subscriptions,
} from './leads.js';
export {
  type Health,
  type Listing,
  type ListingAccepted,
  type ListingCreated,
  type ListingRequest,
  Listings,
  MEDIA_CONTENT_TYPES,
  type MediaFile,
  Medias,
  type NewMedia,
} from './listings.js';
export type { ApiEndpoint, ApiName, ClientOptions, Environment } from './options.js';
export { type Page, Paged } from './paging.js';
export type { RetryInfo, RetryOptions } from './retry.js';
export type { Fetch } from './tokens.js';
export { CLIENT_VERSION } from './version.js';
export { verifyWebhook, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from './webhooks.js';
/** The generated types of each API's OpenAPI document (paths, components, operations). */
export type * as CaasApi from './generated/caas.js';
export type * as ListingsApi from './generated/listings.js';
export type * as LeadsApi from './generated/leads.js';
