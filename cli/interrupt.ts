/**
 * Ctrl-C: the first press aborts the current run (the process goes on); a second press
 * within a short window exits.
 *
 * @module
 */

/** What {@linkcode createInterruptHandler} drives. */
export interface InterruptActions {
  /** Aborts the current run, if any. Returns whether one was running. */
  abort(): boolean;
  /** Exits the process (the second press). */
  exit(): void;
  /** Tells the user what happened and what a second press does. */
  notice(text: string): void;
  /** How long a second press counts as "again" (default 2000 ms). */
  windowMs?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** The SIGINT handler, and a way to forget an earlier press. */
export interface InterruptHandler {
  /** For `Deno.addSignalListener("SIGINT", handle)`. */
  handle(): void;
  /** Forgets the last press (call it when a new run starts: a press then is a first one). */
  reset(): void;
}

/**
 * Builds the SIGINT handler.
 *
 * @param actions What to abort, how to exit and where to say so.
 * @returns The handler and its reset.
 *
 * @example Two presses
 * ```ts
 * import { createInterruptHandler } from "./interrupt.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const calls: string[] = [];
 * const interrupt = createInterruptHandler({
 *   abort: () => (calls.push("abort"), true),
 *   exit: () => calls.push("exit"),
 *   notice: () => {},
 *   now: () => 0,
 * });
 * interrupt.handle();
 * interrupt.handle();
 * deepEqual(calls, ["abort", "exit"]);
 * ```
 */
export function createInterruptHandler(actions: InterruptActions): InterruptHandler {
  const windowMs = actions.windowMs ?? 2000;
  const now = actions.now ?? Date.now;
  let last = -Infinity;
  return {
    handle: function onInterrupt() {
      const at = now();
      if (at - last <= windowMs) {
        actions.exit();
        return;
      }
      last = at;
      const aborted = actions.abort();
      actions.notice(
        aborted ? "Aborting the run. Press Ctrl-C again to exit." : "Press Ctrl-C again to exit.",
      );
    },
    reset() {
      last = -Infinity;
    },
  };
}
