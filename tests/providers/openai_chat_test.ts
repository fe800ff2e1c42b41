import { createAgent, defineTool, type ToolResultMessage } from "@tack/agent";
import { openai } from "@tack/agent/sdk/providers/openai";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, runTurn } from "./stream_helpers.ts";

const weather = defineTool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: Type.Object({ city: Type.String(), days: Type.Optional(Type.Integer()) }),
  execute: ({ city, days }) => ({
    content: [{ type: "text", text: `Sunny in ${city}${days ? ` for ${days} days` : ""}` }],
  }),
});

Deno.test("a multi-turn tool-calling conversation runs through createAgent", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      // Strict mode makes the model send null for the optional property.
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris", days: null } }] },
      { text: "It is sunny in Paris.", usage: { input: 30, output: 6 } },
      { text: "You're welcome." },
    ],
  });
  const agent = createAgent({
    model: openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "sk-test" }),
    systemPrompt: "You are terse.",
    tools: [weather],
  });
  await agent.prompt("Weather in Paris?");
  await agent.prompt("Thanks!");

  deepEqual(agent.messages.map((m) => m.role), [
    "user",
    "assistant",
    "toolResult",
    "assistant",
    "user",
    "assistant",
  ]);
  const result = agent.messages[2] as ToolResultMessage;
  equal(result.isError, false);
  deepEqual(result.content, [{ type: "text", text: "Sunny in Paris" }]);
  const last = agent.messages.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "stop");
  deepEqual(last?.role === "assistant" && last.content, [{
    type: "text",
    text: "You're welcome.",
  }]);

  equal(server.requests.length, 3);
  equal(server.calls[0].headers.get("authorization"), "Bearer sk-test");
  const first = server.requests[0];
  equal(first.model, "gpt-test");
  equal(first.stream, true);
  deepEqual(first.stream_options, { include_usage: true });
  deepEqual(first.tools, [{
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, days: { type: ["integer", "null"] } },
        required: ["city", "days"],
        additionalProperties: false,
      },
      strict: true,
    },
  }]);
  deepEqual(server.requests[2].messages, [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_0_0",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris","days":null}' },
      }],
    },
    { role: "tool", tool_call_id: "call_0_0", content: "Sunny in Paris" },
    { role: "assistant", content: "It is sunny in Paris." },
    { role: "user", content: "Thanks!" },
  ]);
});

Deno.test("tool arguments stream as deltas with parsed partial arguments", async () => {
  await using server = await startFakeOpenAI({
    turns: [{
      chunkSize: 3,
      toolCalls: [{ name: "get_weather", arguments: { city: "Paris", days: 3 }, id: "c1" }],
    }],
  });
  const model = openai({ model: "m", baseURL: server.baseURL });
  const seen: string[] = [];
  const turn = await runTurn(model, ask("weather?"), undefined, (event) => {
    if (event.type !== "toolcall_delta") return;
    const block = event.partial.content[event.contentIndex];
    if (block.type === "toolCall") seen.push(JSON.stringify(block.arguments));
  });
  // '{"city":"Paris","days":3}' in chunks of three characters.
  deepEqual(seen, [
    "{}",
    "{}",
    '{"city":""}',
    '{"city":"Par"}',
    '{"city":"Paris"}',
    '{"city":"Paris"}',
    '{"city":"Paris"}',
    '{"city":"Paris","days":3}',
    '{"city":"Paris","days":3}',
  ]);
  deepEqual(turn.types, [
    "start",
    "toolcall_start",
    ...seen.map(() => "toolcall_delta"),
    "toolcall_end",
    "done",
  ]);
  equal(turn.message.stopReason, "toolUse");
  deepEqual(turn.message.content, [{
    type: "toolCall",
    id: "c1",
    name: "get_weather",
    arguments: { city: "Paris", days: 3 },
  }]);
});

Deno.test("parallel tool calls in one message each get their block and result", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      {
        text: "Checking both.",
        toolCalls: [
          { name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_weather", arguments: { city: "Oslo", days: 2 } },
        ],
      },
      { text: "Both sunny." },
    ],
  });
  const agent = createAgent({
    model: openai({ model: "m", baseURL: server.baseURL, apiKey: "k" }),
    tools: [weather],
  });
  const ends: number[] = [];
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "toolcall_end") {
      ends.push(event.assistantMessageEvent.contentIndex);
    }
  });
  await agent.prompt("Paris and Oslo?");
  const first = agent.messages[1];
  equal(first.role === "assistant" && first.stopReason, "toolUse");
  deepEqual(first.role === "assistant" && first.content, [
    { type: "text", text: "Checking both." },
    { type: "toolCall", id: "call_0_0", name: "get_weather", arguments: { city: "Paris" } },
    {
      type: "toolCall",
      id: "call_0_1",
      name: "get_weather",
      arguments: { city: "Oslo", days: 2 },
    },
  ]);
  deepEqual(ends, [1, 2]);
  const tools = server.requests[1].messages.filter((m: { role: string }) => m.role === "tool");
  deepEqual(tools, [
    { role: "tool", tool_call_id: "call_0_0", content: "Sunny in Paris" },
    { role: "tool", tool_call_id: "call_0_1", content: "Sunny in Oslo for 2 days" },
  ]);
  equal(server.requests[1].messages[1].tool_calls.length, 2);
});

