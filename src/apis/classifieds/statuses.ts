import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Environment } from '../catalogue.js';
import { jsonb, sql, type Sql } from '../../platform/db/sql.js';
import { notifySubscribers, type Subscriber } from './webhooks.js';

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

export const PORTALS = ['SL', 'BUCOM', 'BD', 'SLC', 'SLN'] as const;
export type Portal = (typeof PORTALS)[number];

export type Stage = 'processed' | 'analyzed' | 'accepted' | 'rejected';
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
  mediaStatuses?: { url: string; status: MediaStatus }[];
}

/**
 * The INSERT of a status, recorded once: a job that runs again after a crash meets the
 * (classified, revision, status) key and adds nothing. It returns the row as status items show it.
 */
export function insertStatus(status: NewStatus): Sql {
  return sql`INSERT INTO classified_statuses
       (status_id, classified_id, environment, agency_id, revision, status, sub_status, sub_status_details,
        message, stage, portals, media_statuses)
     VALUES (${randomUUID()}, ${status.classifiedId}, ${status.environment}, ${status.agencyId}, ${status.revision},
             ${status.status}, ${status.subStatus ?? null}, ${status.subStatusDetails ?? null}, ${status.message},
             ${stageOf(status.status)}, ${status.portals}::text[], ${status.mediaStatuses === undefined ? null : jsonb(status.mediaStatuses)})
     ON CONFLICT (classified_id, revision, status) DO NOTHING
     RETURNING *`;
}

/** The subscribers of the status's offerer, found in the same round trip as the status itself. */
const WITH_SUBSCRIBERS = `SELECT i.*, r.received_at,
            coalesce((SELECT json_agg(json_build_object('subscriptionId', w.subscription_id, 'url', w.url,
                                                        'statuses', w.statuses, 'secret', w.secret))
                        FROM caas_webhook_subscriptions w
                       WHERE w.environment = i.environment AND w.agency_id = i.agency_id), '[]') AS subscribers
       FROM inserted i JOIN classified_revisions r ON r.classified_id = i.classified_id AND r.revision = i.revision`;

/**
 * Records a status once and schedules its delivery to the offerer's status webhooks in the same
 * transaction; nothing is sent twice for a status met again.
 */
export async function recordStatus(client: pg.ClientBase, status: NewStatus): Promise<StatusItem | undefined> {
  const { rows } = await client.query<StatusRow & { subscribers: Subscriber[] }>(`WITH inserted AS (${insertStatus(status).text}) ${WITH_SUBSCRIBERS}`);
  const row = rows[0];
  if (!row) return undefined;
  const item = toStatusItem(row);
  await notifySubscribers(client, item, status.environment as Environment, row.subscribers);
  return item;
}

/**
 * Schedules the webhooks of a status recorded earlier without them. The RECEIVED status of a
 * write is inserted with the write, in its single round trip; its deliveries are scheduled by the
 * write's processing job, once, in the transaction that records the processing step.
 */
export async function notifyRecorded(client: pg.ClientBase, classifiedId: string, revision: number, status: Status, environment: Environment): Promise<void> {
  const { rows } = await client.query<StatusRow & { subscribers: Subscriber[] }>(
    `WITH inserted AS (SELECT * FROM classified_statuses WHERE classified_id = $1 AND revision = $2 AND status = $3) ${WITH_SUBSCRIBERS}`,
    [classifiedId, revision, status],
  );
  const row = rows[0];
  if (row) await notifySubscribers(client, toStatusItem(row), environment, row.subscribers);
}

/** The status item as GET .../statuses and the status webhook show it. */
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
  mediaStatuses?: { url: string; status: MediaStatus }[];
  stage: Stage;
}

export interface StatusRow {
  seq: number;
  status_id: string;
  classified_id: string;
  agency_id: string;
  revision: number;
  status: Status;
  sub_status: string | null;
  sub_status_details: string | null;
  message: string;
  stage: Stage;
  portals: string[];
  media_statuses: { url: string; status: MediaStatus }[] | null;
  status_date: Date;
  received_at: Date;
}

export function toStatusItem(row: StatusRow): StatusItem {
  return {
    statusId: row.status_id,
    classifiedId: row.classified_id,
    customerId: row.agency_id,
    creationDate: row.received_at.toISOString(),
    revision: row.revision,
    portals: row.portals,
    status: row.status,
    ...(row.sub_status === null ? {} : { subStatus: row.sub_status }),
    ...(row.sub_status_details === null ? {} : { subStatusDetails: row.sub_status_details }),
    message: row.message,
    statusDate: row.status_date.toISOString(),
    ...(row.media_statuses === null ? {} : { mediaStatuses: row.media_statuses }),
    stage: row.stage,
  };
}
