/**
 * How many values a JSON line from a sandbox would make, before it is parsed: a 16 MB line of
 * `{},{},…` is 5.6 million objects, ~375 MB of the host's heap and seconds of its event loop,
 * where a 16 MB string is one value.
 *
 * @module
 */

/** The most values a message from a sandbox may hold (counted by {@linkcode jsonValuesOver}). */
export const MAX_MESSAGE_VALUES = 200_000;

/**
 * Whether a JSON text holds more than `limit` values, counted from its commas and opening
 * brackets outside strings (a container's first value is not counted, so the count is at least
 * half the values; a string of any length is one). Linear, one pass, stops past the limit.
 *
 * @param bytes The UTF-8 text.
 * @param limit The most values.
 * @returns Whether it holds more.
 *
 * @example An array of empty objects, and one long string
 * ```ts
 * import { jsonValuesOver } from "./json_values.ts";
 * import { equal } from "node:assert/strict";
 *
 * const encode = (text: string) => new TextEncoder().encode(text);
 * equal(jsonValuesOver(encode("[" + "{},".repeat(99) + "{}]"), 100), true);
 * equal(jsonValuesOver(encode(JSON.stringify(",[{".repeat(1000))), 100), false);
 * ```
 */
export function jsonValuesOver(bytes: Uint8Array, limit: number): boolean {
  let count = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c) i++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x2c || byte === 0x7b || byte === 0x5b) {
      if (++count > limit) return true;
    }
  }
  return false;
}
