/*
 * Keyset pages, newest first: a page ends at the `seq` of its last item and the next one starts
 * below it. A seq is drawn when a row is inserted and never changes, so rows added while a client
 * pages through get higher numbers than the ones it has still to read: they never appear in later
 * pages, and nothing is skipped or repeated. (One insert whose transaction had drawn its seq
 * before a page was read and committed only after it may still show on a later page: it is then
 * listed once, not lost.)
 */
import { decodeSeqToken, encodeSeqToken } from '../../../platform/http/cursors.js';
import { badRequest } from '../../../platform/http/problems.js';
import { MAX_PAGE_SIZE } from '../model/pages.js';
import type { PageRow } from '../repository.js';

// Keyset tokens (platform/http/cursors.ts) of kind c (classifieds), s (statuses), u (the console's
// summaries) or r (revisions, by revision number): one list's token is refused by the others.
// Anything else is a clean 400.
const CURSOR_KINDS = { classifieds: 'c', statuses: 's', summaries: 'u', revisions: 'r' } as const;
type CursorKind = keyof typeof CURSOR_KINDS;

export function encodeCursor(kind: CursorKind, seq: number): string {
  return encodeSeqToken(CURSOR_KINDS[kind], seq);
}

/** The seq a token continues below; none without a token. `parameter` names it in the 400 of a garbled one. */
export function decodeCursor(kind: CursorKind, token: string | undefined, parameter = 'nextToken'): number | undefined {
  if (token === undefined) return undefined;
  const seq = decodeSeqToken(CURSOR_KINDS[kind], token);
  if (seq === undefined)
    throw badRequest([{ name: parameter, reason: `is not a ${parameter} this endpoint returned.` }], 'requestParameter');
  return seq;
}

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/**
 * The contract's `limit` has no maximum; a page holds at most MAX_PAGE_SIZE (its documented
 * default, which the route's schema fills in) whatever is asked, and nextToken continues.
 */
export function pageSize(limit: number): number {
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** A page of `size` items from `size + 1` rows: the extra row only tells whether another page follows. */
export function pageOf<T>(rows: readonly PageRow<T>[], size: number, kind: CursorKind): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  const page = items.map((row) => row.item);
  return rows.length > size && last ? { items: page, nextToken: encodeCursor(kind, last.seq) } : { items: page };
}
