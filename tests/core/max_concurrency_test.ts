import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, throws } from "node:assert/strict";
import { deferred, recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

/** A tool whose calls each wait for the test to release them by key. */
function controlledTool(started: string[], running: { now: number; max: number }) {
  const releases = new Map<string, () => void>();
  const onStart: (() => void)[] = [];
  const tool = defineTool({
    name: "work",
    description: "Waits until released",
    parameters: Type.Object({ key: Type.String() }),
    async execute({ key }, { signal }) {
      started.push(key);
      running.now++;
      running.max = Math.max(running.max, running.now);
      const gate = deferred();
      releases.set(key, () => gate.resolve());
      for (const wake of onStart.splice(0)) wake();
      try {
        await new Promise<void>((resolve, reject) => {
          gate.promise.then(resolve);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      } finally {
        running.now--;
      }
      return { content: [{ type: "text", text: `done ${key}` }] };
    },
  });
  /** Resolves once `count` calls have started. */
  const startedCount = async (count: number) => {
    while (started.length < count) {
      const next = deferred();
      onStart.push(() => next.resolve());
      await next.promise;
    }
  };
  return { tool, releases, startedCount };
}

Deno.test("maxConcurrency: calls past the cap wait in call order; events and results keep their order", async () => {
  const started: string[] = [];
  const running = { now: 0, max: 0 };
  const { tool, releases, startedCount } = controlledTool(started, running);
  const calls = [
    toolCall("work", { key: "a" }, "1"),
    toolCall("banana", {}, "2"),
    toolCall("work", { key: "b" }, "3"),
    toolCall("work", {}, "4"),
    toolCall("work", { key: "c" }, "5"),
    toolCall("work", { key: "d" }, "6"),
  ];
  const model = scriptedModel([calls, [text("ok")]]);
  const agent = createAgent({ model, tools: [tool], maxConcurrency: 2 });
  const events = recordEvents(agent);
  const done = agent.prompt("go");

  await startedCount(2);
  deepEqual(started, ["a", "b"]);
  releases.get("b")!(); // the second finishes first: the next waiting call ("c") takes its lane
  await startedCount(3);
  deepEqual(started, ["a", "b", "c"]);
  releases.get("c")!();
  await startedCount(4);
  deepEqual(started, ["a", "b", "c", "d"]);
  releases.get("d")!();
  releases.get("a")!();
  const results = resultsOf(await done);

  equal(running.max, 2);
  deepEqual(results.map((r) => r.toolCallId), ["1", "2", "3", "4", "5", "6"]);
  deepEqual(results.map(textOf), [
    "done a",
    "Tool banana not found. Available tools: work",
    "done b",
    'Invalid arguments for tool "work":\n  - key: is required\nReceived arguments: {}',
    "done c",
    "done d",
  ]);
  // Every start comes before any execution (calls are prepared in order, as without a cap).
  const kinds = events
    .filter((e) => e.type === "tool_execution_start" || e.type === "tool_execution_end")
    .map((e) => `${e.type === "tool_execution_start" ? "start" : "end"} ${e.toolCallId}`);
  deepEqual(kinds, [
    "start 1",
    "start 2",
    "end 2",
    "start 3",
    "start 4",
    "end 4",
    "start 5",
    "start 6",
    "end 3",
    "end 5",
    "end 6",
    "end 1",
  ]);
});

Deno.test("maxConcurrency: a waiting call's timeout counts from when it starts; a stalled call frees its lane at its timeout", async () => {
  const order: string[] = [];
  const stall = defineTool({
    name: "stall",
    description: "Never answers",
    parameters: Type.Object({}),
    timeoutMs: 30,
    execute: () => {
      order.push("stall");
      return new Promise<never>(() => {});
    },
  });
  const slow = defineTool({
    name: "slow",
    description: "Answers after 80 ms",
    parameters: Type.Object({}),
    execute: async () => {
      order.push("slow");
      await new Promise((resolve) => setTimeout(resolve, 80));
      return { content: [{ type: "text", text: "slow done" }] };
    },
  });
  const quick = defineTool({
    name: "quick",
    description: "Answers at once, with a short timeout",
    parameters: Type.Object({}),
    timeoutMs: 40,
    execute: async () => {
      order.push("quick");
      await Promise.resolve();
      return { content: [{ type: "text", text: "quick done" }] };
    },
  });
  const model = scriptedModel([
    [toolCall("stall", {}, "1"), toolCall("slow", {}, "2"), toolCall("quick", {}, "3")],
    [text("ok")],
  ]);
  const agent = createAgent({ model, tools: [stall, slow, quick], maxConcurrency: 1 });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(order, ["stall", "slow", "quick"]);
  // "quick" waited well past its 40 ms timeout (30 ms + 80 ms) but only runs for a moment.
  deepEqual(results.map(textOf), [
    "Tool stall timed out after 30 ms and was stopped",
    "slow done",
    "quick done",
  ]);
  deepEqual(results.map((r) => r.isError), [true, false, false]);
});

Deno.test("maxConcurrency: abort while calls wait: waiting calls never start and get the abort result", async () => {
  const started: string[] = [];
  const running = { now: 0, max: 0 };
  const { tool, startedCount } = controlledTool(started, running);
  const model = scriptedModel([
    [
      toolCall("work", { key: "a" }, "1"),
      toolCall("work", { key: "b" }, "2"),
      toolCall("work", { key: "c" }, "3"),
    ],
    [text("never")],
  ]);
  const agent = createAgent({ model, tools: [tool], maxConcurrency: 1 });
  const events = recordEvents(agent);
  const done = agent.prompt("go");
  await startedCount(1);
  agent.abort();
  const results = resultsOf(await done);
  deepEqual(started, ["a"]);
  deepEqual(results.map((r) => r.toolCallId), ["1", "2", "3"]);
  deepEqual(results.map(textOf), [
    "Tool work was aborted while running",
    "Tool work was not run: the run was aborted before it started",
    "Tool work was not run: the run was aborted before it started",
  ]);
  equal(events.filter((e) => e.type === "tool_execution_end").length, 3);
  equal(model.requests.length, 1);
});

Deno.test("maxConcurrency must be a positive integer", async () => {
  const model = scriptedModel([[text("hi")]]);
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    throws(
      () => createAgent({ model, maxConcurrency: bad }),
      new RangeError(`Cannot create agent: maxConcurrency must be a positive integer (got ${bad})`),
    );
  }
  equal((await createAgent({ model, maxConcurrency: 3 }).prompt("x")).length, 2);
});

Deno.test("maxConcurrency 1: a long batch of synchronous calls runs one after another without nesting", async () => {
  const count = 30_000;
  const order: number[] = [];
  const tool = defineTool({
    name: "tick",
    description: "Answers at once",
    parameters: Type.Object({ n: Type.Number() }),
    execute: ({ n }) => {
      order.push(n);
      return { content: [{ type: "text", text: String(n) }] };
    },
  });
  const calls = Array.from({ length: count }, (_, n) => toolCall("tick", { n }, `c${n}`));
  const agent = createAgent({
    model: scriptedModel([calls, [text("ok")]]),
    tools: [tool],
    maxConcurrency: 1,
    maxResultChars: Infinity,
  });
  await agent.prompt("go");
  equal(order.length, count);
  equal(order.every((n, i) => n === i), true);
  const results = resultsOf(agent.messages);
  equal(results.length, count);
  equal(results.every((r) => !r.isError), true);
});
