/**
 * Tool-call ids a server leaves out or repeats, and continuation deltas without an
 * `index`, through an agent run against the loopback fake server.
 */

import { createAgent, defineTool, type ToolCall } from "@tack/agent";
import { openai } from "@tack/agent/sdk/providers/openai";
import { Type } from "typebox";
import { deepEqual } from "node:assert/strict";
import {
  type FakeToolCall,
  type FakeTurn,
  startFakeOpenAI,
} from "../support/fake_openai_server.ts";

function echoTool(ran: string[]) {
  return defineTool({
    name: "echo",
    description: "Echoes",
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => {
      ran.push(text);
      return { content: [{ type: "text", text: `echo ${text}` }] };
    },
  });
}

/** Runs one tool turn and a final answer; returns the calls, what ran, and the ids sent back. */
async function run(
  api: "chat" | "responses",
  first: FakeTurn,
) {
  await using server = await startFakeOpenAI({ turns: [first, { text: "done" }] });
  const ran: string[] = [];
  const agent = createAgent({
    model: openai({ model: "m", baseURL: server.baseURL, apiKey: "k", api }),
    tools: [echoTool(ran)],
  });
  await agent.prompt("go");
  const assistant = agent.messages[1];
  const calls = assistant.role === "assistant"
    ? assistant.content.filter((b): b is ToolCall => b.type === "toolCall")
    : [];
  // deno-lint-ignore no-explicit-any
  const next = server.requests[1] as any;
  const sentBack: string[] = api === "chat"
    // deno-lint-ignore no-explicit-any
    ? next.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id)
    // deno-lint-ignore no-explicit-any
    : next.input.filter((i: any) => i.type === "function_call_output").map((i: any) => i.call_id);
  await agent.dispose();
  return { ids: calls.map((c) => c.id), ran, sentBack };
}

const calls = (...ids: (string | undefined)[]): FakeToolCall[] =>
  ids.map((id, i) => ({ name: "echo", arguments: { text: "AB"[i] }, id }));

for (const api of ["chat", "responses"] as const) {
  Deno.test(`${api}: a repeated tool-call id is made unique, and results go back by it`, async () => {
    // Before, both calls kept "same": two results went back with one tool_call_id.
    deepEqual(await run(api, { toolCalls: calls("same", "same") }), {
      ids: ["same", "call_2"],
      ran: ["A", "B"],
      sentBack: ["same", "call_2"],
    });
  });

  Deno.test(`${api}: empty tool-call ids get call_<n>`, async () => {
    // Before, both ids stayed "" and so did both tool_call_ids sent back.
    deepEqual(await run(api, { toolCalls: calls("", "") }), {
      ids: ["call_1", "call_2"],
      ran: ["A", "B"],
      sentBack: ["call_1", "call_2"],
    });
  });

  Deno.test(`${api}: ids generated in a later turn are none of an earlier turn's`, async () => {
    // A server that sends no ids, two tool turns. Before, each turn's calls got call_1 and
    // call_2: the transcript held two results per id, and so did the request sent back.
    await using server = await startFakeOpenAI({
      turns: [{ toolCalls: calls("", "") }, { toolCalls: calls("", "") }, { text: "done" }],
    });
    const agent = createAgent({
      model: openai({ model: "m", baseURL: server.baseURL, apiKey: "k", api }),
      tools: [echoTool([])],
    });
    await agent.prompt("go");
    const ids = agent.messages.map((m) =>
      m.role === "assistant"
        ? m.content.flatMap((b) => b.type === "toolCall" ? [b.id] : [])
        : m.role === "toolResult"
        ? m.toolCallId
        : []
    );
    // deno-lint-ignore no-explicit-any
    const last = server.requests[2] as any;
    const sentBack: string[] = api === "chat"
      // deno-lint-ignore no-explicit-any
      ? last.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id)
      // deno-lint-ignore no-explicit-any
      : last.input.filter((i: any) => i.type === "function_call_output").map((i: any) => i.call_id);
    await agent.dispose();
    deepEqual(ids, [
      [],
      ["call_1", "call_2"],
      "call_1",
      "call_2",
      ["call_3", "call_4"],
      "call_3",
      "call_4",
      [],
    ]);
    deepEqual(sentBack, ["call_1", "call_2", "call_3", "call_4"]);
  });
}

Deno.test("chat: a generated id does not take one the server gave a later call", async () => {
  deepEqual(await run("chat", { toolCalls: calls("", "call_1") }), {
    ids: ["call_2", "call_1"],
    ran: ["A", "B"],
    sentBack: ["call_2", "call_1"],
  });
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

Deno.test("chat: a tool-call delta without index or id continues the last call", async () => {
  // Before, it opened a second, nameless call: "Tool  not found", and the first call's
  // arguments were cut at '{"te'.
  const rawBody = [
    chunk({
      tool_calls: [{ id: "a", type: "function", function: { name: "echo", arguments: '{"te' } }],
    }),
    chunk({ tool_calls: [{ function: { arguments: 'xt":"A"}' } }] }),
    chunk({
      tool_calls: [{ id: "b", type: "function", function: { name: "echo", arguments: "" } }],
    }),
    chunk({ tool_calls: [{ function: { arguments: '{"text":"B"}' } }] }),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  deepEqual(await run("chat", { rawBody, contentType: "text/event-stream" }), {
    ids: ["a", "b"],
    ran: ["A", "B"],
    sentBack: ["a", "b"],
  });
});

Deno.test("chat: whole calls sent without index or id stay separate calls", async () => {
  // A server that sends each call whole, with its name, and neither index nor id: a delta
  // that names a tool starts a new call (merging them ran nothing: '{"text":"A"}{"text":"B"}').
  const rawBody = [
    chunk({ tool_calls: [{ function: { name: "echo", arguments: '{"text":"A"}' } }] }),
    chunk({ tool_calls: [{ function: { name: "echo", arguments: '{"text":"B"}' } }] }),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  deepEqual(await run("chat", { rawBody, contentType: "text/event-stream" }), {
    ids: ["call_1", "call_2"],
    ran: ["A", "B"],
    sentBack: ["call_1", "call_2"],
  });
});

Deno.test("chat: a call streamed without index that repeats its id and name on every delta stays one call", async () => {
  const rawBody = [
    chunk({
      tool_calls: [{ id: "a", type: "function", function: { name: "echo", arguments: '{"te' } }],
    }),
    chunk({
      tool_calls: [{
        id: "a",
        type: "function",
        function: { name: "echo", arguments: 'xt":"A"}' },
      }],
    }),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  deepEqual(await run("chat", { rawBody, contentType: "text/event-stream" }), {
    ids: ["a"],
    ran: ["A"],
    sentBack: ["a"],
  });
});
