/**
 * The interactive session: read a line, run it, repeat, until `/exit` or end of input.
 * Lines are read only between runs, so a confirmation prompt during a run has the
 * terminal to itself.
 *
 * @module
 */

/**
 * Reads stdin one line at a time, reading only when asked.
 *
 * @example Lines from a byte source
 * ```ts
 * import { LineReader } from "./interactive.ts";
 * import { equal } from "node:assert/strict";
 *
 * const chunks = [new TextEncoder().encode("one\ntwo")];
 * const reader = new LineReader({
 *   read(buffer) {
 *     const chunk = chunks.shift();
 *     if (!chunk) return Promise.resolve(null);
 *     buffer.set(chunk);
 *     return Promise.resolve(chunk.length);
 *   },
 * });
 * equal(await reader.readLine(), "one");
 * equal(await reader.readLine(), "two");
 * equal(await reader.readLine(), null);
 * ```
 */
export class LineReader {
  #source: { read(buffer: Uint8Array): Promise<number | null> };
  #decoder = new TextDecoder();
  #pending = "";
  #ended = false;

  /**
   * Creates a reader.
   *
   * @param source Where bytes come from (default `Deno.stdin`).
   */
  constructor(source: { read(buffer: Uint8Array): Promise<number | null> } = Deno.stdin) {
    this.#source = source;
  }

  /**
   * The next line, without its line break.
   *
   * @returns The line, or `null` at the end of input.
   */
  async readLine(): Promise<string | null> {
    const buffer = new Uint8Array(4096);
    while (true) {
      const newline = this.#pending.indexOf("\n");
      if (newline >= 0) {
        const line = this.#pending.slice(0, newline).replace(/\r$/, "");
        this.#pending = this.#pending.slice(newline + 1);
        return line;
      }
      if (this.#ended) {
        if (this.#pending === "") return null;
        const line = this.#pending;
        this.#pending = "";
        return line;
      }
      const read = await this.#source.read(buffer);
      if (read === null) {
        this.#ended = true;
        this.#pending += this.#decoder.decode();
      } else this.#pending += this.#decoder.decode(buffer.subarray(0, read), { stream: true });
    }
  }
}

/** The commands the session understands besides prompts. */
export const INTERACTIVE_HELP: string = `Type a prompt and press Enter. Commands:
  /exit, /quit   leave (so does Ctrl-D, or Ctrl-C twice)
  /help          show this help
Up/Down recall earlier prompts (saved in .tack/history); lines pasted together are one
prompt. Ctrl-C during a run aborts it.`;

/** What {@linkcode runInteractive} needs. */
export interface InteractiveOptions {
  /** The next line of input, or `null` at its end. */
  readLine(): Promise<string | null>;
  /** Shows the input prompt (`› `). */
  showPrompt(): void;
  /** Prints a line for the user (help, notices). */
  print(text: string): void;
  /** Runs one prompt to the end (never rejects for model or tool failures). */
  run(prompt: string): Promise<void>;
}

/**
 * Runs the read-run loop.
 *
 * @param options How to read, print and run.
 * @returns The number of prompts run, when the session ends.
 *
 * @example A scripted session
 * ```ts
 * import { runInteractive } from "./interactive.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lines = ["hello", "", "/exit", "never"];
 * const ran: string[] = [];
 * await runInteractive({
 *   readLine: () => Promise.resolve(lines.shift() ?? null),
 *   showPrompt: () => {},
 *   print: () => {},
 *   run: (prompt) => Promise.resolve(void ran.push(prompt)),
 * });
 * deepEqual(ran, ["hello"]);
 * ```
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  let count = 0;
  while (true) {
    options.showPrompt();
    const line = await options.readLine();
    if (line === null) break;
    const text = line.trim();
    if (text === "") continue;
    if (text === "/exit" || text === "/quit") break;
    if (text === "/help") {
      options.print(INTERACTIVE_HELP);
      continue;
    }
    if (text.startsWith("/") && !text.includes(" ")) {
      options.print(`Unknown command ${text}. ${INTERACTIVE_HELP}`);
      continue;
    }
    await options.run(text);
    count++;
  }
  return count;
}
