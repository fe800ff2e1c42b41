import { createAgent, definePlugin, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

Deno.test("a batch mixing every failure kind gets exactly one result per call, in call order", async () => {
  const ok = defineTool({
    name: "ok",
    description: "",
    parameters: Type.Object({ n: Type.Number() }),
    execute: ({ n }) => ({ content: [{ type: "text", text: `n=${n}` }] }),
  });
  const throws = defineTool({
    name: "throws",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      throw new Error("exploded");
    },
  });
  const stall = defineTool({
    name: "stall",
    description: "",
    parameters: Type.Object({}),
    timeoutMs: 20,
    execute: () => new Promise<never>(() => {}),
  });
  const guard = definePlugin({
    name: "guard",
    beforeToolCall: (
      { args },
    ) => (args.n === 13 ? { block: true, reason: "13 is unlucky" } : undefined),
  });
  const brokenHook = definePlugin({
    name: "flaky",
    beforeToolCall: ({ args }) => {
      if (args.n === 99) throw new Error("policy service down");
    },
  });
  const calls = [
    toolCall("ok", { n: 1 }, "1"),
    toolCall("banana", {}, "2"),
    toolCall("ok", { n: "many" }, "3"),
    toolCall("ok", { n: 13 }, "4"),
    toolCall("throws", {}, "5"),
    toolCall("stall", {}, "6"),
    toolCall("ok", { n: 99 }, "7"),
    toolCall("ok", { n: "2" }, "8"),
  ];
  const model = scriptedModel([calls, [text("read them all")]]);
  const agent = createAgent({ model, tools: [ok, throws, stall], plugins: [guard, brokenHook] });
  const events = recordEvents(agent);
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map((r) => r.toolCallId), ["1", "2", "3", "4", "5", "6", "7", "8"]);
  deepEqual(results.map((r) => r.isError), [false, true, true, true, true, true, true, false]);
  deepEqual(results.map(textOf), [
    "n=1",
    "Tool banana not found. Available tools: ok, throws, stall",
    'Invalid arguments for tool "ok":\n  - n: must be number (received "many")\nReceived arguments: {"n":"many"}',
    "13 is unlucky",
    "exploded",
    "Tool stall timed out after 20 ms and was stopped",
    'Tool ok was blocked: plugin "flaky" failed in beforeToolCall: policy service down',
    "n=2",
  ]);
  equal(events.filter((e) => e.type === "tool_execution_start").length, 8);
  equal(events.filter((e) => e.type === "tool_execution_end").length, 8);
  // The model saw every result in its next turn.
  equal(model.requests[1].messages.filter((m) => m.role === "toolResult").length, 8);
});
