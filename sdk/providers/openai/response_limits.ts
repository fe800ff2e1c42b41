/**
 * How much one streamed response may hold, so a hostile or broken server cannot grow the
 * host's memory without end (a stream of text that never finishes, a million tool calls,
 * a line that never ends) nor stream without end data that counts for nothing.
 *
 * @module
 */

/** The bounds of one streamed response. */
export interface ResponseLimits {
  /** Characters of text, reasoning and tool calls (names, ids, arguments) together. */
  readonly maxChars: number;
  /** Tool calls in one response. */
  readonly maxToolCalls: number;
  /** Bytes of the response body, as read from the network (framing and all). */
  readonly maxBytes: number;
  /** Bytes of one server-sent event (its lines up to the blank line that ends it). */
  readonly maxEventBytes: number;
}

/** The default `maxResponseBytes` never goes below this: 100,000,000 bytes. */
export const MIN_DEFAULT_RESPONSE_BYTES = 100_000_000;

/**
 * The default `maxResponseBytes` for a `maxResponseChars`: 10 bytes a character, at least
 * {@linkcode MIN_DEFAULT_RESPONSE_BYTES} (a token-by-token stream spends 100 to 300 bytes
 * of framing on each token, so 100 MB is some 300,000 tokens or more).
 *
 * @param maxChars The `maxResponseChars` in force.
 * @returns The byte bound.
 *
 * @example
 * ```ts
 * import { defaultMaxResponseBytes } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(defaultMaxResponseBytes(10_000_000), 100_000_000);
 * equal(defaultMaxResponseBytes(1_000), 100_000_000);
 * equal(defaultMaxResponseBytes(50_000_000), 500_000_000);
 * ```
 */
export function defaultMaxResponseBytes(maxChars: number): number {
  return Math.max(MIN_DEFAULT_RESPONSE_BYTES, 10 * maxChars);
}

/**
 * The default bounds: 10,000,000 characters (about 20 times what a 128k-token output
 * limit allows), 1,000 tool calls, 100,000,000 bytes of body and 10 MiB (10,485,760
 * bytes) an event, as MCP allows a message.
 */
export const RESPONSE_LIMITS: ResponseLimits = {
  maxChars: 10_000_000,
  maxToolCalls: 1_000,
  maxBytes: defaultMaxResponseBytes(10_000_000),
  maxEventBytes: 10 * 1024 * 1024,
};

/** The name of a limit, as the option that sets it. */
export type ResponseLimitName =
  | "maxResponseChars"
  | "maxToolCalls"
  | "maxResponseBytes"
  | "maxEventBytes";

const WHAT: Record<ResponseLimitName, (value: number) => string> = {
  maxResponseChars: (value) =>
    `the response passed ${value} characters of text, reasoning and tool calls`,
  maxToolCalls: (value) => `the response passed ${value} tool calls`,
  maxResponseBytes: (value) => `the response passed ${value} bytes`,
  maxEventBytes: (value) => `one event of the stream passed ${value} bytes without ending`,
};

/**
 * A response passed one of its {@linkcode ResponseLimits}: the stream is stopped there
 * and the turn ends with an error (never retried: the server would send the same).
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
  constructor(limit: ResponseLimitName, value: number) {
    super(`${WHAT[limit](value)} (${limit}); the rest was not read`);
    this.name = "ResponseTooLargeError";
  }
}
