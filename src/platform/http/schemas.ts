/*
 * Schema builders for what TypeBox writes or types otherwise than our documents and Ajv need: an
 * enum of strings as `{ type: 'string', enum }` (TypeBox's unions of literals would change the
 * documents and Ajv's messages), OpenAPI 3.0's `nullable`, query members Ajv fills with their
 * default, and answers sent as JSON text already at hand. Each keeps the schema as written and the
 * type TypeBox derives (Static) exact.
 */
import Type, { type Static, type TObject, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

/** A string that must be one of `values`: `{ type: 'string', enum: values }`, typed as their union. */
export function stringEnum<const T extends readonly string[]>(values: T, options: TSchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `schema` or null, written as OpenAPI 3.0 does (`nullable: true`). */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/**
 * A query string's schema as it stands, typed with its `defaulted` members present: Ajv fills a
 * missing member that has a `default` before the handler runs (useDefaults, outside the body), so
 * the schema keeps it optional for clients and the handler always has it. Each must have a default.
 */
export function withDefaults<T extends TObject, K extends keyof Static<T> & string>(
  schema: T,
  ...defaulted: K[]
): TUnsafe<Static<T> & Required<Pick<Static<T>, K>>> {
  for (const key of defaulted) {
    const member = schema.properties[key];
    if (member === undefined || !('default' in member)) throw new Error(`${key} has no default: a client may leave it out`);
  }
  return Type.Unsafe<Static<T> & Required<Pick<Static<T>, K>>>(schema);
}

/**
 * An answer a route sends as JSON text it holds already (a document as the database wrote it):
 * Fastify sends a string with a JSON content type as it is. The schema documents the JSON; the
 * type, a string, is what the handler hands to reply.send.
 */
export function jsonText(schema: TSchema): TUnsafe<string> {
  return Type.Unsafe<string>(schema);
}

/** How many members an open object takes beyond those it names, and how long their names may be. */
export const OPEN_MEMBER_LIMITS = { members: 100, nameLength: 256 } as const;

/**
 * The options that keep an open object (one that accepts and ignores members its contract does not
 * name) open within bounds: `named` members plus OPEN_MEMBER_LIMITS.members others, names bounded.
 * Their values are bounded by the body limit and the JSON reader's depth limit.
 */
export function openMembers(named: number): { maxProperties: number; propertyNames: { maxLength: number } } {
  return { maxProperties: named + OPEN_MEMBER_LIMITS.members, propertyNames: { maxLength: OPEN_MEMBER_LIMITS.nameLength } };
}

/**
 * Reasons said in words for patterns a client cannot be expected to read (a list of extensions
 * spelled in every letter case); every other pattern is quoted.
 */
export const PATTERN_REASONS = new Map<string, string>();

/** `pattern`, whose refusal will say `reason` (without its full stop) instead of quoting it. */
export function explainedPattern(pattern: string, reason: string): string {
  PATTERN_REASONS.set(pattern, reason);
  return pattern;
}
