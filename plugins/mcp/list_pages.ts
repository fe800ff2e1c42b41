/**
 * An MCP listing followed page by page, bounded: a server may list only so many items, of only
 * so many characters, in only so many pages, within one deadline for the whole listing, so one sending cursors
 * forever, or slowly, cannot hold the host.
 *
 * @module
 */

import { settledWithin } from "../../sdk/sleep.ts";

/** The most tools a server may list (a sandboxed plugin's manifest has the same bound): each becomes a tool the model is sent on every call. */
export const MAX_LISTED_TOOLS = 1000;
/** The most resources, resource templates or prompts a server may list. */
export const MAX_LISTED_ITEMS = 10_000;
/**
 * The most characters a listing's items may take together, as JSON: a server listed 60 tools
 * with a 9 MB description each (one page each), and 200 such pages ran the host out of memory.
 */
const MAX_LISTING_CHARS = 16_000_000;
/** The most pages a listing may take. */
const MAX_LIST_PAGES = 1000;

/** The JSON-RPC code of a request that timed out (the SDK's `ErrorCode.RequestTimeout`). */
const REQUEST_TIMEOUT = -32001;

/** One page of a listing: its items and the cursor of the next page, if any. */
export interface ListPage<T> {
  /** The page's items. */
  items: T[];
  /** The next page's cursor; none on the last page. */
  next?: string;
}

/**
 * Every page of a listing, in order.
 *
 * @param what What is listed, plural, for errors (`tools`).
 * @param server The server's name, for errors.
 * @param most How many items it may list in all.
 * @param page Gets one page: the cursor's params (none for the first page), and the ms left
 * before the deadline, which bounds the page's request. A page not done by the deadline (its
 * request, or what it waited for before, such as a connection) is not waited for.
 * @param withinMs How long the whole listing may take (default no bound).
 * @param since When the deadline started (a `performance.now()` time, default now): earlier
 * for a listing whose time started before it was asked for.
 * @returns Every item.
 * @throws {Error} `Cannot list the <what> of MCP server "<server>": it lists more than
 * <most>` (or `it lists more than 16000000 characters` when the items' JSON passes
 * {@linkcode MAX_LISTING_CHARS}, or `it sent more than 1000 pages`, or `it did not list them all within <ms> ms`
 * when a page was not done by the deadline), and whatever `page` throws.
 *
 * @example A listing of two pages
 * ```ts
 * import { listPages } from "./list_pages.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const pages = [{ items: [1, 2], next: "b" }, { items: [3] }];
 * deepEqual(await listPages("numbers", "s", 10, (params) => Promise.resolve(pages[params ? 1 : 0])), [1, 2, 3]);
 * ```
 *
 * @example A listing past its deadline
 * ```ts
 * import { listPages } from "./list_pages.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const slow = () => new Promise<{ items: number[]; next: string }>((resolve) =>
 *   setTimeout(() => resolve({ items: [1], next: "again" }), 20)
 * ); // a page that times out rejects with `code: -32001` instead
 * await rejects(listPages("numbers", "s", 10, slow, 50), {
 *   message: 'Cannot list the numbers of MCP server "s": it did not list them all within 50 ms',
 * });
 * ```
 *
 * @example A page that never ends, in a listing whose time started 40 ms ago
 * ```ts
 * import { listPages } from "./list_pages.ts";
 * import { ok, rejects } from "node:assert/strict";
 *
 * const never = () => new Promise<{ items: number[] }>(() => {});
 * const started = performance.now();
 * await rejects(listPages("numbers", "s", 10, never, 50, started - 40), {
 *   message: 'Cannot list the numbers of MCP server "s": it did not list them all within 50 ms',
 * });
 * ok(performance.now() - started < 40);
 * ```
 */
export async function listPages<T>(
  what: string,
  server: string,
  most: number,
  page: (params: { cursor: string } | undefined, leftMs: number) => Promise<ListPage<T>>,
  withinMs = Infinity,
  since: number = performance.now(),
): Promise<T[]> {
  const refuse = (why: string) =>
    new Error(`Cannot list the ${what} of MCP server "${server}": it ${why}`);
  const deadline = since + withinMs;
  const late = () => refuse(`did not list them all within ${withinMs} ms`);
  const items: T[] = [];
  let chars = 0;
  let cursor: string | undefined;
  for (let pages = 1;; pages++) {
    if (pages > MAX_LIST_PAGES) throw refuse(`sent more than ${MAX_LIST_PAGES} pages`);
    const leftMs = deadline - performance.now();
    if (leftMs <= 0) throw late();
    const asked = page(cursor === undefined ? undefined : { cursor }, leftMs);
    if (!(await settledWithin(asked, leftMs))) throw late();
    let result: ListPage<T>;
    try {
      result = await asked;
    } catch (error) {
      // The page's request timed out at the deadline.
      const code = (error as { code?: unknown } | undefined)?.code;
      if (code === REQUEST_TIMEOUT && performance.now() >= deadline) throw late();
      throw error;
    }
    if (items.length + result.items.length > most) throw refuse(`lists more than ${most}`);
    chars += JSON.stringify(result.items).length;
    if (chars > MAX_LISTING_CHARS) throw refuse(`lists more than ${MAX_LISTING_CHARS} characters`);
    items.push(...result.items);
    cursor = result.next;
    if (cursor === undefined) return items;
  }
}
