/*
 * Fastify's response serializers (fast-json-stringify), compiled once per distinct schema instead
 * of once per route and status: each API's routes are registered once per environment and share
 * their answers' schemas (problems above all), and compiling a serializer is the dearest part of
 * a start after the validators. A serializer is a pure function of the value it writes.
 */
import { createHash } from 'node:crypto';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

/** A short key for a long text (the shared schemas hold the whole classified). */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The fingerprint of the shared schemas a factory resolves `$ref`s against (one per encapsulation context). */
const fingerprints = new WeakMap<object, string>();

function fingerprintOf(externalSchemas: unknown): string {
  if (typeof externalSchemas !== 'object' || externalSchemas === null) return '';
  let fingerprint = fingerprints.get(externalSchemas);
  if (fingerprint === undefined) {
    fingerprint = digest(JSON.stringify(externalSchemas));
    fingerprints.set(externalSchemas, fingerprint);
  }
  return fingerprint;
}

/** A compilers factory for Fastify's schemaController: the default one behind a cache by content. */
export function cachingSerializerFactory(): Factory {
  const build = SerializerSelector();
  const cache = new Map<string, Serializer>();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const context = `${fingerprintOf(externalSchemas)}\u0000${JSON.stringify(options ?? {})}`;
    return (route) => {
      const key = `${context}\u0000${digest(JSON.stringify(route.schema))}`;
      let serialize = cache.get(key);
      if (serialize === undefined) {
        serialize = compile(route);
        cache.set(key, serialize);
      }
      return serialize;
    };
  };
}
