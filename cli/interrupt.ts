/**
 * Ctrl-C: the first press aborts the current run (the process goes on); a second press
 * within a short window exits. Presses within 100 ms of the first count as that one:
 * `deno task` forwards the terminal's SIGINT to its child while the terminal sends it to the
 * whole process group too, so one key press arrives twice, a few milliseconds apart.
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
  /** Presses this soon after the first are the same press, echoed (default 100 ms). */
  echoMs?: number;
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
 * let clock = 0;
 * const interrupt = createInterruptHandler({
 *   abort: () => (calls.push("abort"), true),
 *   exit: () => calls.push("exit"),
 *   notice: () => {},
 *   now: () => clock,
 * });
 * interrupt.handle();
 * clock += 5; // the same press, forwarded by `deno task`
 * interrupt.handle();
 * clock += 500;
 * interrupt.handle();
 * deepEqual(calls, ["abort", "exit"]);
 * ```
 */
export function createInterruptHandler(actions: InterruptActions): InterruptHandler {
  const windowMs = actions.windowMs ?? 2000;
  const echoMs = actions.echoMs ?? 100;
  const now = actions.now ?? Date.now;
  let last = -Infinity;
  return {
    handle: function onInterrupt() {
      const at = now();
      if (at - last < echoMs) return; // the same press, delivered twice
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
