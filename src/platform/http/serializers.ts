/*
 * Fastify's response serializers (fast-json-stringify), compiled once per distinct schema instead
 * of once per route and status: each API's routes are registered once per environment and share
 * their answers' schemas (problems above all), and compiling a serializer is the dearest part of
 * a start after the validators. A serializer is a pure function of the value it writes.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { digest, loadGenerated } from './generated.js';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

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

/**
 * Where the build writes serializers as fast-json-stringify standalone code, one module per key
 * (scripts/precompile.ts): compiling them was the dearest part of a start once the
 * validators were generated too. A key not found there is compiled as before.
 */
export const SERIALIZERS_DIR = 'serializers';

/** The file name of the serializer of `key`, in SERIALIZERS_DIR of the generated directory. */
function generatedFile(key: string): string {
  return `${digest(key)}.cjs`;
}

export interface SerializerOptions {
  /** Load what the build generated (true unless the build itself is generating it). */
  precompiled?: boolean;
  /** The build's: each serializer's standalone code, as a file name (under the generated directory) and its text. */
  record?: (fileName: string, code: string) => void;
  /** Told of each serializer compiled here rather than loaded (a test checks that a start compiles none). */
  compiled?: () => void;
}

/** A compilers factory for Fastify's schemaController: the default one behind a cache by content. */
export function cachingSerializerFactory(options: SerializerOptions = {}): Factory {
  const build = SerializerSelector();
  const cache = new Map<string, Serializer>();
  const { precompiled = true, record, compiled } = options;
  return (externalSchemas, serializerOptions) => {
    const compile = build(externalSchemas, serializerOptions);
    // Standalone code is what the same options give with mode 'standalone': a module exporting the function.
    const generate = record ? build(externalSchemas, { ...serializerOptions, mode: 'standalone' }) : undefined;
    const context = `${fingerprintOf(externalSchemas)}\u0000${JSON.stringify(serializerOptions ?? {})}`;
    return (route) => {
      const key = `${context}\u0000${digest(JSON.stringify(route.schema))}`;
      let serialize = cache.get(key);
      if (serialize === undefined) {
        serialize = precompiled ? loadGenerated<Serializer>(`${SERIALIZERS_DIR}/${generatedFile(key)}`) : undefined;
        if (serialize === undefined) {
          serialize = compile(route);
          compiled?.();
        }
        if (generate && record) record(generatedFile(key), generate(route) as unknown as string);
        cache.set(key, serialize);
      }
      return serialize;
    };
  };
}
