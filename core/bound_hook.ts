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
 * @param run Calls the hook.
 * @param signal The run's abort signal.
 * @param timeoutMs How long to wait (`Infinity` or 0: only the signal bounds it; past
 * ~24.8 days, the longest a timer takes, that long).
 * @param onGiveUp Called, synchronously, the moment the wait ends without the hook's
 * answer (timeout or abort), so the hook's own work can be told to stop.
 * @returns The outcome; never rejects.
 *
 * @example A hook that never answers
 * ```ts
 * import { boundHook } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const outcome = await boundHook(() => new Promise(() => {}), new AbortController().signal, 5);
 * equal(outcome.kind, "timeout");
 * ```
 */
export function boundHook<T>(
  run: () => T | PromiseLike<T>,
  signal: AbortSignal,
  timeoutMs: number,
  onGiveUp?: () => void,
): MaybePromise<HookOutcome<T>> {
  let value: T | PromiseLike<T>;
  try {
    value = run();
  } catch (error) {
    return { kind: "error", error };
  }
  if (!isPromiseLike<T>(value)) return { kind: "value", value };
  const pending = value;
  if (signal.aborted) {
    pending.then(undefined, () => {});
    onGiveUp?.();
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
      if (outcome.kind === "timeout" || outcome.kind === "abort") onGiveUp?.();
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
