/**
 * The pace of tool list refreshes started by a server's `notifications/tools/list_changed`: a
 * server that announced a change after every listing kept the host listing its tools without
 * a pause (~60 listings a second, more than a core).
 *
 * @module
 */

import { sleep } from "../../sdk/sleep.ts";

/** The least time from one refresh's end to the start of the next one announced, in ms. */
const REFRESH_GAP_MS = 1_000;
/** The most that time grows to while a server keeps announcing changes, in ms. */
const MAX_REFRESH_GAP_MS = 30_000;

/** When announced refreshes may start. */
export interface RefreshPace {
  /**
   * Waits until a refresh announced at `asked` may start: at once when the last refresh ended
   * at least the gap before `asked` (calm: the gap is reset to {@linkcode REFRESH_GAP_MS});
   * else until the gap after that end has passed, and the gap doubles (up to
   * {@linkcode MAX_REFRESH_GAP_MS}).
   *
   * @param asked When the change was announced (a `performance.now()` time).
   * @param signal Ends the wait early.
   */
  wait(asked: number, signal: AbortSignal): Promise<void>;
  /** Says a refresh ended (done or failed), now. */
  ended(): void;
}

/**
 * A new pace: a burst of announcements lists the tools at once and again a second after, and
 * a server that announces a change after every listing is listed 1, 2, 4, … up to 30 s apart.
 *
 * @param minMs The gap when calm.
 * @param maxMs The most the gap grows to.
 * @returns The pace.
 *
 * @example Two announced refreshes close together
 * ```ts
 * import { refreshPace } from "./refresh_pace.ts";
 * import { ok } from "node:assert/strict";
 *
 * const pace = refreshPace(50, 400);
 * const signal = new AbortController().signal;
 * await pace.wait(performance.now(), signal); // calm: at once
 * pace.ended();
 * const started = performance.now();
 * await pace.wait(started, signal); // 50 ms after the end
 * ok(performance.now() - started >= 45);
 * ```
 */
export function refreshPace(minMs = REFRESH_GAP_MS, maxMs = MAX_REFRESH_GAP_MS): RefreshPace {
  let lastEnd = -Infinity;
  let gapMs = minMs;
  return {
    async wait(asked, signal) {
      if (asked - lastEnd >= gapMs) {
        gapMs = minMs;
        return;
      }
      await sleep(lastEnd + gapMs - performance.now(), signal);
      gapMs = Math.min(gapMs * 2, maxMs);
    },
    ended() {
      lastEnd = performance.now();
    },
  };
}
