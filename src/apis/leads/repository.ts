/*
 * All the SQL of the Lead API: leads and the statement that notifies a new one, the agency's
 * ingestion lock, GDPR erasure, webhook subscriptions and what their audit reads of the
 * deliveries. Values are bound parameters only. Request-path queries run on a client that
 * withTenant or tenantTransaction confined to the tenant; erasure and the delivery hooks run as the
 * owner role and say so.
 */
import type pg from 'pg';
import { lockedInOrder } from '../../platform/db/locks.js';
import { onlyRow, type Statement } from '../../platform/db/pool.js';
import { deliveriesCte } from '../../platform/delivery/index.js';
import type { Lead, LeadCategory, PhoneNumber } from './model/lead.js';
import { API_KEY_HEADER, DELIVERY_SOURCE, type Subscription, type SubscriptionStatus } from './model/subscription.js';

// ---- leads ----

export interface LeadRow {
  id: string;
  seq: number;
  agency_id: string;
  request_id: string;
  category: LeadCategory;
  classified_id: string | null;
  ingested_at: Date;
  submitted_at: Date;
  email: string;
  first_name: string | null;
  last_name: string | null;
  gender: string | null;
  language: string | null;
  phone_numbers: PhoneNumber[];
  message: string | null;
  erased_at: Date | null;
}

/** A lead before it is stored: the database draws its seq and stamps its ingested_at. */
export type NewLeadRow = Omit<LeadRow, 'seq' | 'ingested_at'>;

export function toLead(row: LeadRow): Lead {
  const name =
    row.erased_at !== null ? null : [row.first_name, row.last_name].filter((part) => part !== null && part !== '').join(' ') || null;
  return {
    metadata: {
      leadId: row.id,
      category: row.category,
      ingestionDate: row.ingested_at.toISOString(),
      submittedDate: row.submitted_at.toISOString(),
      requestId: row.request_id,
      agencyId: row.agency_id,
    },
    contactRequest: {
      firstName: row.first_name,
      lastName: row.last_name,
      name,
      gender: row.gender,
      email: row.email,
      language: row.language,
      phoneNumbers: row.phone_numbers,
      message: row.message,
    },
    property: { classifiedId: row.classified_id },
  };
}

/**
 * The lock a new lead's INSERT takes on the table anyway, taken before the ingestion lock: a
 * transaction waiting for the table (an operator's LOCK TABLE, a migration) then waits holding no
 * ingestion lock, so the agency's other new leads wait for the table themselves, each within its
 * own lock deadline, rather than for it first and for the table after (twice the deadline).
 * ROW EXCLUSIVE conflicts with no lock a lead path takes, so it adds no wait and no deadlock.
 */
export const LEADS_TABLE_LOCK: Statement = { name: 'leads.lock_table', text: 'LOCK TABLE leads IN ROW EXCLUSIVE MODE' };

/**
 * The agency's lead ingestion lock, a transaction-scoped advisory lock. Every new lead takes it:
 * leads of an agency commit in ingestion order (what paging relies on, see services/leads.ts). A
 * change to one of its subscriptions (a new apiKey, INACTIVE, deleted) takes it too, so that it
 * comes either wholly before a lead (whose notifications see the change) or wholly after (and
 * re-aims or cancels that lead's notifications) without the leads locking the subscription rows
 * they read.
 */
export function ingestionLock(environment: string, agencyId: string): Statement {
  return {
    name: 'leads.lock_ingestion',
    text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
    values: [`leads:${environment}:${agencyId}`],
  };
}

/**
 * SQL text of the CTEs, ending in `name`, that schedule the notification of a new lead to every
 * ACTIVE subscription of its agency, in the statement that writes the lead: they commit together.
 * `lead` is a CTE of the statement with the lead's id and ingested_at; `payload` the parameter holding
 * the Lead JSON (its ingestionDate is replaced by the database's); `environment` and `agency`
 * the parameters of the tenant. The statement runs under the agency's ingestion lock, which a
 * change to a subscription takes too (see ingestionLock): no row of them is locked here. This and
 * insertTestNotification are the readers of a subscription's apiKey: they hand it to the delivery
 * machinery.
 */
