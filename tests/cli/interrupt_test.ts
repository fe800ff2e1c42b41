import { deepEqual } from "node:assert/strict";
import { createInterruptHandler } from "../../cli/interrupt.ts";

function harness(running: boolean) {
  const calls: string[] = [];
  let clock = 0;
  const handler = createInterruptHandler({
    abort: () => {
      calls.push("abort");
      return running;
    },
    exit: () => calls.push("exit"),
    notice: (text) => calls.push(`notice:${text}`),
    windowMs: 2000,
    now: () => clock,
  });
  return {
    calls,
    handler: handler.handle,
    reset: handler.reset,
    advance: (ms: number) => (clock += ms),
  };
}

Deno.test("the first Ctrl-C aborts the run and says a second one exits", () => {
  const { calls, handler } = harness(true);
  handler();
  deepEqual(calls, ["abort", "notice:Aborting the run. Press Ctrl-C again to exit."]);
});

Deno.test("a second Ctrl-C within the window exits", () => {
  const { calls, handler, advance } = harness(true);
  handler();
  advance(1999);
  handler();
  deepEqual(calls.at(-1), "exit");
  deepEqual(calls.filter((c) => c === "abort").length, 1);
});

Deno.test("a second Ctrl-C after the window is a first one again", () => {
  const { calls, handler, advance } = harness(false);
  handler();
  advance(2001);
  handler();
  deepEqual(calls, [
    "abort",
    "notice:Press Ctrl-C again to exit.",
    "abort",
    "notice:Press Ctrl-C again to exit.",
  ]);
});

Deno.test("after a reset (a new run started) the next press is a first one", () => {
  const { calls, handler, reset } = harness(true);
  handler();
  reset();
  handler();
  deepEqual(calls.filter((c) => c === "exit"), []);
  deepEqual(calls.filter((c) => c === "abort").length, 2);
});

Deno.test("presses within 100 ms of the first are one press (deno task forwards SIGINT too)", () => {
  const { calls, handler, advance } = harness(true);
  handler();
  advance(5);
  handler();
  advance(94);
  handler();
  deepEqual(calls, ["abort", "notice:Aborting the run. Press Ctrl-C again to exit."]);
  advance(1);
  handler();
  deepEqual(calls.at(-1), "exit");
});
