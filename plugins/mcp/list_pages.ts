/**
 * An MCP listing followed page by page, bounded: a server may list only so many items, in
 * only so many pages, so one sending cursors forever cannot hold the host.
 *
 * @module
 */

/** The most tools a server may list (a sandboxed plugin's manifest has the same bound): each becomes a tool the model is sent on every call. */
export const MAX_LISTED_TOOLS = 1000;
/** The most resources, resource templates or prompts a server may list. */
export const MAX_LISTED_ITEMS = 10_000;
/** The most pages a listing may take. */
export const MAX_LIST_PAGES = 1000;

/** One page of a listing: its items and the cursor of the next page, if any. */
export interface ListPage<T> {
  items: T[];
  next?: string;
}

/**
 * Every page of a listing, in order.
 *
 * @param what What is listed, plural, for errors (`tools`).
 * @param server The server's name, for errors.
 * @param most How many items it may list in all.
 * @param page Gets one page: the cursor's params, none for the first page.
 * @returns Every item.
 * @throws {Error} `Cannot list the <what> of MCP server "<server>": it lists more than
 * <most>` (or `it sent more than 1000 pages`), and whatever `page` throws.
 *
 * @example A listing of two pages
 * ```ts
 * import { listPages } from "./list_pages.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const pages = [{ items: [1, 2], next: "b" }, { items: [3] }];
 * deepEqual(await listPages("numbers", "s", 10, (params) => Promise.resolve(pages[params ? 1 : 0])), [1, 2, 3]);
 * ```
 */
export async function listPages<T>(
  what: string,
  server: string,
  most: number,
  page: (params: { cursor: string } | undefined) => Promise<ListPage<T>>,
): Promise<T[]> {
  const refuse = (why: string) =>
    new Error(`Cannot list the ${what} of MCP server "${server}": it ${why}`);
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1;; pages++) {
    if (pages > MAX_LIST_PAGES) throw refuse(`sent more than ${MAX_LIST_PAGES} pages`);
    const result = await page(cursor === undefined ? undefined : { cursor });
    if (items.length + result.items.length > most) throw refuse(`lists more than ${most}`);
    items.push(...result.items);
    cursor = result.next;
    if (cursor === undefined) return items;
  }
}
