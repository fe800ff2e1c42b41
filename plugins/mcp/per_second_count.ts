/**
 * Counting events in one-second windows, to find a flood: more than a bound within one second.
 * A window begins at its first event; the clock is read only then and once the count passes the
 * bound, so counting costs an increment and a comparison.
 *
 * @module
 */

/**
 * Counts events in one-second windows. Each call counts one event and says whether it is more
 * than `most` within one second: a window begins at its first event, and once its count passes
 * `most` the clock tells whether a second has gone by since (then that event begins a new
 * window) or not (a flood). Windows are fixed, not sliding: a burst across the end of one
 * window and the start of the next may bring up to twice `most` in one second.
 *
 * @param most The most events one second may hold (`Infinity`: no bound).
 * @param now The clock, in ms (default `performance.now`).
 * @returns Counts one event; `true` when it is more than `most` within one second.
 *
 * @example Three events a second allowed
 * ```ts
 * import { perSecondCount } from "./per_second_count.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * let clock = 0;
 * const count = perSecondCount(3, () => clock);
 * const seen = [count(), count(), count()];
 * clock = 1_000; // a second after the window began: the next three begin a new one
 * seen.push(count(), count(), count());
 * clock = 1_999; // within a second of the new window's start: a fourth is one too many
 * seen.push(count());
 * deepEqual(seen, [false, false, false, false, false, false, true]);
 * ```
 */
export function perSecondCount(
  most: number,
  now: () => number = () => performance.now(),
): () => boolean {
  let start = 0;
  let count = 0;
  return () => {
    if (++count === 1) {
      start = now();
      return false;
    }
    if (count <= most) return false;
    const at = now();
    if (at - start < 1000) return true;
    start = at;
    count = 1;
    return false;
  };
}
