/**
 * The question the CLI asks before a tool the policy marks as needing confirmation: the
 * whole request (see `approval_text.ts`), then Yes / No / Always with `y`/`n`/`a`.
 *
 * @module
 */

import { dirname, join, relative, resolve } from "node:path";
import type { ConfirmAnswer, ConfirmRequest } from "../plugins/confirm/mod.ts";
import { approvalText } from "./approval_text.ts";
import { makePrivateDir, refuseLinksBelow, writePrivateText } from "../sdk/private_files.ts";
import { writeAllSync } from "../sdk/write_all_sync.ts";
import {
  type Choice,
  freshTerminalKeys,
  keySelect,
  type TerminalKeys,
} from "../plugins/confirm/key_select.ts";

export type { ConfirmAnswer, ConfirmRequest };

/**
 * The choices for a request, in the order they are shown: "No" first, where the cursor
 * starts, so a stray Enter runs nothing and one Down is "Yes", never "Always".
 *
 * @param request The request (its `always` says what "always" covers).
 * @returns The choices, each with its answer and letter.
 *
 * @example
 * ```ts
 * import { confirmChoices } from "./ask.ts";
 * import { equal } from "node:assert/strict";
 *
 * const choices = confirmChoices({ toolName: "bash", args: {}, reason: "", toolCallId: "c", always: "exactly this bash command" });
 * equal(choices[0].label, "No, block it");
 * equal(choices[2].label, "Always allow exactly this bash command, this session");
 * ```
 */
export function confirmChoices(
  request: ConfirmRequest,
): (Choice & { answer: ConfirmAnswer })[] {
  return [
    { label: "No, block it", key: "n", answer: "no" },
    { label: "Yes, run it", key: "y", answer: "yes" },
    {
      label: `Always allow ${
        request.always ?? `${request.toolName} calls like this`
      }, this session`,
      key: "a",
      answer: "always",
    },
  ];
}

/** What {@linkcode createTerminalAsk} needs around the question. */
export interface AskHooks {
  /** Called before the question (hide the spinner). */
  before(): void;
  /** Called after it (show the spinner again). */
  after(): void;
  /** Called when the user pressed Ctrl-C at the question: abort the run. */
  cancelled(): void;
  /** Where the question is written (default: stderr). */
  write?: (text: string) => void;
  /** Picks a choice (default: the terminal's keys); `undefined` means Ctrl-C. */
  select?: (choices: readonly Choice[]) => Promise<number | undefined>;
  /** Columns and rows of the terminal (default: stderr's size, or 100 × 40). */
  size?: () => { columns: number; rows: number };
  /** Whether to use ANSI colours. */
  color?: boolean;
  /** A tool's declared effects, shown in the question. */
  effectsOf?: (toolName: string) => readonly string[] | undefined;
  /** The folder relative paths of `write` resolve from, and where `.tack/approvals/` goes. */
  cwd?: string;
}

function writeStderr(text: string): void {
  writeAllSync(Deno.stderr, text);
}

function terminalSize(): { columns: number; rows: number } {
  try {
    return Deno.consoleSize();
  } catch {
    return { columns: 100, rows: 40 };
  }
}

function readOld(cwd: string, path: unknown): string | undefined {
  if (typeof path !== "string") return undefined;
  try {
    return Deno.readTextFileSync(resolve(cwd, path));
  } catch {
    return undefined;
  }
}

/**
 * An `ask` function for the confirm plugin that asks on the terminal. The question shows
 * the whole request; what does not fit the screen is saved to
 * `.tack/approvals/<call id>.txt` and the question names that file. Ctrl-C at the
 * question answers "no" and aborts the run.
 *
 * @param hooks What to do around the question, and how to draw and read it.
 * @returns The `ask` function.
 *
 * @example Answering with a scripted selection
 * ```ts
 * import { createTerminalAsk } from "./ask.ts";
 * import { equal } from "node:assert/strict";
 *
 * const ask = createTerminalAsk({
 *   before() {}, after() {}, cancelled() {}, write() {},
 *   select: () => Promise.resolve(2),
 * });
 * equal(await ask({ toolName: "write", args: {}, reason: "", toolCallId: "c" }), "always");
 * ```
 */
export function createTerminalAsk(
  hooks: AskHooks,
): (request: ConfirmRequest) => Promise<ConfirmAnswer> {
  const write = hooks.write ?? writeStderr;
  const color = hooks.color ?? false;
  const cwd = hooks.cwd ?? Deno.cwd();
  return async function askOnTerminal(request) {
    hooks.before();
    let keys: TerminalKeys | undefined;
    try {
      // Keys typed during the run must not answer a question they came before.
      keys = hooks.select ? undefined : await freshTerminalKeys();
      const select = hooks.select ??
        ((choices) => keySelect({ choices, write, color, keys }));
      const size = (hooks.size ?? terminalSize)();
      const choices = confirmChoices(request);
      const text = approvalText(request, {
        width: size.columns,
        maxLines: Math.max(8, size.rows - 12),
        color,
        effects: hooks.effectsOf?.(request.toolName),
        oldText: request.toolName === "write" ? readOld(cwd, request.args.path) : undefined,
      });
      const lines = [...text.lines];
      if (text.overflow !== undefined) {
        const name = `${request.toolCallId.replace(/[^A-Za-z0-9_-]/g, "_")}.txt`;
        const file = join(cwd, ".tack", "approvals", name);
        try {
          refuseLinksBelow(cwd, file);
          makePrivateDir(dirname(file));
          writePrivateText(file, text.overflow);
          lines.push(`The whole request is in ${relative(cwd, file)}: read it before you answer.`);
        } catch (error) {
          // Nowhere to save it: show everything rather than hide any of it.
          lines.splice(0, lines.length, ...text.overflow.trimEnd().split("\n"));
          lines.push(`(could not save it to a file: ${(error as Error).message})`);
        }
      }
      write(lines.join("\n") + "\n");
      const index = await select(choices);
      if (index === undefined) {
        hooks.cancelled();
        return "no";
      }
      return choices[index]?.answer ?? "no";
    } finally {
      await keys?.return();
      hooks.after();
    }
  };
}
