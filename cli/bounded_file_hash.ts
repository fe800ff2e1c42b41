/**
 * The hash workspace trust records for a file a trusted config loads (a plugin file, a module
 * it imports): the SHA-256 of at most 64 MiB read through its path, never of a device or a
 * FIFO; a file past the bound, or not a regular file, has a marker instead of a hash and is
 * never the file that was trusted.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** The most of a file that is read to hash it (no module is that large). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/**
 * What a file past {@linkcode MAX_HASHED_BYTES} is recorded as: it has no hash, so it is never
 * the file that was trusted (every start asks again).
 *
 * @example
 * ```ts
 * import { TOO_LARGE_TO_HASH } from "./bounded_file_hash.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(TOO_LARGE_TO_HASH, "over 67108864 bytes, not hashed");
 * ```
 */
export const TOO_LARGE_TO_HASH = `over ${MAX_HASHED_BYTES} bytes, not hashed`;

/**
 * What a path that is not a regular file (a link to a device, a FIFO: `/dev/stdin` imports
 * whatever is piped in) is recorded as: never the file that was trusted.
 */
const NOT_A_FILE = "not a regular file, not hashed";

/**
 * Whether a recorded hash is a marker that no file is trusted as
 * ({@linkcode TOO_LARGE_TO_HASH}, or not a regular file).
 *
 * @param hash A value {@linkcode boundedHash} returned.
 * @returns `true` for a marker.
 *
 * @example
 * ```ts
 * import { isUnhashed, TOO_LARGE_TO_HASH } from "./bounded_file_hash.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isUnhashed(TOO_LARGE_TO_HASH), true);
 * equal(isUnhashed("missing"), false);
 * ```
 */
export function isUnhashed(hash: string): boolean {
  return hash === TOO_LARGE_TO_HASH || hash === NOT_A_FILE;
}

/**
 * The SHA-256 of a file read in chunks, or {@linkcode TOO_LARGE_TO_HASH} once more than
 * {@linkcode MAX_HASHED_BYTES} came (counted as read: a `/proc` file says it has 0 bytes and
 * never ends). Read synchronously: a trusted start hashes every module its plugins import, and
 * a readable stream per file cost three times as much (~0.13 ms a file against ~0.04).
 */
function boundedSha256(path: string): string {
  const hash = createHash("sha256");
  using file = Deno.openSync(path);
  const buffer = new Uint8Array(64 * 1024);
  let read = 0;
  while (true) {
    const count = file.readSync(buffer);
    if (count === null) return hash.digest("hex");
    read += count;
    if (read > MAX_HASHED_BYTES) return TOO_LARGE_TO_HASH;
    hash.update(buffer.subarray(0, count));
  }
}

/**
 * A file's hash as trust records it: the SHA-256 in hex, a marker ({@linkcode isUnhashed}),
 * or `"missing"` (not there, or not readable: importing it fails too; if it appears, that is a
 * change). Synchronous: a trusted start hashes every module its plugins import, and each
 * `await` added to the cost.
 *
 * @param path The file, as it is imported (it is read through that path).
 * @returns Its hash.
 *
 * @example
 * ```ts
 * import { boundedHash } from "./bounded_file_hash.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(boundedHash("/nowhere.ts"), "missing");
 * equal(boundedHash("/dev/null"), "not a regular file, not hashed");
 * ```
 */
export function boundedHash(path: string): string {
  try {
    // Read through the path, as the import reads it: Deno may grant a link in the project and
    // not the file it points to, which the import still reads.
    // The path is the untrusted file's choice: a device or a FIFO (/dev/zero) is not read.
    if (!Deno.statSync(path).isFile) return NOT_A_FILE;
    // Its size is not its hash: a large one would change unseen; it is never trusted instead.
    return boundedSha256(path);
  } catch {
    return "missing";
  }
}

/**
 * A file's real path and its hash ({@linkcode boundedHash}); a file that is not there (or
 * not readable) is `"missing"` under the path it was given.
 *
 * @param path The file, as it is imported (it is read through that path).
 * @returns Its real path (the path itself when missing) and its hash.
 *
 * @example
 * ```ts
 * import { boundedFileHash } from "./bounded_file_hash.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await boundedFileHash("/nowhere.ts"), ["/nowhere.ts", "missing"]);
 * ```
 */
export async function boundedFileHash(path: string): Promise<[string, string]> {
  try {
    return [await Deno.realPath(path), boundedHash(path)];
  } catch {
    return [path, "missing"];
  }
}
