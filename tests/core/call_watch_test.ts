import { CallWatch } from "@tack/agent";
import { deepEqual } from "node:assert/strict";
import { deferred } from "../support/agent_harness.ts";

Deno.test("CallWatch: a later call with an earlier deadline re-arms the one timer; the other call keeps running", async () => {
  const watch = new CallWatch(new AbortController().signal);
  const stopped: string[] = [];
  const quickStopped = deferred();
  watch.add(60_000, { stop: (why) => stopped.push(`slow:${why}`) });
  watch.add(5, {
    stop: (why) => {
      stopped.push(`quick:${why}`);
      quickStopped.resolve();
    },
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
  const a = watch.add(60_000, { stop: (why) => stopped.push(`a:${why}`) });
  watch.add(0, { stop: (why) => stopped.push(`b:${why}`) });
  watch.add(Infinity, { stop: (why) => stopped.push(`c:${why}`) });
  watch.remove(a);
  controller.abort();
  controller.signal.dispatchEvent(new Event("abort"));
  deepEqual(stopped, ["b:abort", "c:abort"]);
  watch.dispose();

  const later = new AbortController();
  const disposed = new CallWatch(later.signal);
  disposed.add(60_000, { stop: (why) => stopped.push(`d:${why}`) });
  disposed.dispose();
  later.abort();
  deepEqual(stopped, ["b:abort", "c:abort"]);
});

Deno.test("CallWatch: a call that settles from the middle leaves the others watched, in start order", () => {
  const controller = new AbortController();
  const watch = new CallWatch(controller.signal);
  const stopped: string[] = [];
  watch.add(60_000, { stop: (why) => stopped.push(`a:${why}`) });
  const b = watch.add(60_000, { stop: (why) => stopped.push(`b:${why}`) });
  watch.add(60_000, { stop: (why) => stopped.push(`c:${why}`) });
  const d = watch.add(60_000, { stop: (why) => stopped.push(`d:${why}`) });
  watch.remove(b);
  watch.remove(b); // twice is harmless
  watch.remove(d); // the newest
  watch.add(60_000, { stop: (why) => stopped.push(`e:${why}`) });
  controller.abort();
  deepEqual(stopped, ["a:abort", "c:abort", "e:abort"]);
  watch.dispose();
});

Deno.test("CallWatch: a call that settles while another is stopped for its timeout is not stopped too", async () => {
  const watch = new CallWatch(new AbortController().signal);
  const stopped: string[] = [];
  const done = deferred();
  watch.add(5, {
    stop: (why) => {
      stopped.push(`a:${why}`);
      watch.remove(b); // b settles as a is stopped (its result arrived meanwhile)
    },
  });
  const b = watch.add(5, { stop: (why) => stopped.push(`b:${why}`) });
  watch.add(10, {
    stop: (why) => {
      stopped.push(`c:${why}`);
      done.resolve();
    },
  });
  await done.promise;
  deepEqual(stopped, ["a:timeout", "c:timeout"]);
  watch.dispose();
});

Deno.test("CallWatch: a call whose stop throws does not keep the others from being stopped", async () => {
  const reported: string[] = [];
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    reported.push(String(event.error?.message));
  };
  globalThis.addEventListener("error", onError);
  try {
    for (const why of ["timeout", "abort"] as const) {
      const controller = new AbortController();
      const watch = new CallWatch(controller.signal);
      const stopped: string[] = [];
      const done = deferred();
      watch.add(5, {
        stop: () => {
          throw new Error(`stop threw on ${why}`);
        },
      });
      watch.add(5, { stop: (reason) => stopped.push(`b:${reason}`) });
      watch.add(20, {
        stop: (reason) => {
          stopped.push(`c:${reason}`);
          done.resolve();
        },
      });
      if (why === "abort") controller.abort();
      await done.promise;
      watch.dispose();
      deepEqual(stopped, [`b:${why}`, `c:${why}`]);
    }
    deepEqual(reported, ["stop threw on timeout", "stop threw on abort"]);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});

Deno.test("CallWatch: removing another watch's watcher leaves both watches as they were", () => {
  const controller = new AbortController();
  const one = new CallWatch(controller.signal);
  const other = new CallWatch(controller.signal);
  const stopped: string[] = [];
  const x = one.add(0, { stop: () => stopped.push("x") });
  other.add(0, { stop: () => stopped.push("y") });
  other.remove(x); // before: `other` lost its own call and took `one`'s list
  controller.abort();
  deepEqual(stopped.sort(), ["x", "y"]);
  one.dispose();
  other.dispose();
});

Deno.test("CallWatch: with no error handler (Deno's default: a report ends the process), the calls after a throwing stop are stopped first", async () => {
  const script = `
    import { CallWatch } from ${
    JSON.stringify(new URL("../../core/call_watch.ts", import.meta.url).href)
  };
    const controller = new AbortController();
    const watch = new CallWatch(controller.signal);
    watch.add(60_000, { stop: () => { throw new Error("first stop threw"); } });
    watch.add(60_000, { stop: () => console.log("second stopped") });
    controller.abort();
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  // The second call's stop (a child process killed, say) ran before the report ended the process.
  deepEqual(out.trim(), "second stopped");
  deepEqual([code !== 0, new TextDecoder().decode(stderr).includes("first stop threw")], [
    true,
    true,
  ]);
});
