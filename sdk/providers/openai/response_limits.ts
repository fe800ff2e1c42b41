/**
 * How much one streamed response may hold, so a hostile or broken server cannot grow the
 * host's memory without end (a stream of text that never finishes, a million tool calls).
 *
 * @module
 */

/** The bounds of one streamed response. */
export interface ResponseLimits {
  /** Characters of text, reasoning and tool-call arguments together. */
  readonly maxChars: number;
  /** Tool calls in one response. */
  readonly maxToolCalls: number;
}

/**
 * The default bounds: 10,000,000 characters (about 20 times what a 128k-token output
 * limit allows) and 1,000 tool calls.
 */
export const RESPONSE_LIMITS: ResponseLimits = { maxChars: 10_000_000, maxToolCalls: 1_000 };

/**
 * A response passed one of its {@linkcode ResponseLimits}: the stream is stopped there
 * and the turn ends with an error (never retried: output had arrived).
 *
 * @example
 * ```ts
 * import { ResponseTooLargeError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   new ResponseTooLargeError("maxToolCalls", 1000).message,
 *   "the response passed 1000 tool calls (maxToolCalls); the rest was not read",
 * );
 * ```
 */
export class ResponseTooLargeError extends Error {
  /**
   * Creates the error.
   *
   * @param limit Which limit was passed (the option's name).
   * @param value Its value.
   */
  constructor(limit: "maxResponseChars" | "maxToolCalls", value: number) {
    const what = limit === "maxToolCalls"
      ? `${value} tool calls`
      : `${value} characters of text, reasoning and tool-call arguments`;
    super(`the response passed ${what} (${limit}); the rest was not read`);
    this.name = "ResponseTooLargeError";
  }
}
