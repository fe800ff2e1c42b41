/**
 * What a thrown value says, as text, without throwing again.
 *
 * @module
 */

/**
 * What a thrown (or rejected) value says: an `Error`'s message, anything else as `String()`
 * shows it. Never throws: a value `String()` cannot convert (an object without a prototype,
 * one whose `toString` throws, a revoked proxy) is shown as its tag (`[object Object]`), or
 * as `(a value that cannot be shown as text)`. Errors become results the model reads, so
 * reading one must not fail in turn.
 *
 * @param error What was thrown.
 * @returns Its text.
 *
 * @example Values that String() cannot convert
 * ```ts
 * import { thrownText } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(thrownText(new Error("disk full")), "disk full");
 * equal(thrownText("plain"), "plain");
 * equal(thrownText(Object.create(null)), "[object Object]");
 * const { proxy, revoke } = Proxy.revocable({}, {});
 * revoke();
 * equal(thrownText(proxy), "(a value that cannot be shown as text)");
 * ```
 */
export function thrownText(error: unknown): string {
  try {
    const text = error instanceof Error ? error.message : String(error);
    return typeof text === "string" ? text : String(text);
  } catch {
    try {
      return Object.prototype.toString.call(error);
    } catch {
      return "(a value that cannot be shown as text)";
    }
  }
}
