/**
 * Watches running calls for their timeout and the run's abort: one abort listener and one
 * timer, armed for the earliest deadline among the calls being watched.
 *
 * @module
 */

import { keepLayout } from "./keep_layout.ts";
import { timerDelay } from "./timer_delay.ts";

/** Why a watched call was stopped. */
export type StopReason = "timeout" | "abort";

/** A watched call: what the watch stops when it must. */
export interface Stoppable {
  /** Called once, with why, if the call must stop before it settles (a throw is reported). */
  stop(reason: StopReason): void;
}

/** A call in the watch; give it back to {@linkcode CallWatch.remove} when the call settles. */
export interface Watcher {
  /** When the call must stop (`performance.now()` time; `Infinity` for never; `NaN` until stamped). */
  deadline: number;
  /** Its timeout, from which the deadline is stamped. */
  timeoutMs: number;
  /** The call, to stop. */
  call: Stoppable;
  /** Its neighbour before it in the watch's list (start order). */
  previous: Watcher | undefined;
  /** Its neighbour after it. */
  next: Watcher | undefined;
  /** Whether it is still in the list. */
  watched: boolean;
  /** The watch whose list it is in: another watch's `remove` leaves it alone. */
  readonly owner: CallWatch;
}

/**
 * Stops a call; a `stop` that throws is reported once the watch went on with the others (in
 * Deno a report no handler takes ends the process at once: the calls after it, a child
 * process each, say, would never be stopped).
 */
function stopCall(call: Stoppable, why: StopReason): void {
  try {
    call.stop(why);
  } catch (error) {
    queueMicrotask(() => reportError(error));
  }
}

/**
 * The watch of a run (or of one batch). `add` a call when it starts executing; `remove` what
 * `add` returned when it settles; `dispose` when the run is done.
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
 * watch.add(5, { stop: (why) => stopped.push(`a:${why}`) });
 * watch.add(5, { stop: (why) => stopped.push(`b:${why}`) });
 * await new Promise((resolve) => setTimeout(resolve, 20));
 * watch.dispose();
 * deepEqual(stopped, ["a:timeout", "b:timeout"]);
 * ```
 */
export class CallWatch {
  readonly #signal: AbortSignal;
  // The watched calls, oldest first: a doubly linked list, so a call that settles leaves it
  // in constant time without hashing (a Set cost a third of the watch, by hand).
  #first: Watcher | undefined;
  #last: Watcher | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;
  #listening = false;
  /** Calls started in this synchronous stretch, their deadlines not yet known. */
  readonly #unstamped: Watcher[] = [];

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
   * @param call Stopped once, with why, if it must stop before it settles.
   * @returns Its place in the watch: give it to `remove` when the call settles.
   */
  add(timeoutMs: number, call: Stoppable): Watcher {
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.addEventListener("abort", this.#onAbort);
    }
    const bounded = timeoutMs > 0 && Number.isFinite(timeoutMs);
    const watcher: Watcher = {
      // Stamped when the synchronous stretch that started it ends (#stamp).
      deadline: bounded ? Number.NaN : Infinity,
      timeoutMs,
      call,
      previous: this.#last,
      next: undefined,
      watched: true,
      owner: this,
    };
    if (this.#last) this.#last.next = watcher;
    else this.#first = watcher;
    this.#last = watcher;
    if (bounded) {
      this.#unstamped.push(watcher);
      if (this.#unstamped.length === 1) queueMicrotask(this.#stamp);
    }
    return watcher;
  }

  /**
   * Stops watching a call (it settled). Removing one twice, one the watch already stopped,
   * or one another watch added, does nothing.
   *
   * @param watcher What `add` returned.
   */
  remove(watcher: Watcher): void {
    if (!watcher.watched || watcher.owner !== this) return;
    watcher.watched = false;
    if (watcher.previous) watcher.previous.next = watcher.next;
    else this.#first = watcher.next;
    if (watcher.next) watcher.next.previous = watcher.previous;
    else this.#last = watcher.previous;
    // A call stopped for its timeout may never settle: it must not keep its neighbours alive.
    watcher.previous = watcher.next = undefined;
  }

  /** Stops the timer and the abort listener. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#takeAll();
    if (this.#listening) this.#signal.removeEventListener("abort", this.#onAbort);
    this.#listening = false;
  }

  /** The watched calls, oldest first. */
  #list(): Watcher[] {
    const watchers: Watcher[] = [];
    for (let watcher = this.#first; watcher; watcher = watcher.next) watchers.push(watcher);
    return watchers;
  }

  /** Stops watching every call; returns them, oldest first. */
  #takeAll(): Watcher[] {
    const watchers = this.#list();
    for (const watcher of watchers) {
      watcher.watched = false;
      watcher.previous = watcher.next = undefined;
    }
    this.#first = this.#last = undefined;
    return watchers;
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = deadline;
    // Past ~24.8 days the timer fires early: #onTimer finds nothing due and re-arms.
    this.#timer = setTimeout(this.#onTimer, timerDelay(Math.max(0, deadline - performance.now())));
  }

  /**
   * One clock reading for the calls a synchronous stretch started (a batch starts its calls
   * in one), taken when it ends: each call's deadline counts from a time after it started, so
   * it gets at least its full timeout. Calls that settled meanwhile are not stamped.
   */
  #stamp = (): void => {
    const now = performance.now();
    let first = Infinity;
    for (const watcher of this.#unstamped) {
      if (!watcher.watched) continue;
      watcher.deadline = now + watcher.timeoutMs;
      if (watcher.deadline < first) first = watcher.deadline;
    }
    this.#unstamped.length = 0;
    if (first < this.#armedFor) this.#arm(first);
  };

  #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    // Timers may fire a little early; a call within a millisecond of its deadline is due.
    const now = performance.now() + 1;
    let next = Infinity;
    for (const watcher of this.#list()) {
      if (!watcher.watched) continue; // settled as an earlier one was stopped
      if (watcher.deadline <= now) {
        this.remove(watcher);
        stopCall(watcher.call, "timeout");
      } else if (watcher.deadline < next) next = watcher.deadline;
    }
    if (next < this.#armedFor) this.#arm(next);
  };

  #onAbort = (): void => {
    for (const watcher of this.#takeAll()) stopCall(watcher.call, "abort");
  };

  static {
    // A run's signal gets an abort listener, which changes its layout too: keep one that has.
    keepLayout(new CallWatch(new AbortController().signal)).add(0, { stop: () => {} });
  }
}
