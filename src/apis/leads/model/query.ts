/*
 * Query strings with defaults. Ajv fills a missing member that has a `default` before the handler
 * runs (useDefaults, outside the body), so a member a client may leave out is always there for
 * the handler: the schema keeps it optional, the type the handler sees has it.
 */
import Type, { type Static, type TObject, type TUnsafe } from 'typebox';

/** `schema` as it stands, typed with its `defaulted` members present; each must have a default. */
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
