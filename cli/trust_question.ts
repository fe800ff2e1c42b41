/**
 * The terminal question `Trust this tack.jsonc? [y/N]`: one key answers it, `y` is yes and
 * every other key (Enter, `n`, Ctrl-C, Ctrl-D, Escape) is no. Keys typed before the question
 * was shown are dropped, so type-ahead cannot answer it.
 *
 * @module
 */

import { freshTerminalKeys, type Key } from "../plugins/confirm/key_select.ts";

/** The question's text, as shown before the answer. */
const TRUST_QUESTION = "Trust this tack.jsonc? [y/N] ";

/**
 * Whether a key answers the question with yes: `y` or `Y`, without Ctrl.
 *
 * @param key The key pressed.
 * @returns `true` for yes.
 *
 * @example
 * ```ts
 * import { isYes } from "./trust_question.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isYes({ name: "y", sequence: "y" }), true);
 * equal(isYes({ name: "return", sequence: "\r" }), false);
 * equal(isYes({ name: "c", ctrl: true, sequence: "\x03" }), false);
 * ```
 */
export function isYes(key: Key): boolean {
  return !key.ctrl && (key.sequence === "y" || key.sequence === "Y");
}

/**
 * Asks {@linkcode TRUST_QUESTION} on the terminal (stdin in raw mode for one key) and echoes
 * the answer.
 *
 * @param write Where the question goes (stderr).
 * @returns `true` when the user pressed `y`.
 *
 * @example On a terminal (tested through tmux: tests/cli/workspace_trust_pty_test.ts)
 * ```ts ignore
 * import { askTrust } from "./trust_question.ts";
 *
 * const write = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text));
 * if (await askTrust(write)) console.log("trusted");
 * ```
 */
export async function askTrust(write: (text: string) => void): Promise<boolean> {
  const keys = await freshTerminalKeys();
  try {
    write(TRUST_QUESTION);
    const { value, done } = await keys.next();
    const yes = !done && isYes(value);
    write(yes ? "y\n" : "n\n");
    return yes;
  } finally {
    await keys.return();
  }
}
