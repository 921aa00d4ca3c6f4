/*
 * Schema builders for the two shapes the APIs' documents use and TypeBox writes differently: an
 * enum of strings as `{ type: 'string', enum }` (TypeBox's unions of literals would change the
 * documents and Ajv's messages), and the OpenAPI 3.0 `nullable` keyword Ajv reads. Both keep
 * the type TypeBox derives (Static) exact.
 */
import Type, { type Static, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

/** A string that must be one of `values`: `{ type: 'string', enum: values }`, typed as their union. */
export function stringEnum<const T extends readonly string[]>(values: T, options: TSchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `schema` or null, written as OpenAPI 3.0 does (`nullable: true`). */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}
