/**
 * Writing everything, synchronously: a `writeSync` may take fewer bytes than it was given
 * (a pipe, a terminal), so it is called until all are taken.
 *
 * @module
 */

/**
 * Writes all of `data` to `target`, however many `writeSync` calls that takes.
 *
 * @param target A file, `Deno.stdout`, `Deno.stderr`, or anything with `writeSync`.
 * @param data Text (written as UTF-8) or bytes.
 *
 * @example A target that takes three bytes at a time
 * ```ts
 * import { writeAllSync } from "./write_all_sync.ts";
 * import { equal } from "node:assert/strict";
 *
 * const chunks: string[] = [];
 * writeAllSync({
 *   writeSync: (bytes) => (chunks.push(new TextDecoder().decode(bytes.subarray(0, 3))), Math.min(3, bytes.length)),
 * }, "abcdefg");
 * equal(chunks.join(""), "abcdefg");
 * ```
 */
export function writeAllSync(
  target: { writeSync(bytes: Uint8Array): number },
  data: string | Uint8Array,
): void {
  let bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  while (bytes.length > 0) bytes = bytes.subarray(target.writeSync(bytes));
}
