/**
 * Waiting on a timer that an abort ends early: a pause between retries, or a bound on how long
 * to wait for something else. One timer each, cleared when the wait ends.
 *
 * @module
 */

/** The longest delay `setTimeout` takes (~24.8 days); a longer one would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Waits, unless aborted first.
 *
 * @param ms How long (past ~24.8 days, `Infinity` too, that long).
 * @param signal Ends the wait early.
 * @returns `true` when the time passed, `false` when aborted.
 *
 * @example
 * ```ts
 * import { sleep } from "./sleep.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await sleep(1), true);
 * equal(await sleep(10_000, AbortSignal.abort()), false);
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (passed: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(passed);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(true), Math.min(ms, MAX_DELAY_MS));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Whether a promise settles (resolves or rejects) within `ms`, unless `signal` aborts first.
 * The promise is not touched: its value or error is still the caller's to await, and its
 * rejection counts as handled.
 *
 * @param promise What to wait for.
 * @param ms How long to wait at most.
 * @param signal Ends the wait early.
 * @returns `true` when it settled in time, `false` when the time passed or `signal` aborted.
 *
 * @example A promise that settles in time, one that does not, and an abort
 * ```ts
 * import { settledWithin } from "./sleep.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await settledWithin(Promise.reject(new Error("no")), 1_000), true);
 * equal(await settledWithin(new Promise(() => {}), 10), false);
 * equal(await settledWithin(new Promise(() => {}), 10_000, AbortSignal.abort()), false);
 * const soon = new Promise((resolve) => setTimeout(resolve, 20));
 * equal(await settledWithin(soon, Infinity), true); // Infinity: no bound
 * ```
 */
export async function settledWithin(
  promise: Promise<unknown>,
  ms: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const done = new AbortController();
  const timer = sleep(ms, signal ? AbortSignal.any([signal, done.signal]) : done.signal);
  try {
    return await Promise.race([promise.then(() => true, () => true), timer.then(() => false)]);
  } finally {
    done.abort();
  }
}

/**
 * A promise's own outcome, or a rejection with `timedOut()`'s error once `ms` pass first (the
 * promise is not cancelled: whatever it was doing goes on, unwatched). One timer, cleared when
 * the promise settles.
 *
 * @param value What to wait for.
 * @param ms How long at most (past ~24.8 days, `Infinity` too, that long).
 * @param timedOut Makes the error to reject with.
 * @returns `value`'s outcome.
 *
 * @example A module load that never finishes
 * ```ts
 * import { rejectAfter } from "./sleep.ts";
 * import { equal, rejects } from "node:assert/strict";
 *
 * equal(await rejectAfter(Promise.resolve(1), 1_000, () => new Error("slow")), 1);
 * await rejects(rejectAfter(new Promise(() => {}), 5, () => new Error("slow")), { message: "slow" });
 * ```
 */
export function rejectAfter<T>(
  value: PromiseLike<T>,
  ms: number,
  timedOut: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), Math.min(ms, MAX_DELAY_MS));
    Promise.resolve(value).then(
      (result) => (clearTimeout(timer), resolve(result)),
      (error) => (clearTimeout(timer), reject(error)),
    );
  });
}
