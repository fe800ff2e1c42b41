/**
 * The delay a timer can be given: `setTimeout` fires at once for more than 2^31 - 1 ms.
 *
 * @module
 */

/** The longest delay `setTimeout` takes (~24.8 days); a longer one would fire at once. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * A delay `setTimeout` honours: `ms`, or the longest it takes when `ms` is longer. A timer
 * for a longer wait fires early, once every ~24.8 days, and its owner checks the clock.
 *
 * @param ms The wanted delay (0 or more).
 * @returns The delay to give `setTimeout`.
 *
 * @example
 * ```ts
 * import { timerDelay } from "./timer_delay.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(timerDelay(5), 5);
 * equal(timerDelay(30 * 24 * 3600 * 1000), 2_147_483_647);
 * ```
 */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
