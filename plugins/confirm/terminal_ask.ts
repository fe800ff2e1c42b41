/**
 * The terminal prompt `confirm` uses when a person is at the keyboard (keys through node:readline).
 *
 * @module
 */

import process from "node:process";
import type { AskFunction, ConfirmAnswer, ConfirmRequest } from "./confirm_types.ts";
import { freshTerminalKeys, keySelect } from "./key_select.ts";
import { visibleLine } from "./visible_text.ts";

/**
 * How a request reads in the prompt: the tool, why, its arguments as JSON (whole: a cut
 * could hide the part that matters), and a shell command's parts no allow rule approves.
 *
 * @param request What is asked.
 * @returns The prompt's message.
 *
 * @example
 * ```ts
 * import { formatConfirmRequest } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   formatConfirmRequest({ toolName: "bash", args: { command: "ls" }, reason: "bash has effect exec", toolCallId: "c1" }),
 *   'Run bash? (bash has effect exec)\n{"command":"ls"}',
 * );
 * ```
 */
export function formatConfirmRequest(request: ConfirmRequest): string {
  // Every part as a person must see it: a command's escapes cannot repaint the question.
  const text = `Run ${visibleLine(request.toolName)}? (${visibleLine(request.reason)})\n${
    visibleLine(JSON.stringify(request.args) ?? String(request.args))
  }`;
  const flagged = request.flagged ?? [];
  return flagged.length > 1
    ? `${text}\nParts no rule approves:\n${
      flagged.map((part) => `! ${visibleLine(part)}`).join("\n")
    }`
    : text;
}

/**
 * Asks in the terminal: the request (see `formatConfirmRequest`), then "Yes" (`y`), "No"
 * (`n`), "Always" (`a`), or arrows and Enter; every key counts, even two in one read.
 * Ctrl+C answers "no".
 *
 * @param request What is asked.
 * @returns The answer.
 *
 * @example Only where a terminal is attached
 * ```ts
 * import { terminalAsk } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof terminalAsk, "function");
 * ```
 */
export async function terminalAsk(request: ConfirmRequest): Promise<ConfirmAnswer> {
  const write = (text: string) => void process.stderr.write(text);
  // Keys typed during the run must not answer a question they came before.
  const keys = await freshTerminalKeys();
  write(formatConfirmRequest(request) + "\n");
  const index = await keySelect({
    keys,
    // "No" first, where the cursor starts: a stray Enter runs nothing, one Down is "Yes".
    choices: [
      { label: "No", key: "n" },
      { label: "Yes", key: "y" },
      { label: `Always allow ${request.always ?? `${request.toolName} this session`}`, key: "a" },
    ],
    write,
  });
  return index === 1 ? "yes" : index === 2 ? "always" : "no";
}

/**
 * `terminalAsk` when stdin and stderr are terminals, else `undefined` (so `confirm`
 * falls back to `whenNonInteractive` and CI never waits for a keypress).
 *
 * @returns The ask function, or `undefined`.
 *
 * @example
 * ```ts
 * import { interactiveAsk } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * equal(interactiveAsk() === undefined, !Deno.stdin.isTerminal() || !Deno.stderr.isTerminal());
 * ```
 */
export function interactiveAsk(): AskFunction | undefined {
  return Deno.stdin.isTerminal() && Deno.stderr.isTerminal() ? terminalAsk : undefined;
}