function leadNotifications(name: string, lead: string, payload: string, environment: string, agency: string): string {
  return `
  lead_subscriptions AS (
    SELECT s.id, s.url, s.api_key FROM lead_webhook_subscriptions s
     WHERE s.environment = ${environment} AND s.agency_id = ${agency} AND s.status = 'ACTIVE'),
  lead_recipients AS (
    SELECT '${DELIVERY_SOURCE}' AS source, ${environment}::text AS environment, ${agency}::text AS agency_id, s.id::text AS subscription_id, s.url,
           jsonb_set(${payload}::jsonb, '{metadata,ingestionDate}', to_jsonb(immogate_iso_time(l.ingested_at))) AS payload,
           s.api_key AS secret, '${API_KEY_HEADER.toLowerCase()}' AS secret_header, '{}'::jsonb AS headers,
           -- The lead.received event of the feed has the lead's id: it is each notification's webhook-id.
           l.id AS event_id
      FROM ${lead} l, lead_subscriptions s),
  ${deliveriesCte(name, 'lead_recipients', 'message', true)}`;
}

/**
 * A test event: `payload` (a sample lead) posted to one subscription of the tenant, whatever its
 * status, as a notification is, signed with its apiKey, shown as a test delivery. Its delivery's
 * id, or none when the tenant has no such subscription.
 */
export async function insertTestNotification(db: pg.ClientBase, subscriptionId: string, payload: Lead): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `WITH test_recipients AS (
       SELECT '${DELIVERY_SOURCE}' AS source, s.environment, s.agency_id, s.id::text AS subscription_id, s.url, $2::jsonb AS payload,
              s.api_key AS secret, '${API_KEY_HEADER.toLowerCase()}' AS secret_header, '{}'::jsonb AS headers
         FROM lead_webhook_subscriptions s WHERE s.id = $1),
     ${deliveriesCte('test_delivery', 'test_recipients', 'test')}
     SELECT id FROM test_delivery`,
    [subscriptionId, JSON.stringify(payload)],
  );
  return rows[0]?.id;
}

/**
 * Writes the lead and its notification (`notification`, the Lead JSON) to every ACTIVE
 * subscription of the agency in one statement. Its ingested_at never goes backwards within the
 * agency; run it under the agency's ingestion lock.
 */
export function insertLead(environment: string, row: NewLeadRow, notification: Lead): Statement {
  return {
    name: 'leads.create',
    text: `
      WITH lead AS (
        INSERT INTO leads (id, environment, agency_id, request_id, category, classified_id, submitted_at, email, first_name, last_name,
                           gender, language, phone_numbers, message, ingested_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14,
                greatest(clock_timestamp(), (SELECT max(ingested_at) FROM leads WHERE environment = $2 AND agency_id = $3)))
        RETURNING id, ingested_at),
      ${leadNotifications('notified', 'lead', '$15', '$2', '$3')}
      SELECT 1`,
    values: [
      row.id,
      environment,
      row.agency_id,
      row.request_id,
      row.category,
      row.classified_id,
      row.submitted_at,
      row.email,
      row.first_name,
      row.last_name,
      row.gender,
      row.language,
      JSON.stringify(row.phone_numbers),
      row.message,
      JSON.stringify(notification),
    ],
  };
}

/** Where a lead stands in its agency's ingestion order: the keyset a page continues after. */
export interface LeadPosition {
  /** ingested_at as text: it has microseconds, a JavaScript Date only milliseconds. */
  at: string;
  seq: number;
}

export async function leadPosition(client: pg.ClientBase, leadId: string): Promise<LeadPosition | undefined> {
  const { rows } = await client.query<LeadPosition>('SELECT ingested_at::text AS at, seq FROM leads WHERE id = $1', [leadId]);
  return rows[0];
}

/**
 * Up to `limit` leads of the agency ingested in [from, to), in ingestion order (the API's) or
 * newest first (the console's), after `after` when given. Read through the (environment,
 * agency_id, ingested_at, seq) index, either way: each page costs its own rows, not the whole window.
 */
