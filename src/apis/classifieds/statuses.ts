import { deliveriesCte } from '../../platform/delivery/index.js';
import { SOURCE } from './webhooks.js';

/** The status values of contract-notes, and the spec's lifecycle stage each belongs to. */
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

/** One media's outcome; `reason` (our extension) says why a failed one could not be used. */
export interface MediaStatusItem {
  url: string;
  status: MediaStatus;
  reason?: string;
}

export const PORTALS = ['SL', 'BUCOM', 'BD', 'SLC', 'SLN'] as const;
export type Portal = (typeof PORTALS)[number];

export const STAGES = ['processed', 'analyzed', 'accepted', 'rejected'] as const;
export type Stage = (typeof STAGES)[number];
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

/** The columns of a status to record, as the statements below read them from JSON (jsonb_to_recordset). */
const STATUS_COLUMNS = `ord integer, classified_id uuid, environment text, agency_id text, revision integer, status text, sub_status text,
  sub_status_details text, message text, stage text, portals text[], media_statuses jsonb, received_at timestamptz`;

/** Statuses as the JSON parameter that statusInput() reads; their order is the order they are recorded in. */
export function statusesJson(statuses: readonly NewStatus[]): string {
  return JSON.stringify(
    statuses.map((status, ord) => ({
      ord,
      classified_id: status.classifiedId,
      environment: status.environment,
      agency_id: status.agencyId,
      revision: status.revision,
      status: status.status,
      sub_status: status.subStatus ?? null,
      sub_status_details: status.subStatusDetails ?? null,
      message: status.message,
      stage: stageOf(status.status),
      portals: status.portals,
      media_statuses: status.mediaStatuses ?? null,
      received_at: status.receivedAt ?? null,
    })),
  );
}

/** SQL text of a CTE, `name`, with the statuses of the JSON parameter `param` (see statusesJson). */
export function statusInput(name: string, param: string): string {
  return `${name} AS (SELECT * FROM jsonb_to_recordset(${param}::jsonb) AS i (${STATUS_COLUMNS}))`;
}

/**
 * SQL text of the CTEs that record the statuses of the CTE `source` (the columns of statusInput)
 * and schedule their status webhooks, in the statement of the write or the processing step they
 * belong to. A status is recorded once: one met again (a job run again after a crash) is left as
 * it is and sends nothing. Each is posted to every subscription of its offerer and environment
 * whose filter wants it (a filter on CREATED or UPDATED takes their _WITH_MEDIA_ERROR forms too).
 */
export function recordStatuses(source: string): string {
  return `
  inserted_statuses AS (
    INSERT INTO classified_statuses AS s
           (status_id, classified_id, environment, agency_id, revision, status, sub_status, sub_status_details, message, stage, portals, media_statuses)
    SELECT gen_random_uuid(), classified_id, environment, agency_id, revision, status, sub_status, sub_status_details, message, stage, portals, media_statuses
      FROM ${source} ORDER BY ord
    ON CONFLICT (classified_id, revision, status) DO NOTHING
    RETURNING s),
  status_recipients AS (
    SELECT '${SOURCE}' AS source, (i.s).environment, (i.s).agency_id, w.subscription_id::text AS subscription_id,
           w.url || '/classifieds/' || (i.s).classified_id || '/statuses' AS url,
           immogate_caas_status_item(i.s, coalesce(src.received_at, now())) AS payload, w.secret, NULL::text AS secret_header,
           '{}'::jsonb AS headers
      FROM inserted_statuses i
      JOIN ${source} src ON src.classified_id = (i.s).classified_id AND src.revision = (i.s).revision AND src.status = (i.s).status
      JOIN caas_webhook_subscriptions w ON w.environment = (i.s).environment AND w.agency_id = (i.s).agency_id
     WHERE w.statuses IS NULL OR (i.s).status = ANY (w.statuses) OR regexp_replace((i.s).status, '_WITH_MEDIA_ERROR$', '') = ANY (w.statuses)),
  ${deliveriesCte('status_deliveries', 'status_recipients')}`;
}

/** The status item as GET .../statuses and the status webhook show it (immogate_caas_status_item writes it). */
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
  mediaStatuses?: MediaStatusItem[];
  stage: Stage;
}
