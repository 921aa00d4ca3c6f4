/*
 * Paged lists as async iterables. Each API pages its own way (classifieds: nextToken; listing
 * import: nextPageToken, null at the end; lead search: links.next; subscriptions:
 * metadata.nextToken); each list gives a function that reads one page after a cursor, and this
 * walks them, one page at a time, only as far as the caller iterates.
 */

export interface Page<T, C> {
  items: T[];
  /** Where the next page starts; undefined on the last page. */
  next: C | undefined;
}

export class Paged<T, C = string> implements AsyncIterable<T> {
  constructor(private readonly readPage: (cursor: C | undefined) => Promise<Page<T, C>>) {}

  /** The pages one by one, as the API answers them. */
  async *pages(): AsyncGenerator<Page<T, C>, void, undefined> {
    let cursor: C | undefined;
    do {
      const page = await this.readPage(cursor);
      yield page;
      cursor = page.next;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item of every page, in order. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
