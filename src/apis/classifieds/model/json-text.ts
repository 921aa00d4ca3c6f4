/*
 * Answers a route sends as JSON text it holds already (a classified as the database wrote it, the
 * JSON string "success"): Fastify sends a string with a JSON content type as it is. The schema
 * documents the JSON; the type, a string, is what the handler hands to reply.send.
 */
import Type, { type TSchema, type TUnsafe } from 'typebox';

export function jsonText(schema: TSchema): TUnsafe<string> {
  return Type.Unsafe<string>(schema);
}
