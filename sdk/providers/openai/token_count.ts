/**
 * Token counts as a server reports them, made safe to add up: a server's `usage` is JSON
 * it chose, and one `"many"` or `NaN` would make every sum that includes it `NaN`.
 *
 * @module
 */

/** Token counts as the APIs report them: whatever JSON the server put there. */
export interface ReportedUsage {
  /** Prompt tokens, cached ones included. */
  input: unknown;
  /** Completion tokens (reasoning included). */
  output: unknown;
  /** Prompt tokens served from the cache. */
  cached: unknown;
}

/**
 * The largest token count one response may report: 1,000,000,000, a hundred times the
 * longest context window. A larger count is taken as this, so sums stay exact integers.
 */
export const MAX_REPORTED_TOKENS = 1_000_000_000;

/**
 * A reported token count as a number safe to add: a finite number `>= 0`, at most
 * {@linkcode MAX_REPORTED_TOKENS}. Anything else (a string, `null`, `NaN`, a negative
 * number) counts as 0; `Infinity` and counts past the maximum count as the maximum.
 *
 * @param value What the server sent.
 * @returns The count.
 *
 * @example
 * ```ts
 * import { MAX_REPORTED_TOKENS, tokenCount } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(tokenCount(12), 12);
 * equal(tokenCount("many"), 0);
 * equal(tokenCount(-5), 0);
 * equal(tokenCount(NaN), 0);
 * equal(tokenCount(1e308), MAX_REPORTED_TOKENS);
 * ```
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== "number" || !(value > 0)) return 0; // NaN fails `> 0`
  return value < MAX_REPORTED_TOKENS ? value : MAX_REPORTED_TOKENS;
}
