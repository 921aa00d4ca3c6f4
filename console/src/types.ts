/*
 * The shapes the console's backend answers (its JSON contract) and the parts of the three APIs'
 * answers the pages show. Written by hand: the browser bundle cannot import the server's TypeBox
 * schemas without pulling the server in.
 */

export type ApiId = 'caas' | 'clim' | 'leads';
export type Environment = 'sandbox' | 'production';

export interface Session {
  kind: 'integrator' | 'operator';
  clientId?: string;
  clientName?: string;
  agency?: string;
  environment?: Environment;
  apis: { id: ApiId; title: string; scopes: string[] }[];
  csrfToken: string;
  expiresAt: string;
}

export interface FieldError {
  name: string;
  reason: string;
}

/** An RFC 7807 problem as every API and the console's routes answer it. */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: FieldError[];
  errorSource?: string;
}

/** A page of the console's own lists: nextCursor continues. */
export interface CursorPage<T> {
  items: T[];
  nextCursor?: string;
}

// --- Classifieds ------------------------------------------------------------------------------------------

export const STATUSES = [
  'RECEIVING',
  'RECEIVED',
  'RECEIVING_FAILED',
  'CREATING',
  'CREATED',
  'CREATED_WITH_MEDIA_ERROR',
  'CREATING_FAILED',
  'UPDATING',
  'UPDATED',
  'UPDATED_WITH_MEDIA_ERROR',
  'UPDATING_FAILED',
  'DELETING',
  'DELETED',
  'DELETING_FAILED',
] as const;
export type Status = (typeof STATUSES)[number];

export interface ClassifiedSummary {
  classifiedId: string;
  offererEstateId: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
  deleted: boolean;
  latest: { status: Status; subStatus?: string | null; stage: string; statusDate: string } | null;
}

export interface MediaStatus {
  url: string;
  status: string;
  reason?: string;
}

export interface StatusItem {
  statusId: string;
  classifiedId: string;
  customerId: string;
  creationDate: string;
  revision: number;
  portals: string[];
  status: Status;
  subStatus?: string;
  subStatusDetails?: string;
  message: string;
  statusDate: string;
  mediaStatuses?: MediaStatus[];
  stage: string;
}

export interface StatusPage {
  items: StatusItem[];
  nextToken?: string;
}

export interface RevisionSummary {
  revision: number;
  operation: 'POST' | 'PUT' | 'DELETE';
  receivedAt: string;
  processedAt: string | null;
  unchanged: boolean;
}

export interface Revision {
  revision: number;
  operation: 'POST' | 'PUT' | 'DELETE';
  receivedAt: string;
  processedAt: string | null;
  payload: unknown;
}

