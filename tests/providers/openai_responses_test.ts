import { createAgent, defineTool } from "@tack/agent";
import { openai } from "@tack/agent/sdk/providers/openai";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, runTurn } from "./stream_helpers.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up",
  parameters: Type.Object({ word: Type.String() }),
  execute: ({ word }) => ({ content: [{ type: "text", text: `${word}: a greeting` }] }),
});

Deno.test("the Responses API runs a tool-calling conversation", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { thinking: "Look it up.", toolCalls: [{ name: "lookup", arguments: { word: "hi" } }] },
      { text: "It is a greeting.", usage: { input: 50, cached: 10, output: 8 } },
    ],
  });
  const agent = createAgent({
    model: openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "k", api: "responses" }),
    systemPrompt: "Be brief.",
    tools: [lookup],
  });
  await agent.prompt("What is hi?");

  const first = agent.messages[1];
  equal(first.role === "assistant" && first.stopReason, "toolUse");
  deepEqual(first.role === "assistant" && first.content, [
    { type: "thinking", thinking: "Look it up." },
    { type: "toolCall", id: "call_0_0", name: "lookup", arguments: { word: "hi" } },
  ]);
  const last = agent.messages.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "stop");
  deepEqual(last?.role === "assistant" && last.content, [
    { type: "text", text: "It is a greeting." },
  ]);
  const usage = last?.role === "assistant" ? last.usage : undefined;
  deepEqual([usage?.input, usage?.cacheRead, usage?.output, usage?.totalTokens], [40, 10, 8, 58]);

  equal(server.calls[0].path, "/v1/responses");
  const body = server.requests[0];
  equal(body.instructions, "Be brief.");
  deepEqual(body.input, [{ role: "user", content: "What is hi?" }]);
  deepEqual(body.tools, [{
    type: "function",
    name: "lookup",
    description: "Looks a word up",
    parameters: {
      type: "object",
      properties: { word: { type: "string" } },
      required: ["word"],
      additionalProperties: false,
    },
    strict: true,
  }]);
  deepEqual(server.requests[1].input, [
    { role: "user", content: "What is hi?" },
    { type: "function_call", call_id: "call_0_0", name: "lookup", arguments: '{"word":"hi"}' },
    { type: "function_call_output", call_id: "call_0_0", output: "hi: a greeting" },
  ]);
});

Deno.test("Responses events map to the protocol, arguments streaming as deltas", async () => {
  await using server = await startFakeOpenAI({
    turns: [{
      text: "Sure.",
      chunkSize: 100,
      toolCalls: [{ name: "lookup", arguments: '{"word":"yo"}', id: "c9" }],
    }],
  });
  const model = openai({ model: "m", baseURL: server.baseURL, api: "responses" });
  const partials: string[] = [];
  const turn = await runTurn(model, ask("x", []), undefined, (event) => {
    if (event.type !== "toolcall_delta") return;
    const block = event.partial.content[event.contentIndex];
    if (block.type === "toolCall") partials.push(JSON.stringify(block.arguments));
  });
  deepEqual(turn.types, [
    "start",
    "text_start",
    "text_delta",
    "text_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
  ]);
  deepEqual(partials, ['{"word":"yo"}']);
  deepEqual(turn.message.content[1], {
    type: "toolCall",
    id: "c9",
    name: "lookup",
    arguments: { word: "yo" },
  });
});

Deno.test("response.incomplete for max_output_tokens ends with stopReason length", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "cut sh", finishReason: "length" }],
  });
  const model = openai({ model: "m", baseURL: server.baseURL, api: "responses", maxTokens: 5 });
  const turn = await runTurn(model, ask("x"));
  equal(turn.message.stopReason, "length");
  equal(server.requests[0].max_output_tokens, 5);
});

Deno.test("Responses faults end the message with the provider's text", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { text: "abcdefgh", fault: "error_event", faultAfter: 5, errorMessage: "Server overloaded." },
      { text: "abcdefgh", fault: "truncate", faultAfter: 5 },
      { fault: "500" },
      { text: "recovered" },
    ],
  });
  const model = openai({
    model: "m",
    baseURL: server.baseURL,
    api: "responses",
    retryBaseDelayMs: 1,
  });
  const failed = (await runTurn(model, ask("x"))).message;
  equal(failed.stopReason, "error");
  equal(
    failed.errorMessage,
    `${server.baseURL} reported an error mid-stream (model m): Server overloaded.`,
  );
  deepEqual(failed.content, [{ type: "text", text: "abcd" }]);
  const truncated = (await runTurn(model, ask("x"))).message;
  equal(
    truncated.errorMessage,
    `${server.baseURL}: the stream ended before the response was complete`,
  );
  const retried = (await runTurn(model, ask("x"))).message;
  deepEqual(retried.content, [{ type: "text", text: "recovered" }]);
  equal(server.requests.length, 4);
});

Deno.test("Responses reasoning effort asks for a summary", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
  await runTurn(
    openai({ model: "m", baseURL: server.baseURL, api: "responses", reasoningEffort: "high" }),
    ask("x"),
  );
  deepEqual(server.requests[0].reasoning, { effort: "high", summary: "auto" });
});
