/**
 * A call's progress at a bounded rate: the first at once, then at most one every interval,
 * always the latest, so a flood of progress (an MCP server's notifications, a command's
 * output) does not become a flood of events, and the last one is never lost.
 *
 * @module
 */

/** The interval between two progress updates of one call, by default. */
const PROGRESS_INTERVAL_MS = 100;

/** What {@linkcode paceProgress} returns. */
export interface PacedProgress<T> {
  /** Takes a progress; it is delivered now, or kept (replacing the one kept) until it is time. */
  push(progress: T): void;
  /** Delivers the progress kept, if any, now (when the call ends); stops the timer. */
  flush(): void;
}

/**
 * Paces one call's progress: the first is delivered at once; a later one within `intervalMs` of
 * the last delivery is kept, replacing any kept before it, and delivered when the interval has
 * passed (one timer at a time) or at `flush()`.
 *
 * @param deliver Receives the progress to show.
 * @param intervalMs The least time between two deliveries (default
 * {@linkcode PROGRESS_INTERVAL_MS}; 0 delivers each).
 * @returns The pacer.
 *
 * @example Three at once: the first now, the last at the end
 * ```ts
 * import { paceProgress } from "./pace_progress.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const shown: number[] = [];
 * const pacer = paceProgress((n: number) => shown.push(n), 60_000);
 * pacer.push(1);
 * pacer.push(2);
 * pacer.push(3);
 * deepEqual(shown, [1]);
 * pacer.flush();
 * deepEqual(shown, [1, 3]);
 * ```
 */
export function paceProgress<T>(
  deliver: (progress: T) => void,
  intervalMs: number = PROGRESS_INTERVAL_MS,
): PacedProgress<T> {
  let last = -Infinity;
  let kept = false;
  let latest: T;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    clearTimeout(timer);
    timer = undefined;
    kept = false;
    last = performance.now();
    deliver(latest);
  };
  return {
    push(progress) {
      latest = progress;
      kept = true;
      if (timer !== undefined) return;
      const wait = last + intervalMs - performance.now();
      if (wait <= 0) send();
      else timer = setTimeout(send, wait);
    },
    flush() {
      if (kept) send();
    },
  };
}
