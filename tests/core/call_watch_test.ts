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

Deno.test("CallWatch: a call that settles from the middle leaves the others watched, in start order", () => {
  const controller = new AbortController();
  const watch = new CallWatch(controller.signal);
  const stopped: string[] = [];
  watch.add(60_000, (why) => stopped.push(`a:${why}`));
  const unwatchB = watch.add(60_000, (why) => stopped.push(`b:${why}`));
  watch.add(60_000, (why) => stopped.push(`c:${why}`));
  const unwatchD = watch.add(60_000, (why) => stopped.push(`d:${why}`));
  unwatchB();
  unwatchB(); // twice is harmless
  unwatchD(); // the newest
  watch.add(60_000, (why) => stopped.push(`e:${why}`));
  controller.abort();
  deepEqual(stopped, ["a:abort", "c:abort", "e:abort"]);
  watch.dispose();
});

Deno.test("CallWatch: a call that settles while another is stopped for its timeout is not stopped too", async () => {
  const watch = new CallWatch(new AbortController().signal);
  const stopped: string[] = [];
  const done = deferred();
  let unwatchB = () => {};
  watch.add(5, (why) => {
    stopped.push(`a:${why}`);
    unwatchB(); // b settles as a is stopped (its result arrived meanwhile)
  });
  unwatchB = watch.add(5, (why) => stopped.push(`b:${why}`));
  watch.add(10, (why) => {
    stopped.push(`c:${why}`);
    done.resolve();
  });
  await done.promise;
  deepEqual(stopped, ["a:timeout", "c:timeout"]);
  watch.dispose();
});
