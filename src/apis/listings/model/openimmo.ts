/*
 * The OpenImmo intake's answers (an extension of the listing import): the 202 of a posted file and
 * the import as GET reads it, with one outcome per `immobilie`.
 */
import Type, { type Static } from 'typebox';
import { stringEnum } from '../../../platform/http/schemas.js';
import { object } from './request.js';

export const IMPORT_STATUSES = ['PROCESSING', 'DONE', 'FAILED'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const UMFANG = ['VOLL', 'TEIL'] as const;
export type Umfang = (typeof UMFANG)[number];
export const OBJECT_ACTIONS = ['created', 'updated', 'unchanged', 'deleted', 'refused'] as const;
export type ObjectAction = (typeof OBJECT_ACTIONS)[number];

const importId = Type.String({ format: 'uuid', description: 'Identifies the import: GET it at the self link' });
const links = Type.Array(
  object({ rel: stringEnum(['self']), href: Type.String({ format: 'uri', description: 'GET it to follow the import' }) }),
);

/** The 202 of POST /openimmo-imports. */
export const ImportAccepted = object(
  { importId, links },
  { headers: { Location: { type: 'string', format: 'uri', description: 'The import' } } },
);
export type ImportAccepted = Static<typeof ImportAccepted>;

const issue = object({
  path: Type.String({ description: 'The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz' }),
  reason: Type.String({ description: 'What is wrong, in the words of the listing API' }),
});
export type ImportIssue = Static<typeof issue>;

export const ImportObject = object({
  objektnrExtern: Type.Union([Type.String(), Type.Null()], {
    description: 'verwaltung_techn/objektnr_extern: the listing’s externalListingId',
  }),
  path: Type.String({ description: 'The immobilie element, or the listing a VOLL transfer deleted' }),
  action: stringEnum(OBJECT_ACTIONS),
  externalListingId: Type.Optional(Type.String({ description: 'The listing written or deleted: GET {root}/listings/{externalListingId}' })),
  listingId: Type.Optional(Type.String({ format: 'uuid' })),
  errors: Type.Optional(Type.Array(issue, { description: 'Why the object was refused' })),
  warnings: Type.Optional(
    Type.Array(issue, { description: 'What was kept out: elements the listing model has no place for, attachments not stored' }),
  ),
});
export type ImportObject = Static<typeof ImportObject>;

export const ImportProblem = object({
  status: Type.Integer(),
  title: Type.String(),
  detail: Type.String(),
});
export type ImportProblem = Static<typeof ImportProblem>;

/** The 200 of GET /openimmo-imports/{importId}. */
export const OpenImmoImport = object({
  importId,
  status: stringEnum(IMPORT_STATUSES, {
    description: 'PROCESSING until the worker has applied every object; FAILED when the file was refused as a whole',
  }),
  umfang: Type.Optional(stringEnum(UMFANG, { description: 'uebertragung/@umfang, once read' })),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Optional(Type.String({ format: 'date-time' })),
  sizeBytes: Type.Integer(),
  objects: Type.Array(ImportObject, {
    description: 'One outcome per immobilie, in document order, then the listings a VOLL transfer deleted',
  }),
  warnings: Type.Optional(
    Type.Array(issue, {
      description: 'What the file carries outside its objects that the listings have no place for (the provider’s logo, imprint, …)',
    }),
  ),
  problem: Type.Optional(ImportProblem),
});
export type OpenImmoImport = Static<typeof OpenImmoImport>;

export const ImportIdParams = object({ importId: Type.String({ format: 'uuid', description: 'The importId the POST answered' }) });

/** The console's page of imports, newest first. */
export const ImportPage = object({
  imports: Type.Array(OpenImmoImport),
  nextPageToken: Type.Union([Type.String(), Type.Null()]),
});
export type ImportPage = Static<typeof ImportPage>;
