/*
 * A lead as the Lead API takes it (POST /leads), searches it (GET /leads) and returns it
 * (GET /leads/{leadId}, the items of GET /leads), which is also what its webhook notification
 * carries. contract-notes: metadata, contactRequest, property.
 */
import Type, { type Static } from 'typebox';
import { FORMAT_BOUNDS, LOCAL_DATE_TIME_PATTERN } from '../../../platform/http/formats.js';
import { nullable, stringEnum, withDefaults } from '../../../platform/http/schemas.js';

export const GENDERS = ['MALE', 'FEMALE', 'OTHER', 'PREFER_NOT_TO_DISCLOSE'] as const;
export const LANGUAGES = ['DE', 'EN', 'ES', 'FR', 'HE', 'IT', 'NL', 'PT', 'RU'] as const;
export const PHONE_TYPES = ['MOBILE', 'LANDLINE'] as const;
export const LEAD_CATEGORIES = ['CLASSIFIED', 'AGENCY', 'PROPERTY_SEARCH'] as const;
export type LeadCategory = (typeof LEAD_CATEGORIES)[number];

/** The language of a lead submitted without one (bodies get no defaults filled in: the service applies it). */
export const DEFAULT_LANGUAGE = 'FR';
export const MAX_LEAD_PAGE_SIZE = 100;
/** The longest period GET /leads covers: 7 days, in seconds. */
/**
 * Ours: the contract sets no bound on a lead's message. The default body limit (BODY_LIMIT_BYTES),
 * which bounded it alone before, so a message the default server took is still taken.
 */
export const MESSAGE_MAX_LENGTH = 1_048_576;
export const MAX_PERIOD_SECONDS = 7 * 24 * 3600;

export const PhoneNumber = Type.Object(
  {
    type: Type.Optional(stringEnum(PHONE_TYPES)),
    // National or international forms as people write them: "+33 6 12 34 56 78", "(030) 123-456".
    number: Type.String({ minLength: 3, maxLength: 32, pattern: '^\\+?[0-9(][0-9 ()./-]*[0-9]$' }),
    verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PhoneNumber = Static<typeof PhoneNumber>;

export const CreateLeadRequest = Type.Object(
  {
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    gender: Type.Optional(stringEnum(GENDERS)),
    email: Type.String({ format: 'email', maxLength: 254 }),
    language: Type.Optional(stringEnum(LANGUAGES, { default: DEFAULT_LANGUAGE, description: 'FR when omitted' })),
    phoneNumbers: Type.Array(PhoneNumber, { minItems: 1, maxItems: 10 }),
    // No bound of the spec's: ours, far above any message a seeker writes.
    message: Type.String({ maxLength: MESSAGE_MAX_LENGTH, 'x-immogate-limit': 'added by immogate: the contract sets no bound' }),
    classifiedId: Type.String({ maxLength: 12, pattern: '^([0-9]{2})([1-9A-NP-Z]{10})$' }),
    // The shape for every reader of the document (a pattern), the calendar (no 31 April) for ours (the format).
    submittedDate: Type.String({
      format: 'iso-date-time',
      maxLength: FORMAT_BOUNDS['iso-date-time'],
      pattern: LOCAL_DATE_TIME_PATTERN,
      description: 'ISO 8601 date-time; without a time zone (2026-11-22T08:00:00) it is read as UTC',
    }),
  },
  { additionalProperties: false },
);
export type CreateLeadRequest = Static<typeof CreateLeadRequest>;

export const LeadSubmitted = Type.Object({ title: Type.String(), requestId: Type.String({ format: 'uuid' }) });

const nullableString = nullable(Type.String());

export const Lead = Type.Object({
  metadata: Type.Object({
    leadId: Type.String({ format: 'uuid' }),
    category: stringEnum(LEAD_CATEGORIES),
    ingestionDate: Type.String({ format: 'date-time', description: 'When immogate received the lead; what minDate and maxDate bound' }),
    submittedDate: Type.String({ format: 'date-time' }),
    requestId: Type.String({ format: 'uuid' }),
    agencyId: Type.String(),
  }),
  contactRequest: Type.Object(
    {
      firstName: nullableString,
      lastName: nullableString,
      // firstName and lastName together, as a display name.
      name: nullableString,
      gender: nullableString,
      email: Type.String(),
      language: nullableString,
      phoneNumbers: Type.Array(PhoneNumber),
      message: nullableString,
    },
    { description: 'After the author asked for erasure: firstName, lastName, name, gender, language and message null, phoneNumbers empty' },
  ),
  property: Type.Object({ classifiedId: nullableString }),
});
export type Lead = Static<typeof Lead>;

/**
 * GET /leads/{leadId}/openimmo-feedback answers XML, not JSON: the document states the media type
 * and a string (Fastify sends the string as it is, under the content type the route sets).
 */
export const OpenImmoFeedbackAnswer = { content: { 'application/xml': { schema: Type.String() } } };

export const LeadIdParams = Type.Object({ leadId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

const unixSeconds = { minimum: 0, maximum: 253402300799 };

export const LeadQuery = withDefaults(
  Type.Object(
    {
      minDate: Type.Integer({ ...unixSeconds, description: 'Unix seconds: the earliest ingestion date, inclusive' }),
      // Exclusive: consecutive periods [a, b), [b, c) neither overlap nor leave a gap.
      maxDate: Type.Integer({
        ...unixSeconds,
        description: 'Unix seconds: the end of the period, exclusive; at most 7 days after minDate',
      }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEAD_PAGE_SIZE, default: MAX_LEAD_PAGE_SIZE })),
      start: Type.Optional(Type.String({ format: 'uuid', description: 'The leadId after which to continue (links.next sets it)' })),
    },
    { additionalProperties: false },
  ),
  'limit',
);
export type LeadQuery = Static<typeof LeadQuery>;

export const LeadPage = Type.Object({
  metadata: Type.Object({
    count: Type.Integer(),
    limit: Type.Integer(),
    minDate: Type.Integer(),
    maxDate: Type.Integer(),
    start: Type.Optional(Type.String()),
  }),
  links: Type.Object({
    self: Type.String({ format: 'uri' }),
    next: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'The next page; absent when no more leads follow yet (continue later with start set to the last leadId)',
      }),
    ),
  }),
  items: Type.Array(Lead),
});
