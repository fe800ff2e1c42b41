/**
 * The question the CLI asks before a tool the policy marks as needing confirmation,
 * with dax's `$.maybeSelect` on the terminal.
 *
 * @module
 */

import { $ } from "@david/dax";
import type { ConfirmAnswer, ConfirmRequest } from "../plugins/confirm/mod.ts";
import { formatArgs } from "./render.ts";

export type { ConfirmAnswer, ConfirmRequest };

/** The choices, in the order they are shown. */
export const CONFIRM_CHOICES: readonly { label: string; answer: ConfirmAnswer }[] = [
  { label: "Yes, run it", answer: "yes" },
  { label: "No, block it", answer: "no" },
  { label: "Always allow this tool in this session", answer: "always" },
];

/** What {@linkcode createTerminalAsk} needs around the question. */
export interface AskHooks {
  /** Called before the question (hide the spinner). */
  before(): void;
  /** Called after it (show the spinner again). */
  after(): void;
  /** Called when the user pressed Ctrl-C at the question: abort the run. */
  cancelled(): void;
  /** Shows a single choice (default: dax's `$.maybeSelect`); `undefined` means Ctrl-C. */
  select?: (options: { message: string; options: string[] }) => Promise<number | undefined>;
}

/**
 * The question text for a request.
 *
 * @param request What the confirm plugin asks about.
 * @returns One line: the tool, its arguments, and why it needs a yes.
 *
 * @example The question for a shell command
 * ```ts
 * import { confirmQuestion } from "./ask.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   confirmQuestion({ toolName: "shell", args: { command: "ls" }, reason: "runs commands", toolCallId: "c" }),
 *   "Run shell command=ls? (runs commands)",
 * );
 * ```
 */
export function confirmQuestion(request: ConfirmRequest): string {
  const args = formatArgs(request.args);
  return `Run ${request.toolName}${args ? ` ${args}` : ""}?${
    request.reason ? ` (${request.reason})` : ""
  }`;
}

/**
 * An `ask` function for the confirm plugin that asks on the terminal. Ctrl-C at the
 * question answers "no" and aborts the run.
 *
 * @param hooks What to do around the question.
 * @returns The `ask` function.
 *
 * @example Answering with a scripted selection
 * ```ts
 * import { createTerminalAsk } from "./ask.ts";
 * import { equal } from "node:assert/strict";
 *
 * const ask = createTerminalAsk({
 *   before() {}, after() {}, cancelled() {},
 *   select: () => Promise.resolve(2),
 * });
 * equal(await ask({ toolName: "write", args: {}, reason: "", toolCallId: "c" }), "always");
 * ```
 */
export function createTerminalAsk(
  hooks: AskHooks,
): (request: ConfirmRequest) => Promise<ConfirmAnswer> {
  const select = hooks.select ?? ((options) => $.maybeSelect(options));
  return async function askOnTerminal(request) {
    hooks.before();
    try {
      const index = await select({
        message: confirmQuestion(request),
        options: CONFIRM_CHOICES.map((choice) => choice.label),
      });
      if (index === undefined) {
        hooks.cancelled();
        return "no";
      }
      return CONFIRM_CHOICES[index]?.answer ?? "no";
    } finally {
      hooks.after();
    }
  };
}
