import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withTenant, type Tenant } from '../../platform/db/tenant.js';
import { badRequest, notFound } from '../../platform/http/problems.js';
import { toLead, type Lead, type LeadRow, type PhoneNumber } from './model.js';
import { notifyNewLead } from './notifications.js';

/**
 * Leads: submit, search by ingestion date, read one. Every query runs inside withTenant, so a lead
 * of another agency or environment is simply not there (404, or a 400 for a foreign `start`).
 *
 * Paging is a keyset in ingestion order. Ingestion is serialised per agency (a transaction-scoped
 * advisory lock taken before the INSERT draws its seq and held until COMMIT), and ingested_at is
 * stamped under that lock and never goes backwards within an agency. So within an agency the
 * committed leads are always a prefix of the ingestion order: a lead committed after a page was read
 * sorts after every lead of that page, and continuing after the page's last lead loses and repeats
 * none. The lock costs little: one agency receives few leads a second. Because (ingested_at, seq)
 * then orders exactly like seq, pages are read through the (environment, agency_id, ingested_at,
 * seq) index: each page costs its own rows, not the whole window.
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

export async function createLead(pool: pg.Pool, tenant: Tenant, body: CreateLeadRequest): Promise<{ requestId: string }> {
  return withTenant(pool, tenant, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('leads:' || $1 || ':' || $2, 0))`, [tenant.environment, tenant.agencyId]);
    const { rows } = await client.query<LeadRow>(
      `INSERT INTO leads (id, environment, agency_id, request_id, classified_id, submitted_at, email, first_name, last_name,
                          gender, language, phone_numbers, message, ingested_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13,
               greatest(clock_timestamp(), (SELECT max(ingested_at) FROM leads WHERE environment = $2 AND agency_id = $3)))
       RETURNING *`,
      [
        randomUUID(),
        tenant.environment,
        tenant.agencyId,
        randomUUID(),
        body.classifiedId,
        body.submittedDate,
        body.email,
        body.firstName ?? null,
        body.lastName,
        body.gender ?? null,
        body.language ?? DEFAULT_LANGUAGE,
        JSON.stringify(body.phoneNumbers),
        body.message,
      ],
    );
    const row = rows[0]!;
    await notifyNewLead(client, toLead(row), tenant.environment);
    return { requestId: row.request_id };
  });
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
    const params: unknown[] = [tenant.environment, tenant.agencyId, new Date(query.minDate * 1000), new Date(query.maxDate * 1000), query.limit + 1];
    let after = '';
    if (query.start !== undefined) {
      // As text: ingested_at has microseconds, a JavaScript Date only milliseconds.
      const found = await client.query<{ at: string; seq: number }>('SELECT ingested_at::text AS at, seq FROM leads WHERE id = $1', [query.start]);
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
