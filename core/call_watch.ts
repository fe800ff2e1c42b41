/**
 * Watches running calls for their timeout and the run's abort: one abort listener and one
 * timer, armed for the earliest deadline among the calls being watched.
 *
 * @module
 */

/** Why a watched call was stopped. */
export type StopReason = "timeout" | "abort";

interface Watcher {
  /** When the call must stop (`performance.now()` time; `Infinity` for never). */
  deadline: number;
  stop: (reason: StopReason) => void;
}

/**
 * The watch of a run (or of one batch). `add` a call when it starts executing; call the
 * function `add` returns when it settles; `dispose` when the run is done.
 *
 * The timer is armed for the earliest deadline; when it fires it stops every call past its
 * deadline and re-arms for the next one. Calls that start together with the same timeout
 * share one timer without any grouping: only a call whose deadline is earlier than the
 * armed one re-arms it.
 *
 * @example Two calls, one timer
 * ```ts
 * import { CallWatch } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const watch = new CallWatch(new AbortController().signal);
 * const stopped: string[] = [];
 * watch.add(5, (why) => stopped.push(`a:${why}`));
 * watch.add(5, (why) => stopped.push(`b:${why}`));
 * await new Promise((resolve) => setTimeout(resolve, 20));
 * watch.dispose();
 * deepEqual(stopped, ["a:timeout", "b:timeout"]);
 * ```
 */
export class CallWatch {
  readonly #signal: AbortSignal;
  readonly #watchers = new Set<Watcher>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;
  #listening = false;

  /**
   * Creates a watch.
   *
   * @param signal The run's abort signal.
   */
  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  /**
   * Watches one running call.
   *
   * @param timeoutMs Its timeout (`Infinity` or 0 for none), counted from now.
   * @param stop Called once, with why, if the call must stop before it settles.
   * @returns Call when the call settles, to stop watching it.
   */
  add(timeoutMs: number, stop: (reason: StopReason) => void): () => void {
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.addEventListener("abort", this.#onAbort);
    }
    const deadline = timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? performance.now() + timeoutMs
      : Infinity;
    const watcher: Watcher = { deadline, stop };
    this.#watchers.add(watcher);
    if (deadline < this.#armedFor) this.#arm(deadline);
    return () => void this.#watchers.delete(watcher);
  }

  /** Stops the timer and the abort listener. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#watchers.clear();
    if (this.#listening) this.#signal.removeEventListener("abort", this.#onAbort);
    this.#listening = false;
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = setTimeout(this.#onTimer, Math.max(0, deadline - performance.now()));
  }

  #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    // Timers may fire a little early; a call within a millisecond of its deadline is due.
    const now = performance.now() + 1;
    let next = Infinity;
    for (const watcher of [...this.#watchers]) {
      if (watcher.deadline <= now) {
        this.#watchers.delete(watcher);
        watcher.stop("timeout");
      } else if (watcher.deadline < next) next = watcher.deadline;
    }
    if (next < this.#armedFor) this.#arm(next);
  };

  #onAbort = (): void => {
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const watcher of watchers) watcher.stop("abort");
  };
}
