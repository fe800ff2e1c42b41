/**
 * Deno's error texts without the Rust backtrace it adds under `RUST_BACKTRACE` (a
 * `Stack backtrace:` line and frames like `0: <unknown>`): what a user reads in a load
 * error is what went wrong, not where inside Deno it was noticed.
 *
 * @module
 */

/**
 * Cuts `text` at its first `Stack backtrace:` line (that line and everything after it go),
 * and trims what is left.
 *
 * @param text What a `deno` subprocess printed on stderr.
 * @returns The text without the backtrace.
 *
 * @example A lockfile error with a backtrace
 * ```ts
 * import { stripBacktrace } from "./strip_backtrace.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   stripBacktrace("error: The lockfile is out of date.\n\nStack backtrace:\n   0: <unknown>\n"),
 *   "error: The lockfile is out of date.",
 * );
 * ```
 */
export function stripBacktrace(text: string): string {
  const at = /^Stack backtrace:\s*$/m.exec(text);
  return (at === null ? text : text.slice(0, at.index)).trim();
}
