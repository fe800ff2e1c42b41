/**
 * Where to cut a string so that no character is cut in half.
 *
 * @module
 */

/**
 * How many of `text`'s UTF-16 code units to keep when at most `max` may be kept: `max`, or
 * one fewer where the cut would fall between the halves of a surrogate pair (half a
 * character is not text); all of it when it is no longer than `max`.
 *
 * @param text The text to cut.
 * @param max The most code units to keep.
 * @returns How many to keep.
 *
 * @example An emoji (two code units) is kept whole or not at all
 * ```ts
 * import { wholeCharacters } from "./whole_characters.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(wholeCharacters("ab😀c", 3), 2);
 * equal(wholeCharacters("ab😀c", 4), 4);
 * equal(wholeCharacters("ab", 3), 2);
 * ```
 */
export function wholeCharacters(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const last = text.charCodeAt(max - 1);
  return last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
}