export async function leadsIngested(
  client: pg.ClientBase,
  scope: { environment: string; agencyId: string },
  period: { from: Date; to: Date },
  limit: number,
  after: LeadPosition | undefined,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<LeadRow[]> {
  const params: unknown[] = [scope.environment, scope.agencyId, period.from, period.to, limit];
  const [beyond, direction] = order === 'newest' ? ['<', 'DESC'] : ['>', 'ASC'];
  const keyset =
    after === undefined ? '' : `AND (ingested_at, seq) ${beyond} ($${params.push(after.at)}::timestamptz, $${params.push(after.seq)})`;
  const { rows } = await client.query<LeadRow>(
    `SELECT * FROM leads
      WHERE environment = $1 AND agency_id = $2 AND ingested_at >= $3 AND ingested_at < $4 ${keyset}
      ORDER BY ingested_at ${direction}, seq ${direction} LIMIT $5`,
    params,
  );
  return rows;
}

/** The lead of `leadId`, for a read sent with others (tenantRead). */
export function findLeadStatement(leadId: string): Statement {
  return { name: 'leads.find_lead', text: 'SELECT * FROM leads WHERE id = $1', values: [leadId] };
}

// ---- GDPR erasure (owner role, across every agency and environment) ----

/** The JSON counterpart of what eraseLeadsOf empties, for the stored notifications. */
const ERASED_CONTACT = { firstName: null, lastName: null, name: null, gender: null, language: null, message: null, phoneNumbers: [] };

/** Empties the personal data of the author's leads not erased yet; the number of leads it erased. */
export async function eraseLeadsOf(client: pg.ClientBase, email: string): Promise<number> {
  const erased = await client.query(
    `UPDATE leads SET first_name = NULL, last_name = NULL, gender = NULL, language = NULL, message = NULL,
                      phone_numbers = '[]', erased_at = now()
      WHERE lower(email) = lower($1) AND erased_at IS NULL`,
    [email],
  );
  return erased.rowCount ?? 0;
}

/**
 * Empties the same fields in the stored notifications of every lead of the author, and forgets
 * what receivers answered to them (an answer may echo the lead); the number of notifications it changed.
 */
export async function scrubNotificationsOf(client: pg.ClientBase, email: string): Promise<number> {
  const scrubbed = await client.query(
    // The deliveries in id order, then their attempts (db/locks.ts).
    `WITH ${lockedInOrder(
      'locked',
      'webhook_deliveries',
      `source = $3 AND jsonb_typeof(payload -> 'contactRequest') = 'object'
       AND payload -> 'metadata' ->> 'leadId' IN (SELECT id::text FROM leads WHERE lower(email) = lower($1))`,
    )},
     scrubbed AS (
       SELECT d.id, jsonb_set(d.payload, '{contactRequest}', (d.payload -> 'contactRequest') || $2::jsonb) AS payload
         FROM webhook_deliveries d JOIN locked l ON l.id = d.id
        WHERE jsonb_typeof(d.payload -> 'contactRequest') = 'object'),
     answers AS (
       UPDATE webhook_attempts a SET response_body = NULL FROM scrubbed s WHERE a.delivery_id = s.id AND a.response_body IS NOT NULL)
     UPDATE webhook_deliveries d SET payload = s.payload
       FROM scrubbed s WHERE d.id = s.id AND d.payload IS DISTINCT FROM s.payload`,
    [email, JSON.stringify(ERASED_CONTACT), DELIVERY_SOURCE],
  );
  return scrubbed.rowCount ?? 0;
}

// ---- webhook subscriptions ----

export interface SubscriptionRow {
  id: string;
  url: string;
  status: SubscriptionStatus;
  created_at: Date;
  updated_at: Date;
  /** Creation time in microseconds as PostgreSQL keeps it (a Date would cut it to milliseconds): the list cursor. */
  cursor_time: string;
}

const COLUMNS = `id, url, status, created_at, updated_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS cursor_time`;

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    subscriptionId: row.id,
    url: row.url,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function insertSubscription(
  client: pg.ClientBase,
  subscription: { id: string; environment: string; agencyId: string; url: string; sealedKey: string; status: SubscriptionStatus },
): Promise<SubscriptionRow> {
  const { rows } = await client.query<SubscriptionRow>(
    `INSERT INTO lead_webhook_subscriptions (id, environment, agency_id, url, api_key, status)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [subscription.id, subscription.environment, subscription.agencyId, subscription.url, subscription.sealedKey, subscription.status],
  );
  return onlyRow(rows);
}

/**
 * Up to `limit` subscriptions in creation order (the API's) or newest first (the console's),
 * beyond the (creation time, id) `after` when given.
 */
export async function subscriptionsInCreationOrder(
  client: pg.ClientBase,
  limit: number,
  after: { time: string; id: string } | undefined,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<SubscriptionRow[]> {
  const params: unknown[] = [limit];
  const [beyond, direction] = order === 'newest' ? ['<', 'DESC'] : ['>', 'ASC'];
  const where =
    after === undefined
      ? ''
      : `WHERE (created_at, id) ${beyond} ($${params.push(after.time)}::timestamp AT TIME ZONE 'UTC', $${params.push(after.id)}::uuid)`;
  const { rows } = await client.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM lead_webhook_subscriptions ${where} ORDER BY created_at ${direction}, id ${direction} LIMIT $1`,
    params,
  );
  return rows;
}

export async function findSubscription(client: pg.ClientBase, id: string): Promise<SubscriptionRow | undefined> {
  const { rows } = await client.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM lead_webhook_subscriptions WHERE id = $1`, [id]);
  return rows[0];
}

/** Sets the status and the sealed apiKey where given (null keeps them) and updatedAt in any case. */
export async function updateSubscriptionRow(
  client: pg.ClientBase,
  id: string,
  status: SubscriptionStatus | null,
  sealedKey: string | null,
): Promise<SubscriptionRow | undefined> {
  const { rows } = await client.query<SubscriptionRow>(
    `UPDATE lead_webhook_subscriptions
        SET status = coalesce($2, status), api_key = coalesce($3, api_key), updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, status, sealedKey],
  );
  return rows[0];
}

