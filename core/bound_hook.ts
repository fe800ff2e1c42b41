/**
 * Bounds a hook by the run's abort signal and a timeout, so a hook that never answers
 * cannot hold a call, a batch or the run.
 *
 * @module
 */

import { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
import { timerDelay } from "./timer_delay.ts";

/** How a bounded hook ended. */
export type HookOutcome<T> =
  | { kind: "value"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "abort" };

/**
 * Runs a hook and waits for it at most `timeoutMs`, or until `signal` aborts. A hook that
 * answers synchronously is answered synchronously (no timer).
 *
 * @param run Calls the hook with the signal to give it: it aborts when the run aborts or
 * the wait ends without the hook's answer (a timeout), so the hook's own work, and the hooks
 * a composed chain would still call, can stop.
 * @param signal The run's abort signal.
 * @param timeoutMs How long to wait (`Infinity` or 0: only the signal bounds it; past
 * ~24.8 days, the longest a timer takes, that long).
 * @returns The outcome; never rejects.
 *
 * @example A hook that never answers
 * ```ts
 * import { boundHook } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * let given: AbortSignal | undefined;
 * const never = (signal: AbortSignal) => ((given = signal), new Promise(() => {}));
 * const outcome = await boundHook(never, new AbortController().signal, 5);
 * equal(outcome.kind, "timeout");
 * equal(given?.aborted, true); // the hook is told the loop stopped waiting
 * ```
 */
export function boundHook<T>(
  run: (signal: AbortSignal) => T | PromiseLike<T>,
  signal: AbortSignal,
  timeoutMs: number,
): MaybePromise<HookOutcome<T>> {
  const hookSignal = new AbortController();
  const giveUp = () =>
    hookSignal.abort(
      signal.aborted
        ? signal.reason
        : new DOMException("The loop stopped waiting for the hooks", "TimeoutError"),
    );
  let value: T | PromiseLike<T>;
  try {
    value = run(hookSignal.signal);
  } catch (error) {
    return { kind: "error", error };
  }
  if (!isPromiseLike<T>(value)) return { kind: "value", value };
  const pending = value;
  if (signal.aborted) {
    pending.then(undefined, () => {});
    giveUp();
    return { kind: "abort" };
  }
  return new Promise((resolve) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: HookOutcome<T>) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (outcome.kind === "timeout" || outcome.kind === "abort") giveUp();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: "abort" });
    signal.addEventListener("abort", onAbort);
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => finish({ kind: "timeout" }), timerDelay(timeoutMs));
    }
    pending.then(
      (result) => finish({ kind: "value", value: result }),
      (error) => finish({ kind: "error", error }),
    );
  });
}
