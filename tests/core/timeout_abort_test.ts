import { createAgent, definePlugin, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, ok } from "node:assert/strict";
import { deferred, recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

function stalledTool(name: string, seen: { aborted: boolean[] }, timeoutMs?: number) {
  return defineTool({
    name,
    description: "Never finishes on its own",
    parameters: Type.Object({}),
    timeoutMs,
    execute: (_params, { signal }) =>
      new Promise<never>((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          seen.aborted.push(true);
          reject(signal.reason);
        });
      }),
  });
}

const quick = defineTool({
  name: "quick",
  description: "",
  parameters: Type.Object({}),
  execute: () => ({ content: [{ type: "text", text: "quick done" }] }),
});

Deno.test("a stalled call ends at its timeout with an error result; the batch is not held", async () => {
  const seen = { aborted: [] as boolean[] };
  const model = scriptedModel([[toolCall("stall", {}, "s"), toolCall("quick", {}, "q")], [
    text("ok"),
  ]]);
  const agent = createAgent({
    model,
    tools: [stalledTool("stall", seen), quick],
    toolTimeoutMs: 30,
  });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map((r) => [r.toolCallId, r.isError, textOf(r)]), [
    ["s", true, "Tool stall timed out after 30 ms and was stopped"],
    ["q", false, "quick done"],
  ]);
  deepEqual(results[0].details, { reason: "timeout", timeoutMs: 30 });
  deepEqual(seen.aborted, [true], "the tool's signal was aborted so it can clean up");
  equal(model.requests.length, 2, "the model read the timeout and answered");
});

Deno.test("a tool's own timeoutMs overrides the agent default", async () => {
  const seen = { aborted: [] as boolean[] };
  const agent = createAgent({
    model: scriptedModel([[toolCall("stall")], [text("ok")]]),
    tools: [stalledTool("stall", seen, 10)],
    toolTimeoutMs: 60_000,
  });
  const [result] = resultsOf(await agent.prompt("go"));
  equal(textOf(result), "Tool stall timed out after 10 ms and was stopped");
});

Deno.test("a tool that ignores its signal still cannot hold the run past its timeout", async () => {
  const deaf = defineTool({
    name: "deaf",
    description: "",
    parameters: Type.Object({}),
    execute: () => new Promise<never>(() => {}),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("deaf")], [text("ok")]]),
    tools: [deaf],
    toolTimeoutMs: 20,
  });
  const [result] = resultsOf(await agent.prompt("go"));
  ok(textOf(result).includes("timed out"));
});

Deno.test("abort while a tool runs: it is stopped, its result says aborted, the run ends", async () => {
  const seen = { aborted: [] as boolean[] };
  const started = deferred();
  const model = scriptedModel([[toolCall("stall", {}, "s")], [text("never")]]);
  const agent = createAgent({ model, tools: [stalledTool("stall", seen)] });
  agent.subscribe((e) => e.type === "tool_execution_start" && started.resolve());
  const running = agent.prompt("go");
  await started.promise;
  await new Promise((r) => setTimeout(r, 5));
  agent.abort();
  const added = await running;
  const [result] = resultsOf(added);
  equal(result.isError, true);
  equal(textOf(result), "Tool stall was aborted while running");
  deepEqual(seen.aborted, [true]);
  equal(model.requests.length, 1, "no model turn after the abort");
  equal(agent.isRunning, false);
});

Deno.test("after abort, no prepared call that has not started executing starts", async () => {
  const executed: string[] = [];
  const recorder = defineTool({
    name: "rec",
    description: "",
    parameters: Type.Object({ key: Type.String() }),
    execute: ({ key }) => {
      executed.push(key);
      return { content: [{ type: "text", text: key }] };
    },
  });
  const gate = deferred();
  let agentRef: ReturnType<typeof createAgent> | undefined;
  // The policy holds call 2 (as a confirmation prompt would); the user aborts meanwhile.
  const slowPolicy = definePlugin({
    name: "slow-policy",
    beforeToolCall: async ({ args }) => {
      if (args.key === "2") {
        agentRef!.abort();
        await gate.promise;
      }
      return undefined;
    },
  });
  const calls = [
    toolCall("rec", { key: "1" }, "1"),
    toolCall("rec", { key: "2" }, "2"),
    toolCall("rec", { key: "3" }, "3"),
  ];
  for (const mode of ["parallel", "sequential"] as const) {
    executed.length = 0;
    const agent = createAgent({
      model: scriptedModel([calls, [text("x")]]),
      tools: [recorder],
      plugins: [slowPolicy],
      toolExecution: mode,
    });
    agentRef = agent;
    const running = agent.prompt("go");
    setTimeout(() => gate.resolve(), 5);
    const results = resultsOf(await running);
    deepEqual(
      results.map((r) => r.toolCallId),
      ["1", "2", "3"],
      `${mode}: one result per call, in order`,
    );
    for (const r of results.slice(1)) {
      equal(r.isError, true);
      ok(textOf(r).includes("aborted"), `${mode}: ${textOf(r)}`);
    }
    deepEqual(
      executed,
      mode === "sequential" ? ["1"] : [],
      `${mode}: nothing started after the abort`,
    );
  }
});

