import type { FastifyInstance } from 'fastify';
import { entityTags } from '../../../platform/http/etags.js';
import type { ApiDependencies } from '../../../platform/module.js';
import { MAX_PAGE_SIZE, listClassifieds, listStatuses, readClassified, type Page } from '../reads.js';
import { MEDIA_STATUSES, PORTALS, STAGES, STATUSES } from '../statuses.js';
import { BOUND_MARK, BOUND_NOTE } from '../model/bounds.js';
import { CLASSIFIED_SCHEMA_ID, SCOPES, classifiedIdParams, type ClassifiedIdParams } from './shared.js';
import { tenantOf } from '../../../platform/auth/guard.js';

// No maximum, as in the contract: a larger limit is served a page of MAX_PAGE_SIZE.
const limit = {
  type: 'integer',
  minimum: 1,
  default: MAX_PAGE_SIZE,
  description: `At most ${MAX_PAGE_SIZE} items come in a page whatever is asked; nextToken continues`,
} as const;
const nextToken = { type: 'string', description: 'The nextToken of the previous page' } as const;

const etag = { type: 'string', pattern: '^"[0-9]+"$', description: 'The revision, quoted: grows with every acknowledged write' } as const;

const classifiedItem = {
  allOf: [
    { $ref: `${CLASSIFIED_SCHEMA_ID}#` },
    { type: 'object', required: ['classifiedId'], properties: { classifiedId: { type: 'string', format: 'uuid' } } },
  ],
};

const statusItem = {
  type: 'object',
  required: ['statusId', 'classifiedId', 'customerId', 'creationDate', 'revision', 'portals', 'status', 'message', 'statusDate', 'stage'],
  properties: {
    statusId: { type: 'string', format: 'uuid' },
    classifiedId: { type: 'string', format: 'uuid' },
    customerId: { type: 'string' },
    creationDate: { type: 'string', format: 'date-time', description: 'When the write of this revision was received' },
    revision: { type: 'integer', minimum: 1 },
    portals: { type: 'array', items: { type: 'string', enum: [...PORTALS] } },
    status: { type: 'string', enum: [...STATUSES] },
    subStatus: { type: 'string' },
    subStatusDetails: { type: 'string' },
    message: { type: 'string' },
    statusDate: { type: 'string', format: 'date-time' },
    mediaStatuses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url', 'status'],
        properties: {
          url: { type: 'string' },
          status: { type: 'string', enum: [...MEDIA_STATUSES] },
          reason: {
            type: 'string',
            description:
              'immogate extension: why a failed media could not be used (DNS, address policy, timeout, HTTP status, content type, size)',
            'x-immogate-extension': true,
          },
        },
      },
    },
    stage: { type: 'string', enum: [...STAGES], description: 'immogate extension: the lifecycle stage of the status' },
  },
} as const;

function pageSchema(item: object): object {
  return { type: 'object', required: ['items'], properties: { items: { type: 'array', items: item }, nextToken: { type: 'string' } } };
}

// The classified responses are spliced from the stored JSON (see reads.ts): their schemas document
// the routes, and this serialiser keeps fast-json-stringify from compiling the thousand-field tree.
const documentedOnly = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

interface ListQuerystring {
  limit: number;
  nextToken?: string;
  offererEstateId?: string;
}

interface StatusesQuerystring {
  limit: number;
  nextToken?: string;
  filter?: 'latest';
  status?: string[];
  portal?: string[];
}

/** GET /classifieds, GET /classifieds/{id}, GET /classifieds/{id}/statuses. */
export async function readRoutes(app: FastifyInstance, { pool }: ApiDependencies): Promise<void> {
  app.get<{ Querystring: ListQuerystring }>(
    '/classifieds',
    {
      config: { scope: SCOPES.getClassifieds },
      ...documentedOnly,
      schema: {
        querystring: {
          type: 'object',
          properties: { limit, nextToken, offererEstateId: { type: 'string', minLength: 1 } },
        },
        response: { 200: pageSchema(classifiedItem) },
      },
    },
    async (request, reply) => {
      const page = await listClassifieds(pool, tenantOf(request), request.query);
      const next = page.nextToken === undefined ? '' : `,"nextToken":${JSON.stringify(page.nextToken)}`;
      return reply.type('application/json; charset=utf-8').send(`{"items":[${page.items.join(',')}]${next}}`);
    },
  );

  app.get<{ Params: ClassifiedIdParams; Headers: { 'if-none-match'?: string } }>(
    '/classifieds/:classifiedId',
    {
      config: { scope: SCOPES.GetClassified },
      ...documentedOnly,
      schema: {
        params: classifiedIdParams,
        headers: { type: 'object', properties: { 'if-none-match': { type: 'string' } } },
        response: {
          200: { ...classifiedItem, description: 'The classified', headers: { ETag: etag } },
          304: { type: 'null', description: 'Not modified: If-None-Match names the current ETag', headers: { ETag: etag } },
        },
      },
    },
    async (request, reply) => {
      const result = await readClassified(
        pool,
        tenantOf(request),
        request.params.classifiedId,
        entityTags(request.headers['if-none-match']),
      );
      reply.header('etag', `"${result.revision}"`);
      if (result.notModified) return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(result.item);
    },
  );

  app.get<{ Params: ClassifiedIdParams; Querystring: StatusesQuerystring }>(
    '/classifieds/:classifiedId/statuses',
    {
      config: { scope: SCOPES.getClassifiedStatuses },
      schema: {
        params: classifiedIdParams,
        querystring: {
          type: 'object',
          properties: {
            filter: { type: 'string', enum: ['latest'], description: 'latest: only the statuses of the latest revision (the last write)' },
            // Repeated at most as often as there are values.
            status: { type: 'array', maxItems: STATUSES.length, [BOUND_MARK]: BOUND_NOTE, items: { type: 'string', enum: [...STATUSES] } },
            portal: {
              type: 'array',
              maxItems: PORTALS.length,
              [BOUND_MARK]: BOUND_NOTE,
              items: { type: 'string', enum: [...PORTALS] },
              description: 'Statuses whose portals include one of these',
            },
            limit,
            nextToken,
          },
        },
        response: { 200: pageSchema(statusItem) },
      },
    },
    async (request): Promise<Page<unknown>> => {
      const { limit: size, nextToken: token, filter, status, portal } = request.query;
      return listStatuses(pool, tenantOf(request), request.params.classifiedId, {
        limit: size,
        nextToken: token,
        latest: filter === 'latest',
        statuses: status,
        portals: portal,
      });
    },
  );
}
