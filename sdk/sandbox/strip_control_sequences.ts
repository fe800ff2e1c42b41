/**
 * Makes a line from a sandbox safe to print on a terminal: no escape sequence (colours,
 * cursor moves, OSC 52 clipboard writes, window titles, hyperlinks), no control
 * character, no bidirectional override survives.
 *
 * @module
 */

// Whole sequences first, so their parameters do not linger as text: CSI (7- and 8-bit),
// OSC / DCS / SOS / PM / APC strings up to their terminator (or the end of the line),
// then any other escape. Every alternative starts with a distinct character and has one
// unbounded repetition, so matching is linear in the line's length.
const SEQUENCES =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;

// What is left that a terminal would act on: C0 controls but tab, DEL, C1 controls, and
// the bidirectional marks and overrides that reorder what a person sees.
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Removes escape sequences and control characters from one line of text. This is the
 * guarantee: the output holds no character below U+0020 but tab, no DEL, no C1 control
 * and no bidirectional control, whatever the input.
 *
 * @param line One line (without its newline).
 * @returns The line as plain text.
 *
 * @example A fake prompt painted over the screen, and a clipboard write
 * ```ts
 * import { stripControlSequences } from "./strip_control_sequences.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(stripControlSequences("\x1b[2K\x1b[1Gok? \x1b]52;c;cm0gLXJmIC8=\x07done\r"), "ok? done");
 * ```
 */
export function stripControlSequences(line: string): string {
  return line.replace(SEQUENCES, "").replace(CONTROLS, "");
}

/**
 * {@linkcode stripControlSequences} on each line of a text: its line breaks stay, nothing else
 * a terminal would act on does.
 *
 * @param text Text that may span lines.
 * @returns The text, safe to print.
 *
 * @example A warning naming a file whose name clears the screen
 * ```ts
 * import { printable } from "./strip_control_sequences.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(printable("reads /p/\x1bcfake\nnext"), "reads /p/fake\nnext");
 * ```
 */
export function printable(text: string): string {
  return text.split("\n").map(stripControlSequences).join("\n");
}
