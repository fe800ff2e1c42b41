/**
 * Human output: the answer streams to stdout as it arrives; tool calls and their
 * outcomes are one compact line each on stderr; a spinner (dax's progress) shows while
 * the model thinks or a tool runs.
 *
 * @module
 */

import { $ } from "@david/dax";
import type { AgentEvent } from "../core/agent_event.ts";
import type { ToolResult } from "../core/tool.ts";
import { printable, stripControlSequences } from "../sdk/sandbox/strip_control_sequences.ts";

/** A running spinner: what dax's `$.progress` returns, reduced to what the CLI uses. */
export interface Spinner {
  /** Changes what it says. */
  message(text: string): unknown;
  /** Removes it from the terminal. */
  finish(): void;
}

/** Where the renderer writes. */
export interface RenderIO {
  /** The answer's text (stdout). */
  out(text: string): void;
  /** Tool lines, warnings and errors (stderr). */
  err(text: string): void;
  /** Starts a spinner; leave out for none (stderr is not a terminal). */
  spinner?: (message: string) => Spinner;
  /** Whether to use ANSI colours. */
  color?: boolean;
  /** Print a status line after each run: tokens in/out, cost, elapsed time. */
  status?: boolean;
  /** The model's price in dollars per million tokens (the cost is shown only with it). */
  price?: { input: number; output: number };
  /** The clock (default `performance.now`). */
  now?: () => number;
}

/**
 * The status line after a run.
 *
 * @param usage Tokens in and out, and the provider's cost (when it reports one).
 * @param ms How long the run took.
 * @param price Dollars per million tokens, from `tack.jsonc` `"price"`.
 * @returns `1,200 in · 85 out · $0.0002 · 2.1s`.
 *
 * @example
 * ```ts
 * import { statusLine } from "./render.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(statusLine({ input: 1200, output: 85, cost: 0 }, 2100, { input: 0.15, output: 0.6 }), "1,200 in · 85 out · $0.0002 · 2.1s");
 * equal(statusLine({ input: 10, output: 5, cost: 0 }, 300), "10 in · 5 out · 0.3s");
 * ```
 */
export function statusLine(
  usage: { input: number; output: number; cost: number },
  ms: number,
  price?: { input: number; output: number },
): string {
  const parts = [
    `${usage.input.toLocaleString("en-US")} in`,
    `${usage.output.toLocaleString("en-US")} out`,
  ];
  const cost = price
    ? (usage.input * price.input + usage.output * price.output) / 1_000_000
    : usage.cost;
  if (price || cost > 0) parts.push(`$${cost < 0.01 ? cost.toPrecision(1) : cost.toFixed(2)}`);
  parts.push(`${(ms / 1000).toFixed(1)}s`);
  return parts.join(" · ");
}

/**
 * A dax spinner on stderr.
 *
 * @param message What it says it is waiting for.
 * @returns The spinner (it draws nothing when stderr is not a terminal).
 *
 * @example Showing and finishing
 * ```ts
 * import { daxSpinner } from "./render.ts";
 * import { equal } from "node:assert/strict";
 *
 * const spinner = daxSpinner("thinking");
 * spinner.message("running bash");
 * spinner.finish();
 * equal(typeof spinner.finish, "function");
 * ```
 */
export function daxSpinner(message: string): Spinner {
  return $.progress({ message });
}

const LINE_WIDTH = 100;

/** {@linkcode printable} on one line: a newline shows as `␊`, so it cannot start a line of its own. */
function oneLine(text: string): string {
  return printable(text).replace(/\n/g, "\u240a");
}

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : one.slice(0, max - 1) + "…";
}

/**
 * A tool call's arguments as `key=value` pairs on one short line.
 *
 * @param args The arguments.
 * @returns Them, clipped to fit one line.
 *
 * @example Short values bare, long ones quoted
 * ```ts
 * import { formatArgs } from "./render.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(formatArgs({ path: "a.ts", content: "two words" }), 'path=a.ts content="two words"');
 * ```
 */