export interface Change {
  path: string;
  change: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

export interface Changes {
  from: number;
  to: number;
  changes: Change[];
}

export interface ClassifiedValidation {
  valid: boolean;
  errors: FieldError[];
  /** false: the schema failed, so no business rule ran. */
  rulesChecked?: boolean;
  /** Every portal; `requested` those the payload lists. */
  portals: { portal: string; requested?: boolean; accepted: boolean; violations: (FieldError & { rule?: string })[] }[];
}

export interface CaasWebhook {
  url: string;
  statuses: string[] | null;
  createdAt: string;
  updatedAt: string;
}

// --- Listings ---------------------------------------------------------------------------------------------

export interface ListingPage {
  externalListingIds: string[];
  nextPageToken: string | null;
}

export interface Warning {
  type: string;
  message: string;
}

export interface ListingDetails {
  listingId: string;
  externalListingId: string;
  isPublished?: boolean;
  createdAt: string;
  lastWriteAt: string;
  expiresAt: string | null;
  warnings: Warning[];
  media: { externalMediaId: string; fileName: string; state: string; contentType: string | null; sizeBytes: number | null }[];
}

export interface ListingValidation {
  valid: boolean;
  errors: FieldError[];
  warnings: Warning[];
}

// --- Leads ------------------------------------------------------------------------------------------------

export interface Lead {
  metadata: { leadId: string; category: string; ingestionDate: string; submittedDate: string; requestId: string; agencyId: string };
  contactRequest: {
    firstName: string | null;
    lastName: string | null;
    name: string | null;
    gender: string | null;
    email: string;
    language: string | null;
    phoneNumbers: { type?: string; number: string; verified?: boolean }[];
    message: string | null;
  };
  property: { classifiedId: string | null };
}

export interface LeadPage {
  metadata: { count: number; limit: number; minDate: number; maxDate: number; start?: string };
  links: { self: string; next?: string };
  items: Lead[];
}

/** The console's page of leads, newest first: nextCursor is the leadId to continue after. */
export type RecentLeads = CursorPage<Lead>;

export interface LeadSubscription {
  subscriptionId: string;
  url: string;
  status: 'ACTIVE' | 'INACTIVE';
  createdAt: string;
  updatedAt: string;
}

export interface SubscriptionPage {
  metadata: { count: number; limit: number; nextToken?: string };
  items: LeadSubscription[];
}

// --- Webhook deliveries -----------------------------------------------------------------------------------

export type DeliverySource = 'caas' | 'leads';
export const DELIVERY_STATES = ['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** What a delivery carries: the status sent and its classified, or the lead. */
export interface DeliveryEvent {
  name: string;
  subjectType: string;
  subjectId: string;
}

export interface DeliverySummary {
  id: string;
  /** The feed event the message announces; its id is then the webhook-id. */
  eventId: string | null;
  source: DeliverySource;
  subscriptionId: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  test: boolean;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  /** Why the latest attempt failed: what the list shows when there is no status code (a refused connection). */
  lastError: string | null;
  event: DeliveryEvent | null;
}

export interface Attempt {
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  requestHeaders: Record<string, string>;
  responseBody: string | null;
  responseTruncated: boolean;
}

export interface Delivery extends DeliverySummary {
  request: { body: string; headers: Record<string, string> };
  attemptList: Attempt[];
}

/** What an operator's lists add to a delivery: whose it is. */
export interface Owner {
  agency: string;
  environment: Environment;
}

/** A redelivery's answer: the contract's words for one delivery, or the /admin route's lists. */
/** What a redelivery answers, the integrator's and the operator's alike. */
export interface Redelivery {
  redelivered: string[];
  skipped: { deliveryId: string; reason: string }[];
}

/** Whether a redelivery was queued, or why not. */
export function redeliveryOutcome(answer: Redelivery): { queued: boolean; reason?: string } {
  return { queued: answer.redelivered.length > 0, reason: answer.skipped.map((skip) => skip.reason).join('; ') || undefined };
}

// --- Tokens -----------------------------------------------------------------------------------------------

/** One client's tokens on one day, as the review (`immogate clients report`) counts them. */
export interface TokenDay {
  clientId: string;
  name: string;
  day: string;
  tokens: number;
  /** Audience and agency pairs tokens were issued for. */
  targets: number;
  /** Most tokens issued for one pair that day. */
  maxPerTarget: number;
  /** false: more than the threshold for one pair in a day. */
  reusesTokens: boolean;
  failedAuthentications: number;
}

export interface TokenUsage {
  clientId: string;
  days: number;
  threshold: number;
  rows: TokenDay[];
  verdict: string;
}

// --- Operator ---------------------------------------------------------------------------------------------

export interface Client {
  clientId: string;
  name: string;
  intermediaries: string[];
  scopes: string[];
  environments: string[];
  createdAt: string;
  secretRotatedAt?: string | null;
  disabledAt: string | null;
}

export interface ClientWithSecret {
  client: Client;
  clientSecret: string;
}

export interface TokenReport {
  days: number;
  threshold: number;
  rows: TokenDay[];
}

export interface Pipeline {
  /** Each work stream's queue: claimable now, waiting for a retry, held by a worker. */
  streams: { name: string; ready: number; scheduled: number; locked: number }[];
  deliveries: { pending: number; oldestPendingAt: string | null; failed: number; deliveredToday: number };
}
