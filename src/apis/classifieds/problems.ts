import { notFound, type Problem } from '../../platform/http/problems.js';

/** An unknown classified, another offerer's, the other environment's or a deleted one: all the same 404. */
export function classifiedNotFound(id: string): Problem {
  return notFound(`No classified ${id}`);
}
