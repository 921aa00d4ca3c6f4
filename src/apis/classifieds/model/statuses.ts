/*
 * The statuses of a classified: the status vocabulary of contract-notes, the lifecycle stage each
 * belongs to, the words of each operation's outcome, the status item GET .../statuses and the
 * status webhook show, and the parameters of the statuses page.
 */
import Type, { type Static } from 'typebox';
import { stringEnum, withDefaults } from '../../../platform/http/schemas.js';
import { BOUND_MARK, BOUND_NOTE } from './bounds.js';
import { Limit, NextToken, Page } from './pages.js';

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

export const MEDIA_STATUSES = ['CREATED', 'UPDATED', 'CREATING_FAILED', 'DOWNLOADING_FAILED'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

export const PORTALS = ['SL', 'BUCOM', 'BD', 'SLC', 'SLN'] as const;
export type Portal = (typeof PORTALS)[number];

export const STAGES = ['processed', 'analyzed', 'accepted', 'rejected'] as const;
export type Stage = (typeof STAGES)[number];

/** The operation of a write, and so of the revision it acknowledged. */
export type Operation = 'POST' | 'PUT' | 'DELETE';

/** processed = received; analyzed = the checking step; accepted or rejected = its outcome. */
export function stageOf(status: Status): Stage {
  if (status.endsWith('_FAILED')) return 'rejected';
  if (status === 'RECEIVING' || status === 'RECEIVED') return 'processed';
  if (status === 'CREATING' || status === 'UPDATING' || status === 'DELETING') return 'analyzed';
  return 'accepted';
}

/** The status words of one operation: its checking step, success, success with media errors, failure. */
export const OUTCOMES: Record<Operation, { step: Status; done: Status; mediaError: Status; failed: Status }> = {
  POST: { step: 'CREATING', done: 'CREATED', mediaError: 'CREATED_WITH_MEDIA_ERROR', failed: 'CREATING_FAILED' },
  PUT: { step: 'UPDATING', done: 'UPDATED', mediaError: 'UPDATED_WITH_MEDIA_ERROR', failed: 'UPDATING_FAILED' },
  DELETE: { step: 'DELETING', done: 'DELETED', mediaError: 'DELETED', failed: 'DELETING_FAILED' },
};

/** One media's outcome; `reason` (our extension) says why a failed one could not be used. */
export const MediaStatusItem = Type.Object({
  url: Type.String(),
  status: stringEnum(MEDIA_STATUSES),
  reason: Type.Optional(
    Type.String({
      description:
        'immogate extension: why a failed media could not be used (DNS, address policy, timeout, HTTP status, content type, size)',
      'x-immogate-extension': true,
    }),
  ),
});
export type MediaStatusItem = Static<typeof MediaStatusItem>;

/** The status item as GET .../statuses and the status webhook show it (immogate_caas_status_item writes it). */
export const StatusItem = Type.Object({
  statusId: Type.String({ format: 'uuid' }),
  classifiedId: Type.String({ format: 'uuid' }),
  customerId: Type.String(),
  creationDate: Type.String({ format: 'date-time', description: 'When the write of this revision was received' }),
  revision: Type.Integer({ minimum: 1 }),
  portals: Type.Array(stringEnum(PORTALS)),
  status: stringEnum(STATUSES),
  subStatus: Type.Optional(Type.String()),
  subStatusDetails: Type.Optional(Type.String()),
  message: Type.String(),
  statusDate: Type.String({ format: 'date-time' }),
  mediaStatuses: Type.Optional(Type.Array(MediaStatusItem)),
  stage: stringEnum(STAGES, { description: 'immogate extension: the lifecycle stage of the status' }),
});
export type StatusItem = Static<typeof StatusItem>;

export const StatusPage = Page(StatusItem);
export type StatusPage = Static<typeof StatusPage>;

export const StatusesQuery = withDefaults(
  Type.Object({
    filter: Type.Optional(stringEnum(['latest'], { description: 'latest: only the statuses of the latest revision (the last write)' })),
    // Repeated at most as often as there are values.
    status: Type.Optional(Type.Array(stringEnum(STATUSES), { maxItems: STATUSES.length, [BOUND_MARK]: BOUND_NOTE })),
    portal: Type.Optional(
      Type.Array(stringEnum(PORTALS), {
        maxItems: PORTALS.length,
        [BOUND_MARK]: BOUND_NOTE,
        description: 'Statuses whose portals include one of these',
      }),
    ),
    limit: Limit,
    nextToken: NextToken,
  }),
  'limit',
);
export type StatusesQuery = Static<typeof StatusesQuery>;

/** A status to record (repository.ts: recordStatuses). */
export interface NewStatus {
  classifiedId: string;
  environment: string;
  agencyId: string;
  revision: number;
  status: Status;
  subStatus?: string;
  subStatusDetails?: string;
  message: string;
  portals: readonly string[];
  mediaStatuses?: MediaStatusItem[];
  /** When its revision was acknowledged (the item's creationDate); unset: now, in the write that acknowledges it. */
  receivedAt?: string;
}
