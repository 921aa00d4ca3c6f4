/*
 * The classified: its payload schema (request body of POST and PUT /classifieds) and the TypeScript
 * type of the bodies it accepts, both generated from the reference files by
 * scripts/generate-caas-schema.ts and checked in (classified.schema.json, classified.types.ts), and
 * the route schemas built on them: the body, the classified as a read shows it, its id parameter,
 * the acknowledgement of a write.
 *
 * Imported as a JSON module: tsc (resolveJsonModule) type-checks it and copies the file next to this
 * module in dist/, so the running server never reads src/ or depends on the working directory, and a
 * build without the JSON fails instead of a server failing at start. (Reading it with fs relative to
 * import.meta.url would need a copy step tsc does not do for files it does not import.)
 *
 * Use it as a whole body schema, or register it once with an `$id` (validators.addSchema) and `$ref`
 * that id: its multilingual texts are local `#/definitions/...` references, which resolve only
 * against this document's root, so do not paste it inside another schema.
 */
import Type, { type Static } from 'typebox';
import schema from './classified.schema.json' with { type: 'json' };
import type { Classified } from './classified.types.js';
import { jsonText, withDefaults } from '../../../platform/http/schemas.js';
import { Limit, NextToken, Page } from './pages.js';

export const classifiedSchema: Readonly<Record<string, unknown>> = schema;

export type { Classified, MultiLingualText } from './classified.types.js';

/** The `$id` the classified schema is registered under (index.ts); the route schemas `$ref` it. */
export const CLASSIFIED_SCHEMA_ID = 'CaasClassified';

/** The body of POST and PUT /classifieds. */
export const ClassifiedBody = Type.Unsafe<Classified>({ $ref: `${CLASSIFIED_SCHEMA_ID}#` });

const WithId = Type.Object({ classifiedId: Type.String({ format: 'uuid' }) });

/** A classified as GET shows it: its payload with its id. */
export const ClassifiedItem = Type.Intersect([ClassifiedBody, WithId]);

export const ClassifiedIdParams = Type.Object({ classifiedId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export type ClassifiedIdParams = Static<typeof ClassifiedIdParams>;

/** The ETag of a classified. */
export const ETag = Type.String({ pattern: '^"[0-9]+"$', description: 'The revision, quoted: grows with every acknowledged write' });

/** The answer to POST, PUT and DELETE. */
export const Acknowledgement = Type.Object({
  classifiedId: Type.String({ format: 'uuid' }),
  links: Type.Array(Type.Object({ statuses: Type.Optional(Type.String()) })),
});
export type Acknowledgement = Static<typeof Acknowledgement>;

export const ClassifiedsQuery = withDefaults(
  Type.Object({
    limit: Limit,
    nextToken: NextToken,
    // As long as the classified's data.metaData.source.offererEstateId may be.
    offererEstateId: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  }),
  'limit',
);
export type ClassifiedsQuery = Static<typeof ClassifiedsQuery>;

/** GET /classifieds: a page of classifieds, sent as the JSON text the database wrote. */
export const ClassifiedPageText = jsonText(Page(ClassifiedItem));

/** GET /classifieds/{classifiedId}: one classified, sent as the JSON text the database wrote. */
export const ClassifiedText = jsonText(Type.Intersect([ClassifiedBody, WithId], { description: 'The classified', headers: { ETag } }));

/**
 * GET /classifieds/{classifiedId} answered with If-None-Match naming the current revision: no body.
 * Documented as `null`; typed as what the handler sends, nothing (a null would be serialised).
 */
export const NotModified = Type.Unsafe<undefined>(
  Type.Null({ description: 'Not modified: If-None-Match names the current ETag', headers: { ETag } }),
);

// A list of entity tags, as long as any client sends one.
const ENTITY_TAGS_MAX_LENGTH = 1024;
export const IfNoneMatchHeaders = Type.Object({ 'if-none-match': Type.Optional(Type.String({ maxLength: ENTITY_TAGS_MAX_LENGTH })) });
export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: ENTITY_TAGS_MAX_LENGTH })) });
