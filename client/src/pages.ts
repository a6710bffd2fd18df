/**
 * Paging, once for every listing endpoint: a page fetched by cursor (none for the first), the next
 * cursor read from each page, until a page names none. The iterators are lazy: a page is fetched
 * only when the previous one has been consumed, so a `break` stops the calls.
 */

/** Every page, from the first until `nextOf` gives null or undefined. */
export async function* eachPage<Page, Cursor>(
  fetchPage: (cursor: Cursor | undefined) => Promise<Page>,
  nextOf: (page: Page) => Cursor | null | undefined,
): AsyncGenerator<Page, void, undefined> {
  let cursor: Cursor | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const next = nextOf(page);
    if (next === null || next === undefined) return;
    cursor = next;
  }
}

/** Every item of every page, in order (an empty page is passed over, and the paging goes on). */
export async function* eachItem<Page, Item>(pages: AsyncIterable<Page>, itemsOf: (page: Page) => Iterable<Item>): AsyncGenerator<Item, void, undefined> {
  for await (const page of pages) yield* itemsOf(page);
}
