/**
 * Ordered read-ahead: loads the next few items of a stream at once and hands them back in
 * their order. Each file read is several operations that wait on Deno's I/O threads (lstat,
 * open, read, close); one file at a time, a search waits on each in turn.
 *
 * @module
 */

/**
 * Yields each item of `source` with what `load` gave for it, in `source`'s order, with up to
 * `depth` loads running at once. Stops starting loads when the consumer stops (a `break`):
 * the loads already running finish on their own.
 *
 * @param source The items, in order.
 * @param depth How many loads may run at once (at least 1).
 * @param load Loads one item (map failures to a value: a rejection ends the iteration with it).
 * @returns The items with their loads, in order.
 *
 * @example Loads overlap, results keep their order
 * ```ts
 * import { readAhead } from "./read_ahead.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
 * const out: string[] = [];
 * for await (const [name, size] of readAhead(["a", "bb", "ccc"], 2, async (name) => {
 *   await wait(10 - name.length * 3);
 *   return name.length;
 * })) out.push(`${name}:${size}`);
 * deepEqual(out, ["a:1", "bb:2", "ccc:3"]);
 * ```
 */
export async function* readAhead<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  depth: number,
  load: (item: T) => Promise<R>,
): AsyncGenerator<[T, R]> {
  const pending: [T, Promise<R>][] = [];
  for await (const item of source) {
    const loading = load(item);
    // Loads left running after a break are never awaited: a rejection must not go unhandled.
    loading.catch(() => {});
    pending.push([item, loading]);
    if (pending.length >= depth) {
      const [first, loading] = pending.shift()!;
      yield [first, await loading];
    }
  }
  while (pending.length > 0) {
    const [first, loading] = pending.shift()!;
    yield [first, await loading];
  }
}
