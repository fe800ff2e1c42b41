/**
 * Values that may be ready now or later: the hot path stays synchronous when nothing
 * asynchronous happens.
 *
 * @module
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Whether a value is a promise-like (has a `then` method).
 *
 * @param value Anything.
 * @returns `true` for thenables.
 *
 * @example
 * ```ts
 * import { isPromiseLike } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(isPromiseLike(Promise.resolve(1)), true);
 * equal(isPromiseLike(1), false);
 * ```
 */
export function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
