/**
 * A server's words cut to a size: a tool's description and title are sent to the model with
 * every call, and a server once listed 60 tools with a 9 MB description each.
 *
 * @module
 */

import { wholeCharacters } from "../../sdk/whole_characters.ts";

/** The longest description of a tool, resource or prompt kept whole, in characters. */
export const MAX_DESCRIPTION_CHARS = 4000;
/** The longest title (a tool's label, a resource's or prompt's name) kept whole, in characters. */
export const MAX_TITLE_CHARS = 200;

/**
 * `text` when it has at most `maxChars` characters; else its first `maxChars` (not splitting a
 * surrogate pair), then a note saying how many characters were cut.
 *
 * @param text A server's text.
 * @param maxChars How much of it to keep.
 * @returns The text, cut if needed.
 *
 * @example A long description
 * ```ts
 * import { clipText } from "./clip_text.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(clipText("short", 10), "short");
 * equal(clipText("x".repeat(25), 10), "xxxxxxxxxx […15 more characters cut]");
 * ```
 */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const kept = wholeCharacters(text, maxChars);
  return `${text.slice(0, kept)} […${text.length - kept} more characters cut]`;
}
