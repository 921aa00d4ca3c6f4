/*
 * The lead API v1: submit a lead, search the agency's leads by ingestion date (following
 * links.next), read one, and the webhook subscriptions that notify new leads.
 */
import type { Client } from 'openapi-fetch';
import { ImmogateError } from './errors.js';
import type { paths } from './generated/leads.js';
import { Paged } from './paging.js';
import { type WriteOptions, writeHeaders } from './transport.js';

export type LeadPaths = paths;
/** A lead as POST /leads takes it. */
export type NewLead = paths['/leads']['post']['requestBody']['content']['application/json'];
export type LeadSubmitted = paths['/leads']['post']['responses'][200]['content']['application/json'];
/** A lead as the API answers it, and as a lead notification posts it. */
export type Lead = paths['/leads/{leadId}']['get']['responses'][200]['content']['application/json'];
export type LeadSearchQuery = paths['/leads']['get']['parameters']['query'];
export type NewSubscription = paths['/webhook/subscriptions']['post']['requestBody']['content']['application/json'];
export type SubscriptionChange = paths['/webhook/subscriptions/{id}']['put']['requestBody']['content']['application/json'];
export type Subscription = paths['/webhook/subscriptions']['post']['responses'][201]['content']['application/json'];
export type DeletedSubscription = paths['/webhook/subscriptions/{id}']['delete']['responses'][200]['content']['application/json'];
export type SubscriptionAudit = paths['/webhook/subscriptions/{id}/audit']['get']['responses'][200]['content']['application/json'];

/** The period of a search: Unix seconds or Dates; at most 7 days apart, maxDate exclusive. */
export interface LeadSearch {
  minDate: number | Date;
  maxDate: number | Date;
  /** Leads per page, 1-100 (default 100). */
  limit?: number;
}

function seconds(value: number | Date): number {
  return value instanceof Date ? Math.floor(value.getTime() / 1000) : value;
}

function missingBody(response: Response): ImmogateError {
  return new ImmogateError(`${response.url}: ${response.status} without a body`);
}

/**
 * The query of the page links.next names. The link is absolute and may name another host than the
 * one this client calls (a gateway's), so only where it starts is taken from it, and the page is
 * asked of the configured base with this client's token.
 */
function queryOfLink(link: string, current: LeadSearchQuery): LeadSearchQuery | undefined {
  const start = new URL(link).searchParams.get('start');
  return start === null || start === current.start ? undefined : { ...current, start };
}

export class Subscriptions {
  constructor(private readonly http: Client<paths>) {}

  /** POST /webhook/subscriptions: every new lead of the agency is posted to `url`, signed with `apiKey` (also sent as X-Api-Key). */
  async create(subscription: NewSubscription, options: WriteOptions = {}): Promise<Subscription> {
    const { data, response } = await this.http.POST('/webhook/subscriptions', { headers: writeHeaders(options), body: subscription });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** GET /webhook/subscriptions: the agency's subscriptions, every page. */
  list(query: { limit?: number } = {}): Paged<Subscription> {
    return new Paged(async (nextToken) => {
      const { data, response } = await this.http.GET('/webhook/subscriptions', {
        params: { query: { ...query, ...(nextToken === undefined ? {} : { nextToken }) } },
      });
      if (data === undefined) throw missingBody(response);
      return { items: data.items, next: data.metadata.nextToken };
    });
  }

  /** PUT /webhook/subscriptions/{id}: a new apiKey, or ACTIVE/INACTIVE. */
  async update(id: string, change: SubscriptionChange): Promise<Subscription> {
    const { data, response } = await this.http.PUT('/webhook/subscriptions/{id}', { params: { path: { id } }, body: change });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** DELETE /webhook/subscriptions/{id}: the subscription as it was, with a message. */
  async delete(id: string): Promise<DeletedSubscription> {
    const { data, response } = await this.http.DELETE('/webhook/subscriptions/{id}', { params: { path: { id } } });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** GET /webhook/subscriptions/{id}/audit: the last success and the latest `limit` attempts (1-100, default 10), newest first. */
  async audit(id: string, query: { limit?: number } = {}): Promise<SubscriptionAudit> {
    const { data, response } = await this.http.GET('/webhook/subscriptions/{id}/audit', { params: { path: { id }, query } });
    if (data === undefined) throw missingBody(response);
    return data;
  }
}

export class Leads {
  readonly subscriptions: Subscriptions;

  constructor(private readonly http: Client<paths>) {
    this.subscriptions = new Subscriptions(http);
  }

  /** POST /leads: answered once the lead and its notifications are stored. */
  async create(lead: NewLead, options: WriteOptions = {}): Promise<LeadSubmitted> {
    const { data, response } = await this.http.POST('/leads', { headers: writeHeaders(options), body: lead });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /**
   * GET /leads: the leads ingested in the period, in ingestion order, following links.next.
   * The API allows 10 calls per 200 ms: a 429 is waited out as its Retry-After says.
   */
  search(search: LeadSearch): Paged<Lead, LeadSearchQuery> {
    const first: LeadSearchQuery = {
      minDate: seconds(search.minDate),
      maxDate: seconds(search.maxDate),
      ...(search.limit === undefined ? {} : { limit: search.limit }),
    };
    return new Paged(async (cursor) => {
      const query = cursor ?? first;
      const { data, response } = await this.http.GET('/leads', { params: { query } });
      if (data === undefined) throw missingBody(response);
      return { items: data.items, next: data.links.next === undefined ? undefined : queryOfLink(data.links.next, query) };
    });
  }

  /** GET /leads/{leadId}. */
  async get(leadId: string): Promise<Lead> {
    const { data, response } = await this.http.GET('/leads/{leadId}', { params: { path: { leadId } } });
    if (data === undefined) throw missingBody(response);
    return data;
  }
}
