/*
 * What the listing import API's OpenAPI document says besides its schemas: the prose of each
 * operation, its tags and scopes.
 */
import type { ApiDocs } from '../../platform/http/openapiDocs.js';
import { EVENTS_TAG, eventFeedDocs } from '../../platform/events/routes.js';
import { MAX_MEDIA_BYTES, MEDIA_CONTENT_TYPES, UPLOAD_URL_SECONDS } from './model/media.js';
import { MAX_UNFINISHED_IMPORTS } from './openimmo/intake.js';
import { DEFAULT_OPENIMMO_LIMITS } from './openimmo/limits.js';

const OPENIMMO_BODY_MIB = DEFAULT_OPENIMMO_LIMITS.maxBodyBytes / 1024 / 1024;

export const listingDocs: ApiDocs = {
  description:
    'Listings are the properties an agency publishes on the portal for the German market. A write is checked at once, ' +
    'format and the 21 business rules of the contract, and refused whole with every reason named, or stored. Media files ' +
    'go up first through a presigned URL (`POST /medias`), then a listing names them. A listing is addressed by your own ' +
    'identifier, the `offererEstateId` it was created with (`externalListingId`). Sandbox listings are deleted 90 days ' +
    'after their last write and never appear on the website.',
  tags: [
    { name: 'Listings', description: 'Create, read, replace and delete listings.' },
    { name: 'Media', description: 'Upload the files that listings show.' },
    {
      name: 'OpenImmo',
      description: 'Feed listings as the OpenImmo ZIP or XML your CRM exports already (immogate extension): see docs/openimmo.md.',
    },
    { name: 'Health', description: 'Whether the service can take requests.' },
    EVENTS_TAG,
  ],
  scopes: {
    'clim:*': 'Every operation of the listing import API',
    'clim:listings:*': 'Every listing operation',
    'clim:medias:*': 'Every media operation',
    'clim:listings:create': 'Create listings',
    'clim:listings:read': 'List and read listings',
    'clim:listings:update': 'Replace listings',
    'clim:listings:delete': 'Delete listings',
    'clim:medias:create': 'Request upload URLs for media files',
  },
  operations: {
    listListingEvents: eventFeedDocs('clim'),
    validateListing: {
      tags: ['Listings'],
      summary: 'Validate a listing without storing it (immogate extension)',
      description:
        'Checks a listing as `POST /listings` would and stores nothing: the format, the 21 business rules, an ' +
        '`offererEstateId` already in use and media not uploaded. `valid` is true when a POST would be answered 201; ' +
        '`warnings` are what it would warn of. At most 60 a minute per client and environment by default (VALIDATIONS_PER_MINUTE ' +
        'of the server), the console’s calls included; beyond, 429 with Retry-After.',
      responses: { '200': 'The report: errors and warnings.' },
    },
    createListing: {
      tags: ['Listings'],
      summary: 'Create a listing',
      description:
        'Checks the body (unknown members are refused at every level) and the business rules; a refusal names each failure ' +
        'in `errors`, with its field and reason (a business rule by its number). A stored listing is answered with its listingId, your ' +
        'externalListingId, warnings that did not block it, and its URL in `Location`. A second creation with the same ' +
        '`offererEstateId` is a 400. With `metadata.isPublished` false the listing is stored but not published. Project ' +
        'listings are not supported.',
      responses: { '201': 'Stored (the contract calls this answer Created; accept any 2xx).' },
    },
    getListings: {
      tags: ['Listings'],
      summary: 'List your listings',
      description:
        "The externalListingIds of the agency's listings, oldest first, a page at a time. Send the `nextPageToken` of an answer " +
        'to get the next page; it is null on the last one.',
      responses: { '200': 'A page of externalListingIds.' },
    },
    getListing: {
      tags: ['Listings'],
      summary: 'Read a listing',
      description:
        "The listing as last written, with its listingId, whether it is published, and its dates. Another agency's listing, or " +
        "the other environment's, is a 404.",
      responses: { '200': 'The listing.' },
    },
    updateListing: {
      tags: ['Listings'],
      summary: 'Replace a listing',
      description:
        'Sends the whole listing again: the same checks as a creation, and neither `estateType` (rule 11) nor the ' +
        '`offererEstateId` may change.',
      responses: { '202': 'Stored.' },
    },
    deleteListing: {
      tags: ['Listings'],
      summary: 'Delete a listing',
      description: 'Removes the listing; the media only it used are deleted later.',
      responses: { '202': 'Deleted.' },
    },
    createMedia: {
      tags: ['Media'],
      summary: 'Get an upload URL for a media file',
      description:
        `Answers a presigned URL: PUT the file's bytes there within ${UPLOAD_URL_SECONDS} seconds, once, at most ` +
        `${MAX_MEDIA_BYTES / 1024 / 1024} MiB, with the Content-Type of the file name's extension ` +
        `(${Object.keys(MEDIA_CONTENT_TYPES).join(', ')}). Then name \`externalMediaId\` in a listing's media. A file no ` +
        'listing uses is deleted a while after its URL expired.',
      responses: { '201': 'The upload URL.' },
    },
    createOpenImmoImport: {
      tags: ['OpenImmo'],
      summary: 'Import an OpenImmo transfer (immogate extension)',
      description:
        'Takes an OpenImmo file as a CRM exports it: a ZIP holding one XML and the files its attachments name ' +
        '(`application/zip`), or the XML alone (`application/xml`). Answered 202 once the file is stored; a worker then ' +
        'applies each `immobilie` as a listing of the agency, keyed by `verwaltung_techn/objektnr_extern` (its externalListingId), ' +
        'checked by the same schema and 21 rules as `POST /listings`: one refused object does not stop the others. ' +
        '`aktion aktionart="DELETE"` deletes; a VOLL transfer also deletes the listings of that provider it no longer names. ' +
        `At most ${OPENIMMO_BODY_MIB} MiB (413 beyond), and ${MAX_UNFINISHED_IMPORTS} imports of an agency still processing (429 beyond). ` +
        'Follow the self link for the outcome of each object.',
      requestBody: {
        required: true,
        content: {
          'application/zip': { schema: { type: 'string', format: 'binary' } },
          'application/xml': { schema: { type: 'string', format: 'binary' } },
        },
      },
      responses: { '202': 'Stored: the import runs; GET its self link.' },
    },
    getOpenImmoImport: {
      tags: ['OpenImmo'],
      summary: 'Read an OpenImmo import (immogate extension)',
      description:
        'PROCESSING until every object is applied, then DONE with one outcome per `immobilie` (created, updated, unchanged, ' +
        'deleted or refused, with the errors that refused it and the warnings of what the listing model has no place for, ' +
        'each naming the element of the file), or FAILED with the problem of a file refused as a whole.',
      responses: { '200': 'The import.' },
    },
    listOpenImmoImports: {
      tags: ['OpenImmo'],
      summary: 'List OpenImmo imports (immogate extension)',
      description: "The agency's imports in this environment, newest first, 20 a page.",
      responses: { '200': 'A page of imports.' },
    },
    getHealth: {
      tags: ['Health'],
      summary: 'Check the service',
      description: 'PASS with each component when the service and its database answer, FAIL with 503 otherwise. Needs no token.',
      responses: { '200': 'Every component passes.', '503': 'A component fails.' },
    },
  },
};
