/*
 * Pages of the classifieds API: the `limit` and `nextToken` parameters of the lists and the page
 * they answer. Pages are keyset pages, newest first (services/pages.ts).
 */
import Type, { type TSchema } from 'typebox';
import { TOKEN_MAX_LENGTH } from '../../../platform/http/cursors.js';

export const MAX_PAGE_SIZE = 250;

// No maximum, as in the contract: a larger limit is served a page of MAX_PAGE_SIZE. The queries
// that use it are typed withDefaults: Ajv fills the default in, so a handler always has a limit.
export const Limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    default: MAX_PAGE_SIZE,
    description: `At most ${MAX_PAGE_SIZE} items come in a page whatever is asked; nextToken continues`,
  }),
);

export const NextToken = Type.Optional(Type.String({ maxLength: TOKEN_MAX_LENGTH, description: 'The nextToken of the previous page' }));

/** A page of `item`s; nextToken, when there, asks for the next one. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), nextToken: Type.Optional(Type.String()) });
}
