/**
 * How many columns text takes on a terminal, counted generously.
 *
 * @module
 */

// Characters a terminal draws two columns wide: East Asian wide and fullwidth forms (the
// supplementary ones too: Tangut, Khitan, Nushu, the Kana supplements), and emoji. Generous
// on purpose: a character counted wide that is not only wraps a line early, while one
// counted narrow that is not makes a question take more rows than it thinks, and what
// scrolls off the top is its head and the command's start.
const WIDE =
  /[\u1100-\u115f\u231a-\u23ff\u25fd-\u27bf\u2b00-\u2bff\u2e80-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{1b2ff}\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/u;

/**
 * The columns one character takes on a terminal at most: two for a wide one, eight for a
 * tab (to the next tab stop).
 *
 * @param char One character (a code point).
 * @returns 1, 2 or 8.
 *
 * @example
 * ```ts
 * import { columnsOf } from "./screen_columns.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(columnsOf("a"), 1);
 * equal(columnsOf("中"), 2);
 * equal(columnsOf("\t"), 8);
 * ```
 */
export function columnsOf(char: string): number {
  return char === "\t" ? 8 : WIDE.test(char) ? 2 : 1;
}

/**
 * The columns a text takes on a terminal, at most (see {@linkcode columnsOf}).
 *
 * @param text One line of text.
 * @returns Its columns.
 *
 * @example
 * ```ts
 * import { columnsOfText } from "./screen_columns.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(columnsOfText("rm 中文"), 7);
 * ```
 */
export function columnsOfText(text: string): number {
  let columns = 0;
  for (const char of text) columns += columnsOf(char);
  return columns;
}
