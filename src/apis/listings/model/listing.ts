/*
 * The listing schemas as registered and served: the apiRequest with its $id and example, the
 * references to it, and the parameters and answers of the listing routes, each with the type
 * TypeBox derives from it.
 */
import Type, { type Static } from 'typebox';
import { nullable, stringEnum } from '../../../platform/http/schemas.js';
import { berlinRentApartmentExample } from './example.js';
import { ApiRequest, object } from './request.js';
import { TOKEN_MAX_LENGTH } from '../../../platform/http/cursors.js';

export const LISTING_REQUEST_SCHEMA_ID = 'ClimApiRequest';

/** GET /listings answers this many externalListingIds a page. */
export const PAGE_SIZE = 100;

/**
 * The apiRequest schema, registered once by its $id (the same object, given its $id and its
 * example, the tested fixture); routes and other schemas refer to it by `$ref`.
 */
export const ListingRequest = Object.assign(ApiRequest, { $id: LISTING_REQUEST_SCHEMA_ID, example: berlinRentApartmentExample() });
export type ListingRequest = Static<typeof ListingRequest>;

/** The body of POST /listings and PUT /listings/{externalListingId}: the registered apiRequest. */
export const ListingRequestRef = Type.Unsafe<ListingRequest>({ $ref: `${LISTING_REQUEST_SCHEMA_ID}#` });

/** A member of the registered apiRequest, by reference. */
function requestMember<K extends keyof ListingRequest>(member: K) {
  return Type.Unsafe<NonNullable<ListingRequest[K]>>({ $ref: `${LISTING_REQUEST_SCHEMA_ID}#/properties/${member}` });
}

// --- Parameters and answers of the listing routes -----------------------------------------------------------

export const ExternalListingIdParams = object({
  // No listing can have U+0000 in its id (PostgreSQL text cannot hold it): refused before any query.
  externalListingId: Type.String({ minLength: 1, maxLength: 512, description: 'The offererEstateId the listing was created with' }),
});

const requestId = Type.String({ format: 'uuid', description: 'Identifies this write request' });
const listingId = Type.String({ format: 'uuid', description: 'The portal identifier of the listing' });
const externalListingId = Type.String({ description: 'The offererEstateId the listing was created with' });

/** The 202 of PUT and DELETE. */
export const WriteAcknowledgement = object({ requestId, listingId, externalListingId });
export type WriteAcknowledgement = Static<typeof WriteAcknowledgement>;

/** The 201 of POST /listings. */
export const ListingCreated = object(
  {
    requestId,
    listingId,
    externalListingId,
    warnings: Type.Array(object({ type: Type.String(), message: Type.String() }), {
      description: 'Non-blocking findings: the listing was stored all the same',
    }),
    links: Type.Array(
      object({
        rel: stringEnum(['self']),
        href: Type.String({ format: 'uri', description: 'GET it to read the listing back' }),
      }),
    ),
  },
  { headers: { Location: { type: 'string', format: 'uri', description: 'The listing' } } },
);
export type ListingCreated = Static<typeof ListingCreated>;

export const PageQuery = object({
  nextPageToken: Type.Optional(
    Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'The nextPageToken of the previous page; omit it for the first page' }),
  ),
});

/** The 200 of GET /listings. */
export const ListingPage = object({
  externalListingIds: Type.Array(Type.String(), { description: `Oldest first, at most ${PAGE_SIZE} a page` }),
  nextPageToken: nullable(Type.String({ description: 'Send it as nextPageToken for the next page; null on the last page' })),
});
export type ListingPage = Static<typeof ListingPage>;

/** A listing as served: the last accepted apiRequest plus what the service knows about it. */
export const Listing = object(
  {
    data: requestMember('data'),
    metadata: requestMember('metadata'),
    media: Type.Optional(requestMember('media')),
    contact: Type.Optional(requestMember('contact')),
    listingId,
    externalListingId,
    isPublished: Type.Boolean({ description: 'false: stored and served to its agency, not published on the portal' }),
    creationDate: Type.String({ format: 'date-time' }),
    lastUpdateDate: Type.String({
      format: 'date-time',
      description: 'The last write (create or update); sandbox listings are deleted 90 days after it',
    }),
  },
  { description: 'The last accepted apiRequest plus the service-side members' },
);
export type Listing = Static<typeof Listing>;

/** The 200 of GET /listings/{externalListingId}: the spec refuses additional properties in it. */
export const ListingResponse = object({ listing: Listing });