export async function deleteSubscriptionRow(client: pg.ClientBase, id: string): Promise<SubscriptionRow | undefined> {
  const { rows } = await client.query<SubscriptionRow>(`DELETE FROM lead_webhook_subscriptions WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  return rows[0];
}

/** The subscription's row, locked until the transaction ends (as the owner role). */
export async function lockSubscriptionRow(client: pg.ClientBase, id: string): Promise<void> {
  await client.query('SELECT 1 FROM lead_webhook_subscriptions WHERE id::text = $1 FOR NO KEY UPDATE', [id]);
}

/** Turns the subscription INACTIVE. As the owner role: the tenant is named in the WHERE clause. */
export async function deactivateSubscription(
  client: pg.ClientBase,
  id: string,
  scope: { environment: string; agencyId: string },
): Promise<void> {
  await client.query(
    `UPDATE lead_webhook_subscriptions SET status = 'INACTIVE', updated_at = now()
      WHERE id::text = $1 AND environment = $2 AND agency_id = $3`,
    [id, scope.environment, scope.agencyId],
  );
}

/**
 * The status of each of the subscriptions that still exist. FOR SHARE holds off a deactivation as
 * well as a DELETE until the transaction commits.
 */
export async function lockedSubscriptionStatuses(
  client: pg.ClientBase,
  ids: readonly string[],
): Promise<{ id: string; status: SubscriptionStatus }[]> {
  const { rows } = await client.query<{ id: string; status: SubscriptionStatus }>(
    'SELECT id, status FROM lead_webhook_subscriptions WHERE id::text = ANY($1::text[]) ORDER BY id FOR SHARE',
    [ids],
  );
  return rows;
}

/** The leadId each of these notifications carries (null when its payload has none), by delivery id. */
export async function leadIdsOfDeliveries(client: pg.ClientBase, deliveryIds: readonly string[]): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{ id: string; lead_id: string | null }>(
    `SELECT id, payload #>> '{metadata,leadId}' AS lead_id FROM webhook_deliveries WHERE id = ANY($1::uuid[])`,
    [deliveryIds],
  );
  return new Map(rows.map((delivery) => [delivery.id, delivery.lead_id]));
}
