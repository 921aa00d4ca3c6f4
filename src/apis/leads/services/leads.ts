/*
 * Leads: submit, search by ingestion date, read one. Every query runs inside withTenant,
 * tenantTransaction or tenantRead, so a lead of another agency or environment is simply not there
 * (404, or a 400 for a foreign `start`).
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
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { tenantRead, tenantTransaction, withTenant, type Tenant } from '../../../platform/db/tenant.js';
import { badRequest, notFound } from '../../../platform/http/problems.js';
import { DEFAULT_LANGUAGE, MAX_PERIOD_SECONDS, type CreateLeadRequest, type Lead, type LeadQuery } from '../model/lead.js';
import {
  findLeadStatement,
  ingestionLock,
  insertLead,
  LEADS_TABLE_LOCK,
  leadPosition,
  leadsIngested,
  toLead,
  type LeadPosition,
  type LeadRow,
  type NewLeadRow,
} from '../repository.js';

/**
 * ISO 8601 lets a date-time leave out its zone (`2026-11-22T08:00:00`); the lead API's spec does not
 * forbid it, so such a time is read as UTC, here, not by the session time zone of whichever
 * database stores it.
 */
function submittedAt(text: string): Date {
  return new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`);
}

/**
 * One round trip: the agency's ingestion lock, then one statement that writes the lead and its
 * notification to every ACTIVE subscription of the agency, then the commit. The lead and its
 * notifications commit together; the lock is held only while the database runs them.
 */
export async function createLead(pool: pg.Pool, tenant: Tenant, body: CreateLeadRequest): Promise<{ requestId: string }> {
  const row: NewLeadRow = {
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
    LEADS_TABLE_LOCK,
    ingestionLock(tenant.environment, tenant.agencyId),
    insertLead(tenant.environment, row, notification),
  ]);
  return { requestId: row.request_id };
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

/** A page of leads in ingestion order (the API's), or newest first (the console's, like its other lists). */
export async function listLeads(pool: pg.Pool, tenant: Tenant, query: LeadQuery, order: 'oldest' | 'newest' = 'oldest'): Promise<LeadPage> {
  checkPeriod(query);
  const rows = await withTenant(pool, tenant, async (client) => {
    let after: LeadPosition | undefined;
    if (query.start !== undefined) {
      after = await leadPosition(client, query.start);
      if (!after) throw badRequest([{ name: 'start', reason: 'must be the leadId of a lead of this agency.' }], 'requestParameter');
    }
    const period = { from: new Date(query.minDate * 1000), to: new Date(query.maxDate * 1000) };
    // The extra row only tells whether another page follows.
    return leadsIngested(client, tenant, period, query.limit + 1, after, order);
  });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return rows.length > query.limit && last ? { items: items.map(toLead), next: last.id } : { items: items.map(toLead) };
}

export async function readLead(pool: pg.Pool, tenant: Tenant, leadId: string): Promise<Lead> {
  const [found] = await tenantRead(pool, tenant, [findLeadStatement(leadId)]);
  const row = found.rows[0] as LeadRow | undefined;
  if (!row) throw notFound(`No lead ${leadId}`);
  return toLead(row);
}
