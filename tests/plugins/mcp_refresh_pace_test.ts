/**
 * refreshPace on a fake clock: how long each announced refresh waits after the last one
 * ended, as the gap doubles while announcements keep coming and resets once they calm.
 */

import { refreshPace } from "../../plugins/mcp/refresh_pace.ts";
import { deepEqual } from "node:assert/strict";

/**
 * Runs `body` with `performance.now()` reading a fake clock and `setTimeout` moving that
 * clock on by its delay (and recording the delay) before it fires.
 */
async function onFakeClock(
  body: (clock: { now: number; waits: number[] }) => Promise<void>,
): Promise<void> {
  const clock = { now: 1_000_000, waits: [] as number[] };
  const realNow = performance.now;
  const realSetTimeout = globalThis.setTimeout;
  performance.now = () => clock.now;
  globalThis.setTimeout = ((callback: () => void, ms: number) => {
    clock.waits.push(ms);
    clock.now += ms;
    return realSetTimeout(callback, 0);
  }) as typeof setTimeout;
  try {
    await body(clock);
  } finally {
    performance.now = realNow;
    globalThis.setTimeout = realSetTimeout;
  }
}

const signal = new AbortController().signal;

Deno.test("refreshPace: a server announcing after every listing waits a gap that doubles, up to the most", () =>
  onFakeClock(async (clock) => {
    const pace = refreshPace(100, 500);
    await pace.wait(clock.now, signal); // the first: at once
    for (let i = 0; i < 5; i++) {
      pace.ended();
      await pace.wait(clock.now, signal); // announced as soon as the listing ended
    }
    deepEqual(clock.waits, [100, 200, 400, 500, 500]);
  }));

Deno.test("refreshPace: a refresh announced a gap or more after the last end starts at once and resets the gap", () =>
  onFakeClock(async (clock) => {
    const pace = refreshPace(100, 500);
    pace.ended();
    await pace.wait(clock.now, signal); // 100
    pace.ended();
    await pace.wait(clock.now, signal); // 200
    pace.ended();
    clock.now += 400; // calm for the whole gap (doubled to 400)
    await pace.wait(clock.now, signal); // at once; the gap is 100 again
    pace.ended();
    await pace.wait(clock.now, signal);
    deepEqual(clock.waits, [100, 200, 100]);
  }));

Deno.test("refreshPace: an announcement part-way through the gap waits only for what is left of it", () =>
  onFakeClock(async (clock) => {
    const pace = refreshPace(100, 500);
    pace.ended();
    clock.now += 30;
    await pace.wait(clock.now, signal);
    deepEqual(clock.waits, [70]);
  }));
