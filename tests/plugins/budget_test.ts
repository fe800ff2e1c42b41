import {
  approveCall,
  type AssistantMessage,
  type AssistantMessageEventStream,
  createAgent,
  defineTool,
  type Model,
  scriptedModel,
  text,
  type Tool,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import budgetDefault, { budget } from "@tack/agent/plugins/budget";
import { confirm } from "@tack/agent/plugins/confirm";
import { openai } from "../../sdk/providers/openai/mod.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { Type } from "typebox";
import { deepEqual, equal, throws } from "node:assert/strict";

function counterTool(ran: string[]): Tool {
  return defineTool({
    name: "step",
    description: "Does one step",
    parameters: Type.Object({ n: Type.Number() }),
    execute: ({ n }) => {
      ran.push(String(n));
      return { content: [{ type: "text", text: `step ${n}` }] };
    },
  });
}

function results(messages: readonly { role: string }[]): string[] {
  return messages
    .filter((m): m is ToolResultMessage => m.role === "toolResult")
    .map((m) => m.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
}

/** A model that reports a cost on every message (wraps the scripted model's stream). */
function pricedModel(inner: Model, costPerTurn: number): Model {
  const price = (message: AssistantMessage): AssistantMessage => ({
    ...message,
    usage: { ...message.usage, cost: { ...message.usage.cost, total: costPerTurn } },
  });
  return {
    provider: inner.provider,
    id: inner.id,
    async stream(request, options): Promise<AssistantMessageEventStream> {
      const stream = await inner.stream(request, options);
      return {
        async *[Symbol.asyncIterator]() {
          for await (const event of stream) {
            if (event.type === "done") yield { ...event, message: price(event.message) };
            else yield event;
          }
        },
        result: async () => price(await stream.result()),
      };
    },
  };
}

Deno.test("maxToolCalls: calls past the cap are blocked and the run stops after that turn", async () => {
  const ran: string[] = [];
  const limit = budget({ maxToolCalls: 3 });
  const model = scriptedModel([
    [toolCall("step", { n: 1 }), toolCall("step", { n: 2 })],
    [toolCall("step", { n: 3 }), toolCall("step", { n: 4 })],
    [text("never reached")],
  ]);
  const agent = createAgent({ model, tools: [counterTool(ran)], plugins: [limit] });
  const added = await agent.prompt("go");
  deepEqual(results(added), [
    "step 1",
    "step 2",
    "step 3",
    "Budget reached: 3 of 3 tool calls used this run (maxToolCalls); the run stops after this turn",
  ]);
  deepEqual(ran, ["1", "2", "3"]);
  equal(model.requests.length, 2);
  equal(added.at(-1)?.role, "toolResult");
  deepEqual(limit.spent, { toolCalls: 3, tokens: 0, cost: 0 });
  equal(limit.exhausted, "3 of 3 tool calls used this run (maxToolCalls)");
});

Deno.test("resume() goes on with the same run: the budget keeps counting (a deferral does not refill it)", async () => {
  const ran: string[] = [];
  const write = defineTool({
    name: "write",
    description: "Writes",
    parameters: Type.Object({}),
    effects: ["write"],
    execute: () => ({ content: [{ type: "text", text: "written" }] }),
  });
  const limit = budget({ maxToolCalls: 2 });
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("step", { n: 1 }, "a1"), toolCall("write", {}, "a2")],
      [toolCall("step", { n: 2 }, "b1"), toolCall("step", { n: 3 }, "b2")],
      [text("done")],
    ]),
    tools: [counterTool(ran), write],
    plugins: [limit, confirm({ whenNonInteractive: "defer" })],
  });
  await agent.prompt("go");
  deepEqual(agent.pending.map((p) => p.toolName), ["write"]);
  // The budget let both calls through (confirm, after it, deferred the write).
  deepEqual(limit.spent, { toolCalls: 2, tokens: 0, cost: 0 });
  const added = await agent.resume(agent.pending.map((p) => approveCall(p)));
  // The approved write runs; the next turn's calls are over the cap (they ran before).
  deepEqual(ran, ["1"]);
  deepEqual(results(added).slice(-2), [
    "Budget reached: 2 of 2 tool calls used this run (maxToolCalls); the run stops after this turn",
    "Budget reached: 2 of 2 tool calls used this run (maxToolCalls); the run stops after this turn",
  ]);
  deepEqual(limit.spent, { toolCalls: 2, tokens: 0, cost: 0 });
  equal(limit.exhausted, "2 of 2 tool calls used this run (maxToolCalls)");
});

