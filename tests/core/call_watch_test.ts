import { CallWatch } from "@tack/agent";
import { deepEqual } from "node:assert/strict";
import { deferred } from "../support/agent_harness.ts";

Deno.test("CallWatch: a later call with an earlier deadline re-arms the one timer; the other call keeps running", async () => {
  const watch = new CallWatch(new AbortController().signal);
  const stopped: string[] = [];
  const quickStopped = deferred();
  watch.add(60_000, (why) => stopped.push(`slow:${why}`));
  watch.add(5, (why) => {
    stopped.push(`quick:${why}`);
    quickStopped.resolve();
  });
  // Were the timer still armed for the first deadline, both would stop together, a minute later.
  await quickStopped.promise;
  deepEqual(stopped, ["quick:timeout"]);
  watch.dispose();
});

Deno.test("CallWatch: abort stops every watched call once; a settled call and a disposed watch are left alone", () => {
  const controller = new AbortController();
  const watch = new CallWatch(controller.signal);
  const stopped: string[] = [];
  const unwatch = watch.add(60_000, (why) => stopped.push(`a:${why}`));
  watch.add(0, (why) => stopped.push(`b:${why}`));
  watch.add(Infinity, (why) => stopped.push(`c:${why}`));
  unwatch();
  controller.abort();
  controller.signal.dispatchEvent(new Event("abort"));
  deepEqual(stopped, ["b:abort", "c:abort"]);
  watch.dispose();

  const later = new AbortController();
  const disposed = new CallWatch(later.signal);
  disposed.add(60_000, (why) => stopped.push(`d:${why}`));
  disposed.dispose();
  later.abort();
  deepEqual(stopped, ["b:abort", "c:abort"]);
});
