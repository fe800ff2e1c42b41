/**
 * Incremental parsing of tool-call arguments as they stream, so a UI can show them
 * before the call is complete.
 *
 * @module
 */

import { argumentDepthProblem, MAX_ARGUMENT_DEPTH } from "../../../core/argument_depth.ts";
import { thrownText } from "../../../core/thrown_text.ts";

type Container = Record<string, unknown> | unknown[];

/** Where a scalar still streaming sits: the root (no container) or a container's slot. */
type Slot = { container: Container | undefined; key: string | number | undefined };

type Frame = {
  container: Container;
  /** The key the next value goes to (objects), once read. */
  key: string | undefined;
  /** Objects: `key` (a key or `}` expected), `colon`, `value`, `next` (`,` or `}`). */
  expect: "key" | "colon" | "value" | "next";
};

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * A streaming JSON parser: feed it the argument text chunk by chunk and read the value
 * so far at any time. Each character is read once, so a long argument costs linear time
 * however finely it is split. A string still streaming shows as what has arrived of it;
 * an unfinished number as what parses of it; an unfinished `true`/`false`/`null` or key
 * is left out until complete. After text that is not JSON, or nesting deeper than
 * `MAX_ARGUMENT_DEPTH` (128), it stops (`failed`) and keeps the value it had.
 *
 * @example Watching arguments arrive
 * ```ts
 * import { PartialJsonParser } from "@tack/agent/sdk/providers/openai";
 * import { deepEqual } from "node:assert/strict";
 *
 * const parser = new PartialJsonParser();
 * parser.push('{"path": "src/ma');
 * deepEqual(parser.value, { path: "src/ma" });
 * parser.push('in.ts", "lines": [1, 2');
 * deepEqual(parser.value, { path: "src/main.ts", lines: [1, 2] });
 * ```
 */
export class PartialJsonParser {
  #stack: Frame[] = [];
  #root: unknown = undefined;
  #done = false;
  #failed = false;
  /** `string` (a value), `key`, `number`, `literal`, or none. */
  #token: "string" | "key" | "number" | "literal" | undefined;
  #buffer = "";
  /** Inside a string: after a backslash (`"\\"`), or collecting `\u` digits (`"u…"`). */
  #escape = "";
  #slot: Slot | undefined;

  /** Whether the text so far is not a prefix of any JSON value. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Whether a complete JSON value has been read. */
  get complete(): boolean {
    return this.#done && this.#token === undefined && !this.#failed;
  }

  /**
   * The value so far (`undefined` before anything has arrived). It is the parser's own
   * tree, updated in place as text arrives: copy it to keep a snapshot.
   */
  get value(): unknown {
    return this.#root;
  }

  /**
   * Reads the next chunk of text.
   *
   * @param chunk The text that arrived.
   */
  push(chunk: string): void {
    for (let i = 0; i < chunk.length && !this.#failed; i++) {
      const char = chunk[i];
      if (this.#token === "string" || this.#token === "key") {
        if (this.#escape === "") {
          // Fast path: copy the run of plain characters in one slice.
          let end = i;
          while (end < chunk.length && chunk[end] !== '"' && chunk[end] !== "\\") end++;
          if (end > i) {
            this.#buffer += chunk.slice(i, end);
            i = end - 1;
            continue;
          }
          if (char === "\\") this.#escape = "\\";
          else this.#endString();
        } else if (this.#escape === "\\") {
          if (char === "u") this.#escape = "u";
          else if (char in ESCAPES) {
            this.#buffer += ESCAPES[char];
            this.#escape = "";
          } else this.#failed = true;
        } else {
          if (!/[0-9a-fA-F]/.test(char)) {
            this.#failed = true;
            break;
          }
          this.#escape += char;
          if (this.#escape.length === 5) {
            this.#buffer += String.fromCharCode(parseInt(this.#escape.slice(1), 16));
            this.#escape = "";
          }
        }
        continue;
      }
      if (this.#token === "number" || this.#token === "literal") {
        if (this.#token === "number" ? /[0-9eE+\-.]/.test(char) : /[a-z]/.test(char)) {
          this.#buffer += char;
          continue;
        }
        this.#endScalar();
        if (this.#failed) break;
      }
      this.#structural(char);
    }
    this.#flush();
  }

  /** Shows the scalar still streaming in the tree. */
  #flush(): void {
    if (this.#failed) return;
    if (this.#token === "string") this.#write(this.#buffer);
    else if (this.#token === "number") {
      const number = parseNumber(this.#buffer);
      if (number === undefined) return;
      if (this.#slot) this.#write(number);
      else this.#slot = this.#place(number);
    }
  }

  #write(value: unknown): void {
    const slot = this.#slot;
    if (!slot) return;
    if (slot.container === undefined) this.#root = value;
    else if (Array.isArray(slot.container)) slot.container[slot.key as number] = value;
    else slot.container[slot.key as string] = value;
  }

  #structural(char: string): void {
    if (WHITESPACE.has(char)) return;
    if (this.#done) {
      this.#failed = true;
      return;
    }
    const frame = this.#stack[this.#stack.length - 1];
    if (frame && !Array.isArray(frame.container) && frame.expect !== "value") {
      if (frame.expect === "key" && char === '"') {
        this.#token = "key";
        this.#buffer = "";
      } else if (frame.expect === "colon" && char === ":") frame.expect = "value";
      else if ((frame.expect === "next" || frame.expect === "key") && char === "}") this.#close();
      else if (frame.expect === "next" && char === ",") frame.expect = "key";
      else this.#failed = true;
      return;
    }
    if (frame && Array.isArray(frame.container) && frame.expect === "next") {
      if (char === ",") frame.expect = "value";
      else if (char === "]") this.#close();
      else this.#failed = true;
      return;
    }
    if (char === "]" && frame && Array.isArray(frame.container) && frame.container.length === 0) {
      this.#close();
      return;
    }
    this.#startValue(char);
  }

  #startValue(char: string): void {
    if (char === "{" || char === "[") {
      const container: Container = char === "{" ? {} : [];
      if (this.#stack.length >= MAX_ARGUMENT_DEPTH) {
        this.#failed = true; // deeper than any arguments are accepted: stop building
        return;
      }
      this.#place(container);
      this.#stack.push({ container, key: undefined, expect: char === "{" ? "key" : "value" });
    } else if (char === '"') {
      this.#token = "string";
      this.#buffer = "";
      this.#slot = this.#place("");
    } else if (/[-0-9]/.test(char)) {
      this.#token = "number";
      this.#buffer = char;
    } else if (char === "t" || char === "f" || char === "n") {
      this.#token = "literal";
      this.#buffer = char;
    } else this.#failed = true;
  }

  /** Puts a value where the next one goes, and returns where that is. */
  #place(value: unknown): Slot {
    const frame = this.#stack[this.#stack.length - 1];
    if (!frame) {
      this.#root = value;
      if (typeof value !== "object" || value === null) this.#done = true;
      return { container: undefined, key: undefined };
    }
    frame.expect = "next";
    if (Array.isArray(frame.container)) {
      return { container: frame.container, key: frame.container.push(value) - 1 };
    }
    frame.container[frame.key as string] = value;
    return { container: frame.container, key: frame.key };
  }

