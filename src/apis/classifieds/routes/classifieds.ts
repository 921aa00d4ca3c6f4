/*
 * The classifieds: POST, PUT and DELETE (validated, handed to the write path, answered 202 once
 * it committed), GET /classifieds and GET /classifieds/{classifiedId}, and POST /classifieds/validate
 * (an extension: what a POST would meet, nothing written).
 */
import { tenantOf } from '../../../platform/auth/guard.js';
import { entityTags } from '../../../platform/http/etags.js';
import { byClient, perMinute } from '../../../platform/http/rateLimit.js';
import { validationProblem } from '../../../platform/http/validation.js';
import type { ApiApp, ApiDependencies } from '../../../platform/module.js';
import {
  type Acknowledgement,
  Acknowledgement as AcknowledgementSchema,
  ClassifiedBody,
  ClassifiedIdParams,
  ClassifiedPageText,
  ClassifiedText,
  ClassifiedsQuery,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  NotModified,
} from '../model/classified.js';
import { SCOPES } from '../model/scopes.js';
import { PROCESSING_STREAM } from '../jobs.js';
import { WEBHOOKS_STREAM } from '../../../platform/delivery/index.js';
import { ClassifiedValidation } from '../model/validation.js';
import { validateClassified } from '../services/validation.js';
import { createClassified, deleteClassified, listClassifieds, readClassified, updateClassified } from '../services/classifieds.js';

function acknowledgement(classifiedId: string): Acknowledgement {
  return { classifiedId, links: [{ statuses: `/classifieds/${classifiedId}/statuses` }] };
}

// The classified answers are spliced from the stored JSON (see services/classifieds.ts): their
// schemas document the routes, and this serialiser keeps fast-json-stringify from compiling the
// thousand-field tree.
const documentedOnly = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

/** What a write of a classified adds to: its processing, then its status webhooks (http/backlog.ts bounds both per agency). */
const CLASSIFIED_WORK = [PROCESSING_STREAM, WEBHOOKS_STREAM];
export async function classifiedRoutes(app: ApiApp, { pool, config }: ApiDependencies): Promise<void> {
  app.post(
    '/classifieds',
    {
      config: { scope: SCOPES.createClassified, addsWork: CLASSIFIED_WORK },
      schema: { operationId: 'createClassified', body: ClassifiedBody, response: { 202: AcknowledgementSchema } },
    },
    async (request, reply) => {
      const accepted = await createClassified(pool, tenantOf(request), request.body, request.rawJson ?? undefined);
      return reply.code(202).header('etag', `"${accepted.revision}"`).send(acknowledgement(accepted.classifiedId));
    },
  );

  app.put(
    '/classifieds/:classifiedId',
    {
      config: { scope: SCOPES.updateClassified, addsWork: CLASSIFIED_WORK },
      schema: {
        operationId: 'updateClassified',
        params: ClassifiedIdParams,
        headers: IfMatchHeaders,
        body: ClassifiedBody,
        response: { 202: AcknowledgementSchema },
      },
    },
    async (request, reply) => {
      const accepted = await updateClassified(
        pool,
        tenantOf(request),
        request.params.classifiedId,
        request.body,
        request.headers['if-match'],
        request.rawJson ?? undefined,
      );
      return reply.code(202).header('etag', `"${accepted.revision}"`).send(acknowledgement(accepted.classifiedId));
    },
  );

  app.delete(
    '/classifieds/:classifiedId',
    {
      config: { scope: SCOPES.deleteClassified, addsWork: CLASSIFIED_WORK },
      schema: { operationId: 'deleteClassified', params: ClassifiedIdParams, response: { 202: AcknowledgementSchema } },
    },
    async (request, reply) => {
      const accepted = await deleteClassified(pool, tenantOf(request), request.params.classifiedId);
      return reply.code(202).header('etag', `"${accepted.revision}"`).send(acknowledgement(accepted.classifiedId));
    },
  );

  app.get(
    '/classifieds',
    {
      config: { scope: SCOPES.getClassifieds },
      ...documentedOnly,
      schema: { operationId: 'getClassifieds', querystring: ClassifiedsQuery, response: { 200: ClassifiedPageText } },
    },
    async (request, reply) => {
      const page = await listClassifieds(pool, tenantOf(request), request.query);
      const next = page.nextToken === undefined ? '' : `,"nextToken":${JSON.stringify(page.nextToken)}`;
      return reply.type('application/json; charset=utf-8').send(`{"items":[${page.items.join(',')}]${next}}`);
    },
  );

  app.get(
    '/classifieds/:classifiedId',
    {
      config: { scope: SCOPES.GetClassified },
      ...documentedOnly,
      schema: {
        operationId: 'GetClassified',
        params: ClassifiedIdParams,
        headers: IfNoneMatchHeaders,
        response: { 200: ClassifiedText, 304: NotModified },
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

  // An extension: the checks of a POST and of processing, reported instead of applied (the
  // route's schema is the POST's, so attachValidation hands over what it found). It costs a write's
  // work without a write's value, so it has a budget per client.
  app.post(
    '/classifieds/validate',
    {
      config: {
        scope: SCOPES.createClassified,
        ...perMinute('caas-validate', config.rateLimits.validationsPerMinute, 'client', byClient),
      },
      attachValidation: true,
      schema: {
        operationId: 'validateClassified',
        'x-immogate-extension': true,
        body: ClassifiedBody,
        response: { 200: ClassifiedValidation },
      },
    },
    async (request) => {
      const found = request.validationError?.validation;
      const schemaErrors = found ? (validationProblem(found, 'body').extra.errors ?? []) : [];
      return validateClassified(pool, tenantOf(request), request.body, schemaErrors);
    },
  );
}
