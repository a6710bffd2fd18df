/**
 * Paged endpoints, read with `for await`. Each endpoint's page is mapped to `{ items, next }` (pass
 * `next` back as the cursor) and the one end-of-pages rule is: a page whose `next` is null is the
 * last. Each endpoint's adapter says when that is: POST /v1/links/subscriptions answers `next: null`
 * on its last page; POST /v1/payments/list answers `next_before_block: null` once it reached the
 * deployment's first block (an empty page before that only covered blocks without payments, so the
 * paging goes on); POST /v1/events' `next` is a resume cursor that stays set, so its adapter ends
 * on the empty page that follows the last events (one more call, and nothing to get wrong).
 */

/** One page as {@link paginate} reads it. */
export interface Page<T, Cursor = string> {
  items: readonly T[];
  next: Cursor | null;
}

/**
 * Every item of a paged endpoint, in the endpoint's order, one page at a time (the next page is
 * asked for only once the previous one's items were consumed, so a `break` stops the calls).
 * `start` starts from a cursor you kept.
 *
 * @example
 * for await (const s of paginate((after) => api.linkSubscriptions({ manage_token, after }).then((p) => ({ items: p.subscriptions, next: p.next })))) …
 */
export async function* paginate<T, Cursor = string>(
  readPage: (cursor: Cursor | undefined) => Promise<Page<T, Cursor>>,
  start?: Cursor,
): AsyncGenerator<T, void, undefined> {
  let cursor = start;
  for (;;) {
    const page = await readPage(cursor);
    yield* page.items;
    if (page.next === null) return;
    cursor = page.next;
  }
}
