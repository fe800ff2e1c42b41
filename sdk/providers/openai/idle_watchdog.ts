/**
 * Aborts a request when no data has arrived for a while.
 *
 * @module
 */

/**
 * A timer that aborts `controller` after `ms` without a `touch()`. With no `ms` it does
 * nothing. Armed on creation; `stop()` disarms it.
 *
 * @example
 * ```ts
 * import { IdleWatchdog } from "./idle_watchdog.ts";
 * import { equal } from "node:assert/strict";
 *
 * const controller = new AbortController();
 * const watchdog = new IdleWatchdog(5, controller);
 * await new Promise((resolve) => setTimeout(resolve, 30));
 * equal(watchdog.fired, true);
 * equal(controller.signal.aborted, true);
 * ```
 */
export class IdleWatchdog {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #fired = false;
  readonly #ms: number | undefined;
  readonly #controller: AbortController;

  /**
   * Arms the watchdog.
   *
   * @param ms The idle time allowed, or `undefined` for none.
   * @param controller What to abort when it passes.
   */
  constructor(ms: number | undefined, controller: AbortController) {
    this.#ms = ms;
    this.#controller = controller;
    this.touch();
  }

  /** Whether the idle time passed and the request was aborted. */
  get fired(): boolean {
    return this.#fired;
  }

  /** Data arrived: restart the timer. */
  readonly touch = (): void => {
    if (this.#ms === undefined || this.#fired) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#fired = true;
      this.#controller.abort();
    }, this.#ms);
  };

  /** Disarms the watchdog. */
  stop(): void {
    clearTimeout(this.#timer);
  }
}
