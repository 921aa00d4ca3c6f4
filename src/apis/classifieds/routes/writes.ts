import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../../platform/module.js';
import type { Classified } from '../model/classified.js';
import { createClassified, deleteClassified, updateClassified } from '../writes.js';
import {
  CLASSIFIED_SCHEMA_ID,
  SCOPES,
  acknowledgement,
  acknowledgementBody,
  classifiedIdParams,
  type ClassifiedIdParams,
} from './shared.js';
import { tenantOf } from '../../../platform/auth/guard.js';

const body = { $ref: `${CLASSIFIED_SCHEMA_ID}#` };

/** POST, PUT and DELETE: validate, hand to the write path, answer 202 once it committed. */
export async function writeRoutes(app: FastifyInstance, { pool }: ApiDependencies): Promise<void> {
  app.post<{ Body: Classified }>(
    '/classifieds',
    { config: { scope: SCOPES.createClassified }, schema: { body, response: { 202: acknowledgement } } },
    async (request, reply) => {
      const ack = await createClassified(pool, tenantOf(request), request.body, request.rawJson ?? undefined);
      return reply.code(202).header('etag', `"${ack.revision}"`).send(acknowledgementBody(ack.classifiedId));
    },
  );

  app.put<{ Body: Classified; Params: ClassifiedIdParams }>(
    '/classifieds/:classifiedId',
    {
      config: { scope: SCOPES.updateClassified },
      schema: {
        params: classifiedIdParams,
        headers: { type: 'object', properties: { 'if-match': { type: 'string' } } },
        body,
        response: { 202: acknowledgement },
      },
    },
    async (request, reply) => {
      const ack = await updateClassified(
        pool,
        tenantOf(request),
        request.params.classifiedId,
        request.body,
        request.headers['if-match'],
        request.rawJson ?? undefined,
      );
      return reply.code(202).header('etag', `"${ack.revision}"`).send(acknowledgementBody(ack.classifiedId));
    },
  );

  app.delete<{ Params: ClassifiedIdParams }>(
    '/classifieds/:classifiedId',
    { config: { scope: SCOPES.deleteClassified }, schema: { params: classifiedIdParams, response: { 202: acknowledgement } } },
    async (request, reply) => {
      const ack = await deleteClassified(pool, tenantOf(request), request.params.classifiedId);
      return reply.code(202).header('etag', `"${ack.revision}"`).send(acknowledgementBody(ack.classifiedId));
    },
  );
}