export function formatArgs(args: Record<string, unknown>): string {
  const parts = Object.entries(args ?? {}).map(([key, value]) => {
    const shown = typeof value === "string" && /^[^\s"'=]{1,60}$/.test(value)
      ? value
      : clip(JSON.stringify(value) ?? String(value), 60);
    return `${key}=${shown}`;
  });
  return clip(stripControlSequences(parts.join(" ")), LINE_WIDTH - 20);
}

function resultText(result: ToolResult): string {
  return printable(
    result.content.map((c) => (c.type === "text" ? c.text : `[${c.mimeType} image]`)).join("\n"),
  );
}

/**
 * A tool's outcome in a few words: a summary of the output, or the whole error (its
 * further lines folded under the first, indented).
 *
 * @param result The result.
 * @param isError Whether it is an error.
 * @returns The summary.
 *
 * @example A three-line output
 * ```ts
 * import { summarizeResult } from "./render.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(summarizeResult({ content: [{ type: "text", text: "a\nb\nc" }] }, false), "a (3 lines)");
 * equal(summarizeResult({ content: [{ type: "text", text: "failed:\n  at x" }] }, true), "failed:\n    at x");
 * ```
 */
export function summarizeResult(result: ToolResult, isError: boolean): string {
  const text = resultText(result).trim();
  if (isError) return text === "" ? "failed" : text.split("\n").join("\n  ");
  if (text === "") return "done (no output)";
  const lines = text.split("\n").length;
  const first = clip(text.split("\n")[0], 60);
  return lines > 1 ? `${first} (${lines} lines)` : first;
}

/**
 * Turns events into terminal output. `listener` goes to `agent.subscribe`.
 *
 * @example Rendering a scripted run
 * ```ts
 * import { Renderer } from "./render.ts";
 * import { createAgent, scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * let out = "";
 * const renderer = new Renderer({ out: (t) => void (out += t), err: () => {} });
 * const agent = createAgent({ model: scriptedModel([[text("Hello!")]]) });
 * agent.subscribe(renderer.listener);
 * await agent.prompt("hi");
 * equal(out, "Hello!\n");
 * ```
 */
export class Renderer {
  #io: RenderIO;
  #spinner: Spinner | undefined;
  #spinnerText = "";
  #atLineStart = true;
  #running = new Map<string, string>();
  #paused = false;
  #hinted = false;
  #started = 0;
  #usage = { input: 0, output: 0, cost: 0 };

  /**
   * Creates a renderer.
   *
   * @param io Where to write, and how to show a spinner.
   */
  constructor(io: RenderIO) {
    this.#io = io;
  }

  #paint(code: string, text: string): string {
    return this.#io.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  #spin(text: string): void {
    this.#spinnerText = text;
    if (this.#paused || !this.#io.spinner) return;
    if (this.#spinner) this.#spinner.message(text);
    else {
      this.#endLine(); // a spinner redraws its line: never start one after text mid-line
      this.#spinner = this.#io.spinner(text);
    }
  }

  #stopSpinner(): void {
    this.#spinner?.finish();
    this.#spinner = undefined;
  }

  #endLine(): void {
    if (!this.#atLineStart) this.#io.out("\n");
    this.#atLineStart = true;
  }

  /** Writes a line to stderr, above any spinner. */
  line(text: string): void {
    const spinning = this.#spinner !== undefined;
    this.#stopSpinner();
    this.#endLine();
    this.#io.err(text + "\n");
    if (spinning) this.#spin(this.#spinnerText);
  }

  /** A warning line (yellow). */
  warn(text: string): void {
    // Warnings may quote what a plugin or a server chose: none of its escapes reach the terminal.
    this.line(this.#paint("33", `warning: ${printable(text)}`));
  }

  /** Hides the spinner (for a question on the terminal) until `resume`. */
  pause(): void {
    this.#paused = true;
    this.#stopSpinner();
    this.#endLine();
  }

  /** Shows the spinner again after `pause`, if something is still running. */
  resume(): void {
    this.#paused = false;
    if (this.#running.size > 0) this.#spin(this.#spinnerText);
  }

  /** Receives every event of the agent. */
  listener: (event: AgentEvent) => void = (event) => {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") this.#spin("thinking");
        break;
      case "message_update": {
        const step = event.assistantMessageEvent;
        if (step.type === "text_delta") {
          this.#stopSpinner();
          const delta = printable(step.delta);
          this.#io.out(delta);
          if (delta.length > 0) this.#atLineStart = delta.endsWith("\n");
        } else if (step.type === "thinking_start") this.#spin("thinking");
        else if (step.type === "toolcall_start") this.#spin("preparing a tool call");
        break;
      }
      case "agent_start":
        this.#started = (this.#io.now ?? performance.now.bind(performance))();
        this.#usage = { input: 0, output: 0, cost: 0 };
        break;
      case "message_end": {
        const message = event.message;
        if (message.role !== "assistant") break;
        this.#usage.input += message.usage?.input ?? 0;
        this.#usage.output += message.usage?.output ?? 0;
        this.#usage.cost += message.usage?.cost?.total ?? 0;
        this.#stopSpinner();
        this.#endLine();
        if (message.stopReason === "error") {
          this.#io.err(
            // The provider's words, often a server's: none of its escapes reach the terminal.
            this.#paint("31", `✗ error: ${printable(message.errorMessage ?? "the model failed")}`) +
              "\n",
          );
        } else if (message.stopReason === "aborted") {
          this.#io.err(this.#paint("33", "■ aborted") + "\n");
        } else if (message.stopReason === "length") {
          this.#io.err(
            this.#paint("33", "… the answer was cut off at the output token limit") + "\n",
          );
        }
        break;
      }
      case "tool_execution_start": {
        // A tool's name is the model's choice when no such tool exists: shown plain, on one
        // line (a newline in it had drawn a "✓" line of the model's own).
        const name = oneLine(event.toolName);
        this.#running.set(event.toolCallId, name);
        this.line(this.#paint("36", `→ ${name}`) + ` ${formatArgs(event.args)}`.trimEnd());
        this.#spin(`running ${name}`);
        break;
      }
      case "tool_execution_update": {
        const text = resultText(event.partialResult).trim().split("\n").at(-1) ?? "";
        this.#spin(`${oneLine(event.toolName)}: ${clip(text, 60)}`);
        break;
      }
      case "tool_execution_end": {
        this.#running.delete(event.toolCallId);
        if (this.#running.size === 0) this.#stopSpinner();
        const summary = summarizeResult(event.result, event.isError);
        this.line(
          event.isError
            ? this.#paint("31", `✗ ${oneLine(event.toolName)}: ${summary}`)
            : this.#paint("32", `✓ ${oneLine(event.toolName)}`) + `: ${summary}`,
        );
        if (event.isError && !this.#hinted && summary.includes("(non-interactive)")) {
          this.#hinted = true;
          this.line(
            this.#paint(
              "2",
              "  (no terminal to ask on: run in a terminal to be asked, or pass --yes)",
            ),
          );
        }
        if (this.#running.size > 0) this.#spin(`running ${[...this.#running.values()].join(", ")}`);
        break;
      }
      case "agent_end": {
        this.#running.clear();
        this.#stopSpinner();
        this.#endLine();
        if (!this.#io.status) break;
        const ms = (this.#io.now ?? performance.now.bind(performance))() - this.#started;
        this.#io.err(this.#paint("2", statusLine(this.#usage, ms, this.#io.price)) + "\n");
        break;
      }
    }
  };
}