  #close(): void {
    this.#stack.pop();
    if (this.#stack.length === 0) this.#done = true;
  }

  #endString(): void {
    const text = this.#buffer;
    const token = this.#token;
    this.#token = undefined;
    this.#buffer = "";
    if (token === "key") {
      const frame = this.#stack[this.#stack.length - 1];
      frame.key = text;
      frame.expect = "colon";
    } else {
      this.#write(text);
      this.#slot = undefined;
    }
  }

  #endScalar(): void {
    const text = this.#buffer;
    const token = this.#token;
    this.#token = undefined;
    this.#buffer = "";
    if (token === "number") {
      const number = parseNumber(text);
      if (number === undefined) this.#failed = true;
      else if (this.#slot) this.#write(number);
      else this.#place(number);
      this.#slot = undefined;
    } else if (text === "true" || text === "false" || text === "null") {
      this.#place(text === "null" ? null : text === "true");
    } else this.#failed = true;
  }
}

function parseNumber(text: string): number | undefined {
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return undefined;
  return Number(text);
}

/**
 * Parses a tool call's complete argument text. Valid JSON objects come back as parsed;
 * text cut short (a stream that hit its token limit) comes back as far as it parses; an
 * empty text is `{}`. Anything that is not an object, or nests deeper than
 * `MAX_ARGUMENT_DEPTH`, is `undefined`.
 *
 * @param text The argument text the model sent.
 * @returns The arguments, or `undefined` when the text is not (a prefix of) a JSON object.
 *
 * @example Complete and truncated arguments
 * ```ts
 * import { parseToolArguments } from "@tack/agent/sdk/providers/openai";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * deepEqual(parseToolArguments('{"city":"Paris"}'), { city: "Paris" });
 * deepEqual(parseToolArguments('{"city":"Par'), { city: "Par" });
 * equal(parseToolArguments("Paris"), undefined);
 * ```
 */
export function parseToolArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && !argumentDepthProblem(parsed) ? parsed : undefined;
  } catch {
    const parser = new PartialJsonParser();
    parser.push(text);
    const value = parser.value;
    return !parser.failed && isRecord(value) ? value : undefined;
  }
}

/**
 * Parses the complete argument text of a finished tool call, strictly: partial JSON is
 * not accepted here, so a torn call never runs with half its arguments.
 *
 * @param text The whole argument text.
 * @returns The arguments, or why they are not a JSON object (with the text received), or
 *   that they nest deeper than `MAX_ARGUMENT_DEPTH`.
 *
 * @example
 * ```ts
 * import { parseFinalToolArguments } from "@tack/agent/sdk/providers/openai";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * deepEqual(parseFinalToolArguments('{"a":1}'), { ok: true, value: { a: 1 } });
 * equal(parseFinalToolArguments('{"a":').ok, false);
 * ```
 */
export function parseFinalToolArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  const shown = text.length > 500 ? `${text.slice(0, 500)}…` : text;
  try {
    const parsed: unknown = JSON.parse(text);
    const tooDeep = isRecord(parsed) ? argumentDepthProblem(parsed) : undefined;
    if (tooDeep) return { ok: false, error: tooDeep };
    if (isRecord(parsed)) return { ok: true, value: parsed };
    return { ok: false, error: `the arguments must be a JSON object. Received: ${shown}` };
  } catch (error) {
    const reason = thrownText(error);
    return { ok: false, error: `the arguments are not valid JSON (${reason}). Received: ${shown}` };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
