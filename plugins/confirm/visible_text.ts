/**
 * Text as a person must see it before approving it.
 *
 * @module
 */

/**
 * Text as a person must see it before approving it: each control character but newline and
 * tab shown as its Unicode picture (carriage return `␍`, escape `␛`), C1 controls and
 * bidirectional overrides as `�`, one character for one, so a command cannot erase, repaint
 * or reorder what is shown of it.
 *
 * @param text The text.
 * @returns The text with nothing a terminal would act on but newline and tab.
 *
 * @example A command that would clear the screen
 * ```ts
 * import { visible } from "./visible_text.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(visible("ls\x1b[2J\rrm"), "ls␛[2J␍rm");
 * ```
 */
export function visible(text: string): string {
  return text
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b-\x1f]/g, (c) => String.fromCharCode(0x2400 + c.charCodeAt(0)))
    .replace(/\x7f/g, "\u2421")
    .replace(/[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "\ufffd");
}

/**
 * {@linkcode visible} on one line: a newline shows as `␊` too, so a part cannot add a line
 * that looks like the prompt's own.
 *
 * @param text The text.
 * @returns One line.
 *
 * @example
 * ```ts
 * import { visibleLine } from "./visible_text.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(visibleLine("rm -rf d\nRun ls?"), "rm -rf d␊Run ls?");
 * ```
 */
export function visibleLine(text: string): string {
  return visible(text).replace(/\n/g, "\u240a");
}
