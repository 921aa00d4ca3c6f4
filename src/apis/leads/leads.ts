import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { tenantTransaction, withTenant, type Tenant } from '../../platform/db/tenant.js';
import { badRequest, notFound } from '../../platform/http/problems.js';
import { toLead, type Lead, type LeadRow, type PhoneNumber } from './model.js';
import { ingestionLock } from './ingestionLock.js';
import { leadNotifications } from './notifications.js';

/**
 * Leads: submit, search by ingestion date, read one. Every query runs inside withTenant or
 * tenantBatch, so a lead of another agency or environment is simply not there (404, or a 400 for
 * a foreign `start`).
 *
 * Paging is a keyset in ingestion order. Ingestion is serialised per agency (a transaction-scoped
 * advisory lock taken before the INSERT draws its seq and held until COMMIT), and ingested_at is
 * stamped under that lock and never goes backwards within an agency. So within an agency the
 * committed leads are always a prefix of the ingestion order: a lead committed after a page was
 * read sorts after every lead of that page, and continuing after the page's last lead loses and
 * repeats none. The lock is held for one round trip (see createLead): at 200 leads a second to
 * one agency it keeps up. Because (ingested_at, seq) then orders exactly like seq, pages are read
 * through the (environment, agency_id, ingested_at, seq) index: each page costs its own rows, not
 * the whole window.
 */

export const MAX_PAGE_SIZE = 100;
/** The longest period GET /leads covers: 7 days, in seconds. */
export const MAX_PERIOD_SECONDS = 7 * 24 * 3600;
export const DEFAULT_LANGUAGE = 'FR';

export interface CreateLeadRequest {
  firstName?: string;
  lastName: string;
  gender?: string;
  email: string;
  language?: string;
  phoneNumbers: PhoneNumber[];
  message: string;
  classifiedId: string;
  submittedDate: string;
}

/**
 * One round trip: the agency's ingestion lock, then one statement that writes the lead and its
 * notification to every ACTIVE subscription of the agency, then the commit. The lead and its
 * notifications commit together; the lock is held only while the database runs them.
 */
/**
 * ISO 8601 lets a date-time leave out its zone (`2026-11-22T08:00:00`); the lead API's spec does not
 * forbid it, so such a time is read as UTC, here, not by the session time zone of whichever
 * database stores it.
 */
function submittedAt(text: string): Date {
  return new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`);
}

export async function createLead(pool: pg.Pool, tenant: Tenant, body: CreateLeadRequest): Promise<{ requestId: string }> {
  const row: Omit<LeadRow, 'seq' | 'ingested_at'> = {
    id: randomUUID(),
    agency_id: tenant.agencyId,
    request_id: randomUUID(),
    category: 'CLASSIFIED',
    classified_id: body.classifiedId,
    submitted_at: submittedAt(body.submittedDate),
    email: body.email,
    first_name: body.firstName ?? null,
    last_name: body.lastName,
    gender: body.gender ?? null,
    language: body.language ?? DEFAULT_LANGUAGE,
    phone_numbers: body.phoneNumbers,
    message: body.message,
    erased_at: null,
  };
  // The notification as toLead writes it; its ingestionDate is the database's, stamped in the statement.
  const notification = toLead({ ...row, seq: 0, ingested_at: new Date(0) });
  await tenantTransaction(pool, tenant, [
    ingestionLock(tenant.environment, tenant.agencyId),
    {
      name: 'leads.create',
      text: `
      WITH lead AS (
        INSERT INTO leads (id, environment, agency_id, request_id, category, classified_id, submitted_at, email, first_name, last_name,
                           gender, language, phone_numbers, message, ingested_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14,
                greatest(clock_timestamp(), (SELECT max(ingested_at) FROM leads WHERE environment = $2 AND agency_id = $3)))
        RETURNING ingested_at),
      ${leadNotifications('notified', 'lead', '$15', '$2', '$3')}
      SELECT 1`,
      values: [
        row.id,
        tenant.environment,
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
    },
  ]);
  return { requestId: row.request_id };
}

export interface LeadQuery {
  /** Unix seconds, inclusive. */
  minDate: number;
  /** Unix seconds, exclusive: consecutive periods [a, b), [b, c) neither overlap nor leave a gap. */
  maxDate: number;
  limit: number;
  /** The leadId after which the page starts. */
  start?: string;
}

export interface LeadPage {
  items: Lead[];
  /** The leadId to continue after, when more leads follow now. */
  next?: string;
}

function checkPeriod(query: LeadQuery): void {
  if (query.minDate > query.maxDate) {
    throw badRequest(
      [
        { name: 'minDate', reason: 'must not be after maxDate.' },
        { name: 'maxDate', reason: 'must not be before minDate.' },
      ],
      'requestParameter',
    );
  }
  if (query.maxDate - query.minDate > MAX_PERIOD_SECONDS) {
    const reason = `must be at most 7 days (${MAX_PERIOD_SECONDS} seconds) apart from the other bound.`;
    throw badRequest(
      [
        { name: 'minDate', reason },
        { name: 'maxDate', reason },
      ],
      'requestParameter',
    );
  }
}

export async function listLeads(pool: pg.Pool, tenant: Tenant, query: LeadQuery): Promise<LeadPage> {
  checkPeriod(query);
  const rows = await withTenant(pool, tenant, async (client) => {
    const params: unknown[] = [
      tenant.environment,
      tenant.agencyId,
      new Date(query.minDate * 1000),
      new Date(query.maxDate * 1000),
      query.limit + 1,
    ];
    let after = '';
    if (query.start !== undefined) {
      // As text: ingested_at has microseconds, a JavaScript Date only milliseconds.
      const found = await client.query<{ at: string; seq: number }>('SELECT ingested_at::text AS at, seq FROM leads WHERE id = $1', [
        query.start,
      ]);
      const start = found.rows[0];
      if (!start) throw badRequest([{ name: 'start', reason: 'must be the leadId of a lead of this agency.' }], 'requestParameter');
      after = `AND (ingested_at, seq) > ($${params.push(start.at)}::timestamptz, $${params.push(start.seq)})`;
    }
    const result = await client.query<LeadRow>(
      `SELECT * FROM leads
        WHERE environment = $1 AND agency_id = $2 AND ingested_at >= $3 AND ingested_at < $4 ${after}
        ORDER BY ingested_at, seq LIMIT $5`,
      params,
    );
    return result.rows;
  });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return rows.length > query.limit && last ? { items: items.map(toLead), next: last.id } : { items: items.map(toLead) };
}

export async function readLead(pool: pg.Pool, tenant: Tenant, leadId: string): Promise<Lead> {
  const row = await withTenant(pool, tenant, async (client) => {
    const { rows } = await client.query<LeadRow>('SELECT * FROM leads WHERE id = $1', [leadId]);
    return rows[0];
  });
  if (!row) throw notFound(`No lead ${leadId}`);
  return toLead(row);
}