Deno.test("abort during the model stream ends the turn with stopReason aborted", async () => {
  const model = scriptedModel([{ content: [text("slow")], delayMs: 10_000 }]);
  const agent = createAgent({ model });
  const events = recordEvents(agent);
  const running = agent.prompt("go");
  setTimeout(() => agent.abort(), 5);
  const added = await running;
  const last = added.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "aborted");
  equal(events.at(-1)?.type, "agent_end");
});

Deno.test("abort while tools run: the run ends with an aborted assistant message, as pi's, without asking the model again", async () => {
  const started = deferred();
  const waits = defineTool({
    name: "waits",
    description: "waits for the abort",
    parameters: Type.Object({}),
    execute: (_args, { signal }) => {
      started.resolve();
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      );
    },
  });
  const model = scriptedModel([[toolCall("waits", {}, "w1")], [text("never asked")]]);
  const agent = createAgent({ model, tools: [waits] });
  const events = recordEvents(agent);
  const running = agent.prompt("go");
  await started.promise;
  agent.abort();
  const added = await running;
  equal(model.requests.length, 1);
  deepEqual(added.map((m) => `${m.role}:${m.role === "assistant" ? m.stopReason : ""}`), [
    "user:",
    "assistant:toolUse",
    "toolResult:",
    "assistant:aborted",
  ]);
  const last = added.at(-1)!;
  equal(last.role === "assistant" && last.errorMessage, "The run was aborted");
  equal(textOf(resultsOf(added)[0]), "Tool waits was aborted while running");
  deepEqual(events.slice(-6).map((event) => event.type), [
    "turn_end",
    "turn_start",
    "message_start",
    "message_end",
    "turn_end",
    "agent_end",
  ]);
});

Deno.test("abort when nothing runs is harmless, and the agent runs again afterwards", async () => {
  const agent = createAgent({ model: scriptedModel([[text("one")], [text("two")]]) });
  agent.abort();
  await agent.prompt("a");
  const added = await agent.prompt("b");
  equal(textOf(added.at(-1) as { content: { type: string; text?: string }[] }), "two");
});

Deno.test("a timeout that is not one is refused, not taken as none", () => {
  // Found by a review: a negative, NaN or string timeout (e.g. "30000" read from a file) turned
  // the bound off, so a stalled tool held the run until abort.
  const model = scriptedModel([[text("ok")]]);
  const refused = (options: Record<string, unknown>) => {
    try {
      createAgent({ model, ...options });
      return "created";
    } catch (error) {
      return (error as Error).message;
    }
  };
  equal(
    refused({ toolTimeoutMs: -200 }),
    "Cannot create agent: toolTimeoutMs must be a number of ms, 0 or more (0 or Infinity: none), got -200",
  );
  equal(
    refused({ hookTimeoutMs: Number.NaN }),
    "Cannot create agent: hookTimeoutMs must be a number of ms, 0 or more (0 or Infinity: none), got NaN",
  );
  equal(refused({ toolTimeoutMs: 0, hookTimeoutMs: Infinity }), "created");
  const define = (timeoutMs: unknown) => {
    try {
      stalledTool("odd", { aborted: [] }, timeoutMs as number);
      return "defined";
    } catch (error) {
      return (error as Error).message;
    }
  };
  equal(
    define("200"),
    'Cannot define tool "odd": timeoutMs must be a number of ms, 0 or more (0 or Infinity: none), got "200"',
  );
  equal(
    define(-1),
    'Cannot define tool "odd": timeoutMs must be a number of ms, 0 or more (0 or Infinity: none), got -1',
  );
  equal(define(0), "defined");
});

Deno.test("a raw tool whose timeout is not one gets the agent's; an in-process plugin's tool may not turn it off", async () => {
  const seen = { aborted: [] as boolean[] };
  // Not through defineTool: its timeoutMs is not checked before the loop reads it.
  const raw = { ...stalledTool("raw", seen), timeoutMs: -1 };
  const pluginTool = stalledTool("plugin_tool", seen, 0);
  const agent = createAgent({
    model: scriptedModel([[toolCall("raw", {}, "a"), toolCall("plugin_tool", {}, "b")], [
      text("ok"),
    ]]),
    tools: [raw],
    plugins: [definePlugin({ name: "thirdparty", tools: [pluginTool] })],
    toolTimeoutMs: 50,
  });
  await agent.prompt("go");
  deepEqual(resultsOf(agent.messages).map(textOf), [
    "Tool raw timed out after 50 ms and was stopped",
    "Tool plugin_tool timed out after 50 ms and was stopped",
  ]);
  equal(seen.aborted.length, 2);
});
