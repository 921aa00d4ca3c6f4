/*
 * The operator's client management over HTTP (under /admin, and the console's operator pages):
 * the same services as `immogate clients ...`, and the token report the sandbox review reads.
 */
import Type from 'typebox';
import { ALL_SCOPES, ENVIRONMENTS } from '../catalogue.js';
import type { Pool } from '../db/pool.js';
import { decodeToken, encodeToken, TOKEN_MAX_LENGTH } from '../http/cursors.js';
import { badRequest, notFound } from '../http/problems.js';
import { nullable, stringEnum, withDefaults } from '../http/schemas.js';
import type { ApiApp } from '../http/apiApp.js';
import {
  ClientInputError,
  createClient,
  DEFAULT_CLIENT_ENVIRONMENTS,
  DEFAULT_CLIENT_SCOPES,
  disableClient,
  issuanceReport,
  listClientsPage,
  rotateSecret,
  setEnvironments,
  type Client as StoredClient,
} from './clients.js';

/** The report's defaults, as `immogate clients report` has them. */
export const REPORT_DAYS = 7;
export const REPORT_THRESHOLD = 5;

const dateTime = Type.String({ format: 'date-time' });
const environments = Type.Array(stringEnum(ENVIRONMENTS), { minItems: 1, maxItems: ENVIRONMENTS.length, uniqueItems: true });

export const Client = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  intermediaries: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  environments: Type.Array(stringEnum(ENVIRONMENTS)),
  createdAt: dateTime,
  secretRotatedAt: nullable(dateTime),
  disabledAt: nullable(dateTime),
});

export const ClientWithSecret = Type.Object({
  client: Client,
  clientSecret: Type.String({ description: 'Shown once: only its hash is kept' }),
});

const ClientQuery = withDefaults(
  Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
      cursor: Type.Optional(Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'nextCursor of the previous page' })),
    },
    { additionalProperties: false },
  ),
  'limit',
);

const CreateClient = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    intermediaries: Type.Array(Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' }), {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
    }),
    scopes: Type.Optional(
      Type.Array(stringEnum(ALL_SCOPES), {
        minItems: 1,
        maxItems: ALL_SCOPES.length,
        uniqueItems: true,
        default: [...DEFAULT_CLIENT_SCOPES],
      }),
    ),
    environments: Type.Optional({ ...environments, default: [...DEFAULT_CLIENT_ENVIRONMENTS] }),
  },
  { additionalProperties: false },
);

const RotateSecret = Type.Object(
  {
    revokeTokens: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Also refuse every token the client was issued before (within 10 seconds); its console sessions end either way',
      }),
    ),
  },
  { additionalProperties: false },
);

const ClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

const ReportQuery = withDefaults(
  Type.Object(
    {
      days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: REPORT_DAYS })),
      threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: REPORT_THRESHOLD })),
    },
    { additionalProperties: false },
  ),
  'days',
  'threshold',
);

export const ReportRow = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  day: Type.String({ format: 'date' }),
  tokens: Type.Integer(),
  targets: Type.Integer({ description: 'Audience and intermediary pairs tokens were issued for' }),
  maxPerTarget: Type.Integer({ description: 'Most tokens issued for one pair that day' }),
  reusesTokens: Type.Boolean({ description: 'false: more than the threshold for one pair in a day' }),
  failedAuthentications: Type.Integer(),
});

export const Report = Type.Object({ days: Type.Integer(), threshold: Type.Integer(), rows: Type.Array(ReportRow) });

function found<T>(clientId: string, value: T | undefined): T {
  if (value === undefined) throw notFound(`No client ${clientId}`);
  return value;
}

function withSecret(result: { client: StoredClient; secret: string }) {
  return { client: result.client, clientSecret: result.secret };
}

export async function clientAdminRoutes(app: ApiApp, { pool }: { pool: Pool }): Promise<void> {
  app.get(
    '/clients',
    {
      schema: {
        querystring: ClientQuery,
        response: { 200: Type.Object({ items: Type.Array(Client), nextCursor: Type.Optional(Type.String()) }) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeToken(cursor);
      if (cursor !== undefined && after === undefined)
        throw badRequest([{ name: 'cursor', reason: 'is not a cursor of this list' }], 'requestParameter');
      const { clients, more } = await listClientsPage(pool, limit, after);
      const last = clients.at(-1);
      return more && last ? { items: clients, nextCursor: encodeToken(last.clientId) } : { items: clients };
    },
  );
  app.post('/clients', { schema: { body: CreateClient, response: { 201: ClientWithSecret } } }, async (request, reply) => {
    // Bodies get no defaults filled in (Ajv leaves bodies as sent): the schema's defaults, applied here.
    const { name, intermediaries, scopes = [...DEFAULT_CLIENT_SCOPES], environments = [...DEFAULT_CLIENT_ENVIRONMENTS] } = request.body;
    try {
      const created = await createClient(pool, { name, intermediaries, scopes, environments });
      return reply.code(201).send(withSecret(created));
    } catch (error) {
      // The schema checks what the service does; a rule added to the service alone still answers 400.
      if (error instanceof ClientInputError) throw badRequest([{ name: '', reason: error.message }], 'body');
      throw error;
    }
  });
  app.post(
    '/clients/:clientId/secret',
    {
      schema: { params: ClientParams, body: RotateSecret, response: { 200: ClientWithSecret } },
      // The body is optional (a rotation without it keeps the tokens): none is an empty object.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const revokeTokens = request.body.revokeTokens === true;
      return withSecret(found(request.params.clientId, await rotateSecret(pool, request.params.clientId, { revokeTokens })));
    },
  );
  app.post('/clients/:clientId/disable', { schema: { params: ClientParams, response: { 200: Client } } }, async (request) =>
    found(request.params.clientId, await disableClient(pool, request.params.clientId)),
  );
  app.put(
    '/clients/:clientId/environments',
    {
      schema: {
        params: ClientParams,
        body: Type.Object({ environments }, { additionalProperties: false }),
        response: { 200: Client },
      },
    },
    async (request) => found(request.params.clientId, await setEnvironments(pool, request.params.clientId, request.body.environments)),
  );
  app.get('/tokens/report', { schema: { querystring: ReportQuery, response: { 200: Report } } }, async (request) => {
    const { days, threshold } = request.query;
    return { days, threshold, rows: await issuanceReport(pool, days, threshold) };
  });
}
