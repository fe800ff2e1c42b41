/**
 * Watches the running calls of one batch for their timeout and the run's abort, with one
 * abort listener per batch and one timer per distinct timeout among calls started
 * together, instead of a listener and a timer per call.
 *
 * @module
 */

/** Why a watched call was stopped. */
export type StopReason = "timeout" | "abort";

interface Watcher {
  stop: (reason: StopReason) => void;
  group: TimerGroup | undefined;
  /** When this call's own timeout ends (`performance.now()` time). */
  deadline: number;
}

interface TimerGroup {
  timeoutMs: number;
  handle: ReturnType<typeof setTimeout>;
  members: Set<Watcher>;
}

/**
 * The batch's watch. Calls `add` as they start; `seal` ends the group of calls that
 * started together (later calls get timers of their own); `dispose` when the batch is done.
 *
 * @example Two calls sharing one timer
 * ```ts
 * import { CallWatch } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const watch = new CallWatch(new AbortController().signal);
 * const stopped: string[] = [];
 * watch.add(5, (why) => stopped.push(`a:${why}`));
 * watch.add(5, (why) => stopped.push(`b:${why}`));
 * watch.seal();
 * await new Promise((resolve) => setTimeout(resolve, 20));
 * watch.dispose();
 * deepEqual(stopped, ["a:timeout", "b:timeout"]);
 * ```
 */
export class CallWatch {
  readonly #signal: AbortSignal;
  readonly #watchers = new Set<Watcher>();
  #open = new Map<number, TimerGroup>();
  readonly #all = new Set<TimerGroup>();
  #listening = false;

  /**
   * Creates the watch of one batch.
   *
   * @param signal The run's abort signal.
   */
  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  /**
   * Watches one running call.
   *
   * @param timeoutMs Its timeout (`Infinity` or 0 for none).
   * @param stop Called once, with why, if the call must stop before it settles.
   * @returns Call when the call settles, to stop watching it.
   */
  add(timeoutMs: number, stop: (reason: StopReason) => void): () => void {
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.addEventListener("abort", this.#onAbort);
    }
    const watcher: Watcher = { stop, group: undefined, deadline: Infinity };
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      watcher.deadline = performance.now() + timeoutMs;
      let group = this.#open.get(timeoutMs);
      if (!group) {
        group = this.#group(timeoutMs, timeoutMs);
        this.#open.set(timeoutMs, group);
      }
      group.members.add(watcher);
      watcher.group = group;
    }
    this.#watchers.add(watcher);
    return () => this.#remove(watcher);
  }

  /** Calls added after this get timers of their own (they did not start with the others). */
  seal(): void {
    if (this.#open.size > 0) this.#open = new Map();
  }

  /** Stops every timer and the abort listener. */
  dispose(): void {
    for (const group of this.#all) clearTimeout(group.handle);
    this.#all.clear();
    this.#open.clear();
    this.#watchers.clear();
    if (this.#listening) this.#signal.removeEventListener("abort", this.#onAbort);
    this.#listening = false;
  }

  #remove(watcher: Watcher): void {
    this.#watchers.delete(watcher);
    const group = watcher.group;
    if (!group) return;
    group.members.delete(watcher);
    if (group.members.size === 0) {
      clearTimeout(group.handle);
      this.#all.delete(group);
      if (this.#open.get(group.timeoutMs) === group) this.#open.delete(group.timeoutMs);
    }
  }

  #group(timeoutMs: number, delayMs: number): TimerGroup {
    const group: TimerGroup = {
      timeoutMs,
      members: new Set(),
      handle: setTimeout(() => this.#fire(group), delayMs),
    };
    this.#all.add(group);
    return group;
  }

  #fire(group: TimerGroup): void {
    this.#all.delete(group);
    if (this.#open.get(group.timeoutMs) === group) this.#open.delete(group.timeoutMs);
    const now = performance.now();
    for (const watcher of [...group.members]) {
      // A call that joined the group later than its first member still gets its full timeout.
      const left = watcher.deadline - now;
      if (left > 1) {
        const own = this.#group(group.timeoutMs, left);
        own.members.add(watcher);
        watcher.group = own;
      } else {
        watcher.stop("timeout");
      }
    }
  }

  #onAbort = (): void => {
    for (const watcher of [...this.#watchers]) watcher.stop("abort");
  };
}