Deno.test("reasoning_content streams as a thinking block before the text", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ thinking: "The user greets.", text: "Hello!", chunkSize: 100 }],
  });
  const turn = await runTurn(openai({ model: "m", baseURL: server.baseURL }), ask("hi"));
  deepEqual(turn.types, [
    "start",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "text_start",
    "text_delta",
    "text_end",
    "done",
  ]);
  deepEqual(turn.message.content, [
    { type: "thinking", thinking: "The user greets." },
    { type: "text", text: "Hello!" },
  ]);
});

Deno.test("usage counts cached prompt tokens as cacheRead", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "ok", usage: { input: 100, cached: 40, output: 7 } }],
  });
  const turn = await runTurn(openai({ model: "m", baseURL: server.baseURL }), ask("hi"));
  const { input, output, cacheRead, totalTokens } = turn.message.usage;
  deepEqual({ input, output, cacheRead, totalTokens }, {
    input: 60,
    output: 7,
    cacheRead: 40,
    totalTokens: 107,
  });
  equal(turn.message.provider, "openai");
  equal(turn.message.model, "m");
});

Deno.test("finish reasons map to stop reasons", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { text: "cut sh", finishReason: "length" },
      { text: "", finishReason: "content_filter" },
      { toolCalls: [{ name: "get_weather", arguments: {} }], finishReason: "stop" },
    ],
  });
  const model = openai({ model: "m", baseURL: server.baseURL });
  equal((await runTurn(model, ask("a"))).message.stopReason, "length");
  const filtered = (await runTurn(model, ask("b"))).message;
  equal(filtered.stopReason, "error");
  equal(
    filtered.errorMessage,
    `${server.baseURL}: the provider withheld the answer (finish_reason: content_filter)`,
  );
  // Some servers say "stop" when they call tools: the tools still run.
  equal((await runTurn(model, ask("c"))).message.stopReason, "toolUse");
});

Deno.test("options reach the request: temperature, token limit, effort, headers", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "ok" }, { text: "ok" }] });
  await runTurn(
    openai({
      model: "m",
      baseURL: server.baseURL + "/",
      apiKey: "k",
      temperature: 0.2,
      maxTokens: 50,
      reasoningEffort: "low",
      headers: { "x-title": "tack-tests" },
    }),
    ask("hi"),
  );
  const body = server.requests[0];
  deepEqual([body.temperature, body.max_tokens, body.reasoning_effort], [0.2, 50, "low"]);
  equal(body.max_completion_tokens, undefined);
  equal(server.calls[0].headers.get("x-title"), "tack-tests");
  await runTurn(
    openai({
      model: "m",
      baseURL: server.baseURL,
      maxTokens: 9,
      maxTokensField: "max_completion_tokens",
      strictTools: false,
    }),
    ask("hi", [weather]),
  );
  equal(server.requests[1].max_completion_tokens, 9);
  equal(server.requests[1].tools[0].function.strict, false);
  equal(server.requests[1].tools[0].function.parameters.required.join(), "city");
});

Deno.test("images go as data URLs; tool-result images follow the batch in a user message", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "A red dot." }] });
  const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
  await runTurn(openai({ model: "m", baseURL: server.baseURL }), {
    systemPrompt: "",
    tools: [],
    messages: [
      { role: "user", content: [{ type: "text", text: "What is this?" }, image], timestamp: 0 },
      {
        role: "assistant",
        stopReason: "toolUse",
        provider: "openai",
        model: "m",
        timestamp: 0,
        usage: (await import("@tack/agent")).emptyUsage(),
        content: [
          { type: "toolCall", id: "a", name: "screenshot", arguments: {} },
          { type: "toolCall", id: "b", name: "screenshot", arguments: {} },
        ],
      },
      {
        role: "toolResult",
        toolCallId: "a",
        toolName: "screenshot",
        isError: false,
        timestamp: 0,
        content: [image],
      },
      {
        role: "toolResult",
        toolCallId: "b",
        toolName: "screenshot",
        isError: false,
        timestamp: 0,
        content: [{ type: "text", text: "second" }, image],
      },
    ],
  });
  const url = "data:image/png;base64,iVBORw0KGgo=";
  deepEqual(server.requests[0].messages.slice(0, 1), [{
    role: "user",
    content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url } }],
  }]);
  deepEqual(server.requests[0].messages.slice(2), [
    { role: "tool", tool_call_id: "a", content: "(see the attached image)" },
    { role: "tool", tool_call_id: "b", content: "second" },
    {
      role: "user",
      content: [
        { type: "text", text: "Attached image(s) from tool result:" },
        { type: "image_url", image_url: { url } },
        { type: "image_url", image_url: { url } },
      ],
    },
  ]);
});
