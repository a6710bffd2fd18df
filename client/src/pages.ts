/**
 * Paged endpoints, read with `for await`. Every paged answer has a list and `next` (pass it back as
 * `after`); the one end-of-pages rule: a page whose `next` is null, or which holds nothing, is the
 * last. (POST /v1/links/subscriptions answers `next: null` on its last page; POST /v1/events' `next`
 * is a resume cursor that stays set, so its end is the empty page that follows the last events: one
 * more call, and nothing to get wrong.)
 */

/** One page as {@link paginate} reads it. */
export interface Page<T> {
  items: readonly T[];
  next: string | null;
}

/**
 * Every item of a paged endpoint, oldest first, one page at a time (the next page is asked for only
 * once the previous one's items were consumed). `after` starts after a cursor you kept.
 *
 * @example
 * for await (const s of paginate((after) => api.linkSubscriptions({ manage_token, after }).then((p) => ({ items: p.subscriptions, next: p.next })))) …
 */
export async function* paginate<T>(readPage: (after: string | undefined) => Promise<Page<T>>, after?: string): AsyncGenerator<T, void, undefined> {
  let cursor = after;
  for (;;) {
    const page = await readPage(cursor);
    yield* page.items;
    if (page.next === null || page.items.length === 0) return;
    cursor = page.next;
  }
}
