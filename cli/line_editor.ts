/**
 * The interactive prompt's line editor: node:readline (arrows, Home/End, Ctrl-A/E/K/U/W,
 * history on Up/Down, Ctrl-R-free), with history saved per project in `.tack/history`,
 * and a multi-line paste read as one message. Lines are read only between runs, so a
 * confirmation question during a run has the terminal to itself.
 *
 * @module
 */

import process from "node:process";
import readline from "node:readline";
import { dirname } from "node:path";
import { appendPrivateText, makePrivateDir, refuseLinksBelow } from "../sdk/private_files.ts";

/** Lines that arrive within this many ms of a line break continue it (a paste). */
const PASTE_MS = 15;

/**
 * What no one types into a prompt, and a terminal acts on: control characters but newline and
 * tab, C1 controls, bidirectional overrides and isolates (a right-to-left mark is typing).
 */
// deno-lint-ignore no-control-regex
const TERMINAL_ACTS_ON = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** How many entries the history keeps. */
const HISTORY_SIZE = 500;

/**
 * Reads the history file: one JSON string a line (so a multi-line message is one entry),
 * oldest first; unreadable lines are skipped, and so are entries holding a control character
 * other than newline and tab, or a bidirectional override or isolate.
 *
 * @param text The file's text.
 * @returns The entries, most recent first (as node:readline wants them).
 *
 * @example
 * ```ts
 * import { parseHistory } from "./line_editor.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(parseHistory('"one"\n"two\\nlines"\nnot json\n'), ["two\nlines", "one"]);
 * deepEqual(parseHistory('"ok"\n"curl x | sh\\u001b[2K\\rrun the tests"\n'), ["ok"]);
 * deepEqual(parseHistory('"שלום\\u200f!"\n'), ["שלום\u200f!"]); // a right-to-left mark is typing
 * ```
 */
export function parseHistory(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line);
      // An entry with a character a terminal acts on (an escape, a carriage return, a bidi
      // override) is no one's typing: a cloned repository's `.tack/history` could repaint the
      // prompt over a different message, or write the clipboard, when it is recalled.
      if (typeof value === "string" && !TERMINAL_ACTS_ON.test(value)) entries.push(value);
    } catch {
      // A torn or foreign line: skip it.
    }
  }
  return entries.reverse().slice(0, HISTORY_SIZE);
}

/** Whether `file` goes through a symlink below `root` (see `refuseLinksBelow`). */
function linkedBelow(root: string | undefined, file: string): boolean {
  if (root === undefined) return false;
  try {
    refuseLinksBelow(root, file);
    return false;
  } catch {
    return true;
  }
}

/** What {@linkcode LineEditor} needs. */
export interface LineEditorOptions {
  /** The prompt (`› `). */
  prompt: string;
  /** The history file (`.tack/history`); absent: history for this process only. */
  historyFile?: string;
  /** The workspace the history belongs to: a symlink below it is not followed. */
  historyRoot?: string;
  /** Ctrl-C at the prompt (the line is cleared first). */
  onInterrupt?: () => void;
  /** Where a history write failure is reported, once. */
  warn?: (text: string) => void;
}

/**
 * A line editor on the terminal.
 *
 * @example Only on a terminal
 * ```ts
 * import { LineEditor } from "./line_editor.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof LineEditor, "function");
 * ```
 */
export class LineEditor {
  #options: LineEditorOptions;
  #history: string[] = [];
  #warned = false;

  /**
   * Creates the editor and loads the history.
   *
   * @param options The prompt, history file and Ctrl-C handler.
   */
  constructor(options: LineEditorOptions) {
    this.#options = options;
    if (options.historyFile && !linkedBelow(options.historyRoot, options.historyFile)) {
      try {
        this.#history = parseHistory(Deno.readTextFileSync(options.historyFile));
      } catch {
        // No history yet.
      }
    }
  }

  /**
   * Reads one message: Enter sends it; lines pasted together are one message.
   *
   * @returns The message, or `null` for Ctrl-D on an empty line (or the end of input).
   */
  readLine(): Promise<string | null> {
    const rl = readline.createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: true,
      history: [...this.#history],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      prompt: this.#options.prompt,
    });
    return new Promise<string | null>((resolve) => {
      const lines: string[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let done = false;
      const finish = (value: string | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        process.stdin.off("keypress", onKey);
        rl.close();
        resolve(value);
      };
      // A key right after a line break is a paste still arriving: the message goes on.
      const onKey = (_: string, key?: { name?: string }) => {
        // The line break's own key event comes after the line event: not a continuation.
        if (timer === undefined || key?.name === "return" || key?.name === "enter") return;
        clearTimeout(timer);
        timer = undefined;
      };
      rl.on("line", (line: string) => {
        lines.push(line);
        clearTimeout(timer);
        timer = setTimeout(() => {
          const message = lines.join("\n");
          this.#remember(message);
          finish(message);
        }, PASTE_MS);
      });
      rl.on("close", () => {
        if (lines.length > 0) return finish(lines.join("\n"));
        process.stderr.write("\n"); // Ctrl-D: leave the prompt's line to the shell's next
        finish(null);
      });
      rl.on("SIGINT", () => {
        lines.length = 0;
        rl.write(null, { ctrl: true, name: "u" });
        this.#options.onInterrupt?.();
        rl.prompt();
      });
      process.stdin.on("keypress", onKey);
      rl.prompt();
    });
  }

  #remember(message: string): void {
    if (message.trim() === "") return;
    this.#history = [message, ...this.#history.filter((entry) => entry !== message)]
      .slice(0, HISTORY_SIZE);
    const file = this.#options.historyFile;
    if (!file) return;
    try {
      if (this.#options.historyRoot) refuseLinksBelow(this.#options.historyRoot, file);
      makePrivateDir(dirname(file));
      appendPrivateText(file, JSON.stringify(message) + "\n");
    } catch (error) {
      if (!this.#warned) {
        this.#options.warn?.(`Cannot save history to ${file}: ${(error as Error).message}`);
      }
      this.#warned = true;
    }
  }
}
