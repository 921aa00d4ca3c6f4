import type { FastifyInstance } from 'fastify';
import { apiById, rootPath } from '../../../platform/catalogue.js';
import type { ApiDependencies } from '../../../platform/module.js';
import { createLead, listLeads, MAX_PAGE_SIZE, readLead, type CreateLeadRequest, type LeadQuery } from '../leads.js';
import { tenantOf } from '../../../platform/auth/guard.js';

const LEADS_API = apiById('leads');

/** The spec's limit on these routes: 10 requests per 200 ms per caller. */
const rateLimited = { scope: 'leads:read', rateLimit: { max: 10, timeWindow: 200 } };

const GENDERS = ['MALE', 'FEMALE', 'OTHER', 'PREFER_NOT_TO_DISCLOSE'] as const;
const LANGUAGES = ['DE', 'EN', 'ES', 'FR', 'HE', 'IT', 'NL', 'PT', 'RU'] as const;
const PHONE_TYPES = ['MOBILE', 'LANDLINE'] as const;

const phoneNumber = {
  type: 'object',
  required: ['number'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: [...PHONE_TYPES] },
    // National or international forms as people write them: "+33 6 12 34 56 78", "(030) 123-456".
    number: { type: 'string', minLength: 3, maxLength: 32, pattern: '^\\+?[0-9(][0-9 ()./-]*[0-9]$' },
    verified: { type: 'boolean' },
  },
} as const;

const createLeadRequest = {
  type: 'object',
  required: ['lastName', 'email', 'phoneNumbers', 'message', 'classifiedId', 'submittedDate'],
  additionalProperties: false,
  properties: {
    firstName: { type: 'string', minLength: 1, maxLength: 100 },
    lastName: { type: 'string', minLength: 1, maxLength: 100 },
    gender: { type: 'string', enum: [...GENDERS] },
    email: { type: 'string', format: 'email', maxLength: 254 },
    language: { type: 'string', enum: [...LANGUAGES], default: 'FR', description: 'FR when omitted' },
    phoneNumbers: { type: 'array', minItems: 1, maxItems: 10, items: phoneNumber },
    // No bound of the spec's: up to the body limit.
    message: { type: 'string' },
    classifiedId: { type: 'string', pattern: '^([0-9]{2})([1-9A-NP-Z]{10})$' },
    submittedDate: {
      type: 'string',
      format: 'iso-date-time',
      description: 'ISO 8601 date-time; without a time zone (2026-11-22T08:00:00) it is read as UTC',
    },
  },
} as const;

const nullableString = { type: 'string', nullable: true } as const;

const lead = {
  type: 'object',
  required: ['metadata', 'contactRequest', 'property'],
  properties: {
    metadata: {
      type: 'object',
      required: ['leadId', 'category', 'ingestionDate', 'submittedDate', 'requestId', 'agencyId'],
      properties: {
        leadId: { type: 'string', format: 'uuid' },
        category: { type: 'string', enum: ['CLASSIFIED', 'AGENCY', 'PROPERTY_SEARCH'] },
        ingestionDate: {
          type: 'string',
          format: 'date-time',
          description: 'When immogate received the lead; what minDate and maxDate bound',
        },
        submittedDate: { type: 'string', format: 'date-time' },
        requestId: { type: 'string', format: 'uuid' },
        agencyId: { type: 'string' },
      },
    },
    contactRequest: {
      type: 'object',
      description: 'After the author asked for erasure: firstName, lastName, name, gender, language and message null, phoneNumbers empty',
      required: ['firstName', 'lastName', 'name', 'gender', 'email', 'language', 'phoneNumbers', 'message'],
      properties: {
        firstName: nullableString,
        lastName: nullableString,
        name: nullableString,
        gender: nullableString,
        email: { type: 'string' },
        language: nullableString,
        phoneNumbers: { type: 'array', items: phoneNumber },
        message: nullableString,
      },
    },
    property: { type: 'object', required: ['classifiedId'], properties: { classifiedId: nullableString } },
  },
} as const;

const leadIdParams = {
  type: 'object',
  required: ['leadId'],
  additionalProperties: false,
  properties: { leadId: { type: 'string', format: 'uuid' } },
} as const;

const unixSeconds = { type: 'integer', minimum: 0, maximum: 253402300799 } as const;

const leadQuery = {
  type: 'object',
  required: ['minDate', 'maxDate'],
  additionalProperties: false,
  properties: {
    minDate: { ...unixSeconds, description: 'Unix seconds: the earliest ingestion date, inclusive' },
    maxDate: { ...unixSeconds, description: 'Unix seconds: the end of the period, exclusive; at most 7 days after minDate' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE },
    start: { type: 'string', format: 'uuid', description: 'The leadId after which to continue (links.next sets it)' },
  },
} as const;

const leadPage = {
  type: 'object',
  required: ['metadata', 'links', 'items'],
  properties: {
    metadata: {
      type: 'object',
      required: ['count', 'limit', 'minDate', 'maxDate'],
      properties: {
        count: { type: 'integer' },
        limit: { type: 'integer' },
        minDate: { type: 'integer' },
        maxDate: { type: 'integer' },
        start: { type: 'string' },
      },
    },
    links: {
      type: 'object',
      required: ['self'],
      properties: {
        self: { type: 'string', format: 'uri' },
        next: {
          type: 'string',
          format: 'uri',
          description: 'The next page; absent when no more leads follow yet (continue later with start set to the last leadId)',
        },
      },
    },
    items: { type: 'array', items: lead },
  },
} as const;

const submitted = {
  type: 'object',
  required: ['title', 'requestId'],
  properties: { title: { type: 'string' }, requestId: { type: 'string', format: 'uuid' } },
} as const;

/** POST /leads, GET /leads, GET /leads/{leadId}. */
export async function leadRoutes(app: FastifyInstance, { pool, config }: ApiDependencies): Promise<void> {
  app.post<{ Body: CreateLeadRequest }>(
    '/leads',
    { config: { scope: 'leads:create' }, schema: { body: createLeadRequest, response: { 200: submitted } } },
    async (request) => {
      const { requestId } = await createLead(pool, tenantOf(request), request.body);
      return { title: 'Lead submitted', requestId };
    },
  );

  app.get<{ Querystring: LeadQuery }>(
    '/leads',
    { config: rateLimited, schema: { querystring: leadQuery, response: { 200: leadPage } } },
    async (request) => {
      const query = request.query;
      const page = await listLeads(pool, tenantOf(request), query);
      // Absolute links: a client follows them as they are, whatever base it was configured with.
      const link = (start: string | undefined) => {
        const params = new URLSearchParams({ minDate: String(query.minDate), maxDate: String(query.maxDate), limit: String(query.limit) });
        if (start !== undefined) params.set('start', start);
        return `${config.publicUrl}${rootPath(LEADS_API, tenantOf(request).environment)}/leads?${params}`;
      };
      return {
        metadata: { count: page.items.length, limit: query.limit, minDate: query.minDate, maxDate: query.maxDate, start: query.start },
        links: { self: link(query.start), next: page.next === undefined ? undefined : link(page.next) },
        items: page.items,
      };
    },
  );

  app.get<{ Params: { leadId: string } }>(
    '/leads/:leadId',
    { config: rateLimited, schema: { params: leadIdParams, response: { 200: lead } } },
    async (request) => readLead(pool, tenantOf(request), request.params.leadId),
  );
}
