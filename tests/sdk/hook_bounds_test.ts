// A person's time at a confirmation prompt is not a plugin hook's time: a plugin that
// waits for a person says so (hookTimeoutMs: Infinity), and every other hook stays bounded.
import {
  createAgent,
  definePlugin,
  defineTool,
  scriptedModel,
  text,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import { confirm } from "@tack/agent/plugins/confirm";
import { deepEqual, equal } from "node:assert/strict";
import { Type } from "typebox";

const tool = (name: string) =>
  defineTool({
    name,
    description: name,
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: `${name} ran` }] }),
  });

function texts(messages: readonly { role: string }[]): string[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) =>
    m.content.map((block) => block.type === "text" ? block.text : "").join("")
  );
}

Deno.test("a hook waiting for a person is unbounded while another plugin's hook stays bounded", async () => {
  const stuck = definePlugin({
    name: "stuck",
    beforeToolCall: ({ tool }) => tool.name === "a" ? new Promise(() => {}) : undefined,
  });
  const person = definePlugin({
    name: "person",
    hookTimeoutMs: Infinity,
    // Answers well after the calls' 30 ms timeout, as a person would.
    beforeToolCall: ({ tool }) =>
      tool.name === "b" ? new Promise((resolve) => setTimeout(resolve, 120)) : undefined,
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("a", {}, "1")], [toolCall("b", {}, "2")], [text("done")]]),
    tools: [tool("a"), tool("b")],
    plugins: [stuck, person],
    toolTimeoutMs: 30,
  });
  await agent.prompt("go");
  deepEqual(texts(agent.messages), [
    'Tool a was blocked: plugin "stuck" failed in beforeToolCall: its beforeToolCall hook did not answer within 30 ms',
    "b ran",
  ]);
});

Deno.test("the agent's hookTimeoutMs bounds each other hook when a plugin waits for a person", async () => {
  const stuck = definePlugin({ name: "stuck", afterToolCall: () => new Promise(() => {}) });
  const person = definePlugin({ name: "person", hookTimeoutMs: Infinity });
  const agent = createAgent({
    model: scriptedModel([[toolCall("a")], [text("done")]]),
    tools: [tool("a")],
    plugins: [stuck, person],
    hookTimeoutMs: 25,
  });
  await agent.prompt("go");
  deepEqual(texts(agent.messages), [
    'Tool a failed: plugin "stuck" failed in afterToolCall: its afterToolCall hook did not answer within 25 ms',
  ]);
});

Deno.test("confirm with someone to ask waits for them; without, it has no say on time", () => {
  equal(confirm({ ask: () => Promise.resolve("yes") }).hookTimeoutMs, Infinity);
  equal(confirm({}).hookTimeoutMs, undefined);
});

Deno.test("a prepareTurn that never answers stays bounded by the agent's hookTimeoutMs when a plugin waits for a person", async () => {
  const stuck = definePlugin({ name: "stuck", prepareTurn: () => new Promise(() => {}) });
  const person = definePlugin({ name: "person", hookTimeoutMs: Infinity });
  const model = scriptedModel([[text("never sent")]]);
  const agent = createAgent({ model, plugins: [person, stuck], hookTimeoutMs: 20 });
  // Only so that a regression fails here instead of hanging the suite.
  const guard = setTimeout(() => agent.abort(), 10_000);
  const added = await agent.prompt("go");
  clearTimeout(guard);
  const last = added.at(-1);
  equal(
    last?.role === "assistant" && last.errorMessage,
    [
      'Cannot start turn 1: prepareTurn failed: plugin "stuck": its prepareTurn hook did not',
      "answer within 20 ms",
    ].join(" "),
  );
  equal(model.requests.length, 0);
});

Deno.test("a plugin's own hookTimeoutMs bounds its prepareTurn (Infinity: only the run's abort)", async () => {
  const person = definePlugin({
    name: "person",
    hookTimeoutMs: Infinity,
    // Answers after the agent's 20 ms, as a person would.
    prepareTurn: () =>
      new Promise((resolve) => setTimeout(() => resolve({ systemPrompt: "p" }), 60)),
  });
  const model = scriptedModel([[text("done")]]);
  const agent = createAgent({ model, plugins: [person], hookTimeoutMs: 20 });
  await agent.prompt("go");
  equal(model.requests.length, 1);
  equal(model.requests[0].systemPrompt, "p");
});

Deno.test("a shouldStopAfterTurn that never answers is bounded and stops the run (fails closed), with or without a plugin waiting for a person", async () => {
  for (const extra of [[], [definePlugin({ name: "person", hookTimeoutMs: Infinity })]]) {
    const agent = createAgent({
      model: scriptedModel([[toolCall("a", {})], [text("never reached")]]),
      tools: [tool("a")],
      hookTimeoutMs: 50,
      plugins: [
        definePlugin({ name: "stuck", shouldStopAfterTurn: () => new Promise(() => {}) }),
        ...extra,
      ],
    });
    const added = await agent.prompt("go");
    // The first turn ran its call; the stuck hook then ended the run instead of holding it.
    deepEqual(texts(added), ["a ran"]);
    equal(added.at(-1)?.role, "toolResult");
  }
});
