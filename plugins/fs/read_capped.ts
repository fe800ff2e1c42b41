/**
 * Reading a file for a search, bounded: never more than the cap, however much it grew.
 *
 * @module
 */

/**
 * Reads at most `max` bytes of a regular file, or `undefined` when it is larger (it grew
 * since its size was checked) or cannot be read. Never reads past `max + 1` bytes. The
 * buffer starts at the size `lstat` gave and grows only if the file did: a buffer of `max`
 * for every file cost ~1 ms a file in zeroing alone.
 *
 * @param path The file.
 * @param size Its size when it was checked (`lstat`).
 * @param max The most bytes to accept.
 * @returns Its bytes, or `undefined`.
 *
 * @example A file that grew since its size was checked is read whole
 * ```ts
 * import { readCapped } from "./read_capped.ts";
 * import { equal } from "node:assert/strict";
 *
 * const path = Deno.makeTempFileSync();
 * Deno.writeTextFileSync(path, "x".repeat(100));
 * equal((await readCapped(path, 10, 1000))?.length, 100);
 * equal(await readCapped(path, 10, 50), undefined);
 * ```
 */
export async function readCapped(
  path: string,
  size: number,
  max: number,
): Promise<Uint8Array | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch {
    return undefined;
  }
  try {
    let buffer = new Uint8Array(Math.min(size, max) + 1);
    let length = 0;
    while (true) {
      if (length === buffer.length) {
        if (length > max) break; // max + 1 bytes read: too large
        const grown = new Uint8Array(Math.min(length * 2, max + 1));
        grown.set(buffer);
        buffer = grown;
      }
      const read = await file.read(buffer.subarray(length));
      if (read === null) break;
      length += read;
    }
    return length > max ? undefined : buffer.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}
