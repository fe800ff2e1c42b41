/**
 * Joining chunks of bytes into one array.
 *
 * @module
 */

/**
 * The chunks as one array (the only chunk itself, not a copy).
 *
 * @param parts The chunks, in order.
 * @param size Their total length.
 * @returns One array of `size` bytes.
 *
 * @example Two chunks
 * ```ts
 * import { joinBytes } from "./join_bytes.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(joinBytes([new Uint8Array([1, 2]), new Uint8Array([3])], 3), new Uint8Array([1, 2, 3]));
 * ```
 */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
