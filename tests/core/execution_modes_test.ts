import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { deferred, gatedTool, recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

function gates(keys: string[]) {
  const opened = new Map<string, ReturnType<typeof deferred<void>>>();
  for (const key of keys) opened.set(key, deferred<void>());
  const promises = new Map([...opened].map(([k, d]) => [k, d.promise]));
  return { promises, open: (key: string) => opened.get(key)!.resolve() };
}

Deno.test("parallel: all calls start before any ends; ends in completion order, results in call order", async () => {
  const log: string[] = [];
  const { promises, open } = gates(["a", "b", "c"]);
  const model = scriptedModel([
    [
      toolCall("wait", { key: "a" }, "a"),
      toolCall("wait", { key: "b" }, "b"),
      toolCall("wait", { key: "c" }, "c"),
    ],
    [text("done")],
  ]);
  const agent = createAgent({ model, tools: [gatedTool("wait", log, promises)] });
  const events = recordEvents(agent);
  const running = agent.prompt("go");
  // Open the gates in the order c, a, b once all three have started.
  while (log.length < 3) await new Promise((r) => setTimeout(r, 1));
  deepEqual(log, ["start a", "start b", "start c"]);
  for (const key of ["c", "a", "b"]) {
    open(key);
    while (!log.includes(`end ${key}`)) await new Promise((r) => setTimeout(r, 1));
  }
  const added = await running;
  const ends = events.filter((e) => e.type === "tool_execution_end").map((e) =>
    (e as { toolCallId: string }).toolCallId
  );
  deepEqual(ends, ["c", "a", "b"]);
  deepEqual(resultsOf(added).map((r) => r.toolCallId), ["a", "b", "c"]);
  const resultMessageStarts = events
    .filter((e) => e.type === "message_start" && e.message.role === "toolResult")
    .map((e) => (e as { message: { toolCallId: string } }).message.toolCallId);
  deepEqual(resultMessageStarts, ["a", "b", "c"]);
});

async function runSequentialBatch(options: { config?: boolean; perTool?: boolean }) {
  const log: string[] = [];
  const { promises, open } = gates(["a", "b"]);
  for (const key of ["a", "b"]) open(key);
  const calls = [toolCall("wait", { key: "a" }), toolCall("other", { key: "b" })];
  const agent = createAgent({
    model: scriptedModel([calls, [text("done")]]),
    tools: [
      gatedTool("wait", log, promises),
      gatedTool("other", log, promises, options.perTool ? { executionMode: "sequential" } : {}),
    ],
    toolExecution: options.config ? "sequential" : "parallel",
  });
  await agent.prompt("go");
  return log;
}

Deno.test("sequential by config: each call finishes before the next starts", async () => {
  deepEqual(await runSequentialBatch({ config: true }), ["start a", "end a", "start b", "end b"]);
});

Deno.test("sequential by any one tool's executionMode: the whole batch runs in order", async () => {
  deepEqual(await runSequentialBatch({ perTool: true }), ["start a", "end a", "start b", "end b"]);
});

Deno.test("parallel by default: the second call starts before the first ends", async () => {
  deepEqual(await runSequentialBatch({}), ["start a", "start b", "end a", "end b"]);
});

Deno.test("sequential: the event order interleaves start, end and result per call", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("s", {}, "1"), toolCall("s", {}, "2")], [text("done")]]),
    tools: [defineTool({
      name: "s",
      description: "",
      parameters: Type.Object({}),
      executionMode: "sequential",
      execute: () => ({ content: [{ type: "text", text: "ok" }] }),
    })],
  });
  const events = recordEvents(agent);
  await agent.prompt("go");
  const seq = events
    .filter((e) =>
      e.type.startsWith("tool_execution") ||
      (e.type === "message_start" && e.message.role === "toolResult")
    )
    .map((e) => e.type === "message_start" ? "result" : e.type.replace("tool_execution_", ""));
  deepEqual(seq, ["start", "end", "result", "start", "end", "result"]);
});

Deno.test("an update from a running tool becomes a tool_execution_update event", async () => {
  const progress = defineTool({
    name: "progress",
    description: "",
    parameters: Type.Object({}),
    execute: (_params, { update }) => {
      update?.({ content: [{ type: "text", text: "half way" }] });
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("progress", {}, "p")], [text("ok")]]),
    tools: [progress],
  });
  const events = recordEvents(agent);
  await agent.prompt("go");
  const updates = events.filter((e) => e.type === "tool_execution_update");
  deepEqual(updates, [{
    type: "tool_execution_update",
    toolCallId: "p",
    toolName: "progress",
    partialResult: { content: [{ type: "text", text: "half way" }] },
  }]);
});

Deno.test("a batch where every result asks to terminate ends the run without another model turn", async () => {
  const stop = defineTool({
    name: "stop",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "stopping" }], terminate: true }),
  });
  const model = scriptedModel([[toolCall("stop"), toolCall("stop")], [text("never")]]);
  const agent = createAgent({ model, tools: [stop] });
  const added = await agent.prompt("go");
  equal(model.requests.length, 1);
  equal(textOf(resultsOf(added)[1]), "stopping");
});