Deno.test("continue() goes on with the same run: the budget a run used up stays used up", async () => {
  const ran: string[] = [];
  const limit = budget({ maxToolCalls: 1 });
  const agent = createAgent({
    model: scriptedModel([
      [toolCall("step", { n: 1 })],
      [toolCall("step", { n: 2 })], // over the cap: blocked, and the run stops
      [toolCall("step", { n: 3 })], // after continue()
      [text("done")],
    ]),
    tools: [counterTool(ran)],
    plugins: [limit],
  });
  await agent.prompt("go");
  deepEqual(ran, ["1"]);
  const added = await agent.continue();
  // Before: continue() started the counts again, and step 3 ran.
  deepEqual(ran, ["1"]);
  deepEqual(results(added), [
    "Budget reached: 1 of 1 tool calls used this run (maxToolCalls); the run stops after this turn",
  ]);
  // A new prompt is a new run.
  await agent.prompt("again");
  equal(limit.spent.toolCalls, 0);
});

Deno.test('scope "run" starts again at each prompt; scope "session" does not', async () => {
  for (const scope of ["run", "session"] as const) {
    const ran: string[] = [];
    const limit = budgetDefault({ maxToolCalls: 1, scope });
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("step", { n: 1 })],
        [text("one")],
        [toolCall("step", { n: 2 })],
        [text("two")],
      ]),
      tools: [counterTool(ran)],
      plugins: [limit],
    });
    await agent.prompt("first");
    const second = results(await agent.prompt("second"));
    if (scope === "run") {
      deepEqual([ran, second], [["1", "2"], ["step 2"]]);
    } else {
      deepEqual([ran, second], [["1"], [
        "Budget reached: 1 of 1 tool calls used this session (maxToolCalls); the run stops after this turn",
      ]]);
    }
  }
});

Deno.test("maxTokens: usage from a real (loopback) OpenAI-compatible stream ends the run", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { toolCalls: [{ name: "step", arguments: { n: 1 } }] },
      { toolCalls: [{ name: "step", arguments: { n: 2 } }] },
      { text: "never reached" },
    ],
  });
  const ran: string[] = [];
  const limit = budget({ maxTokens: 25 });
  const agent = createAgent({
    model: openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "test" }),
    tools: [counterTool(ran)],
    plugins: [limit],
  });
  const added = await agent.prompt("go");
  deepEqual(results(added), [
    "step 1",
    "Budget reached: 30 of 25 tokens used this run (maxTokens); the run stops after this turn",
  ]);
  deepEqual(ran, ["1"]);
  equal(server.requests.length, 2);
  deepEqual(limit.spent, { toolCalls: 1, tokens: 30, cost: 0 });
  await agent.dispose();
});

Deno.test("maxCost: the cost reported on assistant messages ends the run", async () => {
  const ran: string[] = [];
  const limit = budget({ maxCost: 0.015 });
  const inner = scriptedModel([
    [toolCall("step", { n: 1 })],
    [toolCall("step", { n: 2 })],
    [text("never reached")],
  ]);
  const agent = createAgent({
    model: pricedModel(inner, 0.01),
    tools: [counterTool(ran)],
    plugins: [limit],
  });
  const added = await agent.prompt("go");
  deepEqual(results(added), [
    "step 1",
    "Budget reached: cost 0.02 of 0.015 spent this run (maxCost); the run stops after this turn",
  ]);
  equal(inner.requests.length, 2);
});

Deno.test("a cap reached on a text-only turn ends the run as usual", async () => {
  const limit = budget({ maxCost: 0.005 });
  const agent = createAgent({
    model: pricedModel(scriptedModel([[text("hi")]]), 0.01),
    plugins: [limit],
  });
  const added = await agent.prompt("go");
  equal(added.at(-1)?.role, "assistant");
  equal(limit.exhausted, "cost 0.01 of 0.005 spent this run (maxCost)");
});

Deno.test("malformed caps are load errors", () => {
  for (
    const [options, message] of [
      [{ maxToolCalls: -1 }, "maxToolCalls must be a number >= 0, got -1"],
      [{ maxTokens: "100" }, 'maxTokens must be a number >= 0, got "100"'],
      [{ maxCost: Number.NaN }, "maxCost must be a number >= 0, got NaN"],
      [{ scope: "turn" }, 'scope must be "run" or "session", got "turn"'],
    ] as const
  ) {
    throws(() => budget(options as never), {
      name: "TypeError",
      message: `Cannot create budget plugin: ${message}`,
    });
  }
});

Deno.test('the loop names "budget" as the blocker on tool_execution_end', async () => {
  const ran: string[] = [];
  const agent = createAgent({
    model: scriptedModel([[toolCall("step", { n: 1 }, "s1"), toolCall("step", { n: 2 }, "s2")]]),
    tools: [counterTool(ran)],
    toolExecution: "sequential",
    plugins: [budget({ maxToolCalls: 1 })],
  });
  const ends: [string, string | undefined][] = [];
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") ends.push([event.toolCallId, event.blockedBy]);
  });
  await agent.prompt("go");
  deepEqual(ends, [["s1", undefined], ["s2", "budget"]]);
  deepEqual(ran, ["1"]);
});
