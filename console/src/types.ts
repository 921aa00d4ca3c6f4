/*
 * The shapes the console's backend answers (its JSON contract) and the parts of the three APIs'
 * answers the pages show: named parts of generated/answers.ts, which is generated from the server's
 * route schemas (`npm run generate:console-types`). What is written here is what no schema says: the
 * lists the pages offer as choices (checked against the generated unions) and small helpers.
 */
import type { components } from './generated/answers';

type Answers = components['schemas'];

/** `list` as it is, compiled only when it names every member of the union `T` (a member the server adds fails the build). */
function choices<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): L => list;
}

export type ApiId = 'caas' | 'clim' | 'leads';
export type Environment = 'sandbox' | 'production';

export type Session = Answers['Session'];

/** An RFC 7807 problem as every API and the console's routes answer it; any member may be missing from what a proxy answers. */
export type ProblemBody = Partial<Answers['Problem']>;
export type FieldError = NonNullable<ProblemBody['errors']>[number];

/** A page of the console's own lists: nextCursor continues. */
export interface CursorPage<T> {
  items: T[];
  nextCursor?: string;
}

// --- Classifieds ------------------------------------------------------------------------------------------

export type StatusPage = Answers['StatusPage'];
export type StatusItem = StatusPage['items'][number];
export type Status = StatusItem['status'];
export type MediaStatus = NonNullable<StatusItem['mediaStatuses']>[number];

/** Every status, in the order of the lifecycle: the filter's choices. */
export const STATUSES = choices<Status>()([
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
]);

export type ClassifiedSummary = Answers['SummaryPage']['items'][number];
export type RevisionSummary = Answers['RevisionPage']['items'][number];
export type Revision = Answers['Revision'];
export type Changes = Answers['Changes'];
export type Change = Changes['changes'][number];
export type ClassifiedValidation = Answers['ClassifiedValidation'];
export type CaasWebhook = NonNullable<Answers['CaasWebhook']>;

// --- Listings ---------------------------------------------------------------------------------------------

export type ListingPage = Answers['ListingPage'];
export type ListingDetails = Answers['ListingDetails'];
export type Warning = ListingDetails['warnings'][number];
export type ListingValidation = Answers['ListingValidation'];

/** An OpenImmo file posted to the listing import and what became of each of its objects. */
export type OpenImmoImport = Answers['OpenImmoImport'];
export type ImportStatus = OpenImmoImport['status'];
export type ImportObject = OpenImmoImport['objects'][number];
export type ImportAction = ImportObject['action'];
export type ImportIssue = NonNullable<ImportObject['errors']>[number];
/** The console's page of imports, newest first: nextPageToken continues. */
export type ImportPage = Answers['ImportPage'];
/** The 202 of a posted file. */
export type ImportAccepted = Answers['ImportAccepted'];

/** Every object's action, in the order the import's counts show them. */
export const IMPORT_ACTIONS = choices<ImportAction>()(['created', 'updated', 'unchanged', 'deleted', 'refused']);

// --- Leads ------------------------------------------------------------------------------------------------

export type LeadPage = Answers['LeadPage'];
export type Lead = LeadPage['items'][number];
/** The console's page of leads, newest first: nextCursor is the leadId to continue after. */
export type RecentLeads = Answers['RecentLeads'];
export type SubscriptionPage = Answers['SubscriptionPage'];
export type LeadSubscription = SubscriptionPage['items'][number];

// --- Webhook deliveries -----------------------------------------------------------------------------------

export type DeliverySource = 'caas' | 'leads';
export type DeliverySummary = Answers['DeliverySummary'];
export type DeliveryState = DeliverySummary['state'];
/** Every delivery state: the filter's choices. */
export const DELIVERY_STATES = choices<DeliveryState>()(['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED']);

/** What a delivery carries: the status sent and its classified, or the lead. */
export type DeliveryEvent = NonNullable<DeliverySummary['event']>;
export type Delivery = Answers['Delivery'];
export type Attempt = Delivery['attemptList'][number];
/** What an operator's lists add to a delivery: whose it is. */
export type Owner = Pick<DeliverySummary, 'agency' | 'environment'>;

/** What a redelivery answers, the integrator's and the operator's alike. */
export type Redelivery = Answers['Redelivery'];

/** Whether a redelivery was queued, or why not. */
export function redeliveryOutcome(answer: Redelivery): { queued: boolean; reason?: string } {
  return { queued: answer.redelivered.length > 0, reason: answer.skipped.map((skip) => skip.reason).join('; ') || undefined };
}

// --- Tokens -----------------------------------------------------------------------------------------------

export type TokenUsage = Answers['TokenUsage'];
/** One client's tokens on one day, as the review (`immogate clients report`) counts them. */
export type TokenDay = TokenUsage['rows'][number];

// --- Operator ---------------------------------------------------------------------------------------------

export type Client = Answers['Client'];
export type ClientWithSecret = Answers['ClientWithSecret'];
export type TokenReport = Answers['TokenReport'];
export type Pipeline = Answers['Pipeline'];
