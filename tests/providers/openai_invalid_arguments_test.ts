import { createAgent, defineTool, type ToolResultMessage } from "@tack/agent";
import { openai } from "@tack/agent/sdk/providers/openai";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

Deno.test("torn or non-object argument JSON never runs the tool; the model reads why", async () => {
  let ran = 0;
  const weather = defineTool({
    name: "get_weather",
    description: "Weather for a city",
    parameters: Type.Object({ city: Type.String() }),
    execute: ({ city }) => {
      ran++;
      return { content: [{ type: "text", text: `Sunny in ${city}` }] };
    },
  });
  await using server = await startFakeOpenAI({
    turns: [
      {
        toolCalls: [
          { name: "get_weather", arguments: '{"city":"Par', id: "torn" },
          { name: "get_weather", arguments: '["Paris"]', id: "array" },
          { name: "get_weather", arguments: '{"city":"Oslo"}', id: "fine" },
        ],
      },
      { text: "ok" },
    ],
  });
  const agent = createAgent({
    model: openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "sk-test" }),
    tools: [weather],
  });
  const added = await agent.prompt("Weather?");
  const results = added.filter((m): m is ToolResultMessage => m.role === "toolResult");
  const texts = results.map((r) => r.content[0].type === "text" ? r.content[0].text : "");
  deepEqual(results.map((r) => [r.toolCallId, r.isError]), [["torn", true], ["array", true], [
    "fine",
    false,
  ]]);
  equal(ran, 1);
  equal(
    texts[0].startsWith(
      'Invalid arguments for tool "get_weather": the arguments are not valid JSON (',
    ),
    true,
    texts[0],
  );
  equal(texts[0].endsWith('). Received: {"city":"Par'), true, texts[0]);
  equal(
    texts[1],
    'Invalid arguments for tool "get_weather": the arguments must be a JSON object. Received: ["Paris"]',
  );
  equal(texts[2], "Sunny in Oslo");
});

Deno.test("arguments nested 2,000,000 levels deep are refused without building them", async () => {
  // 4 MB of "[": before the depth limit this held the host's event loop ~9 s.
  const depth = 2_000_000;
  const deep = `{"city":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  let ran = 0;
  const weather = defineTool({
    name: "get_weather",
    description: "Weather for a city",
    parameters: Type.Object({ city: Type.String() }),
    execute: () => (ran++, { content: [{ type: "text", text: "Sunny" }] }),
  });
  await using server = await startFakeOpenAI({
    turns: [
      { toolCalls: [{ name: "get_weather", arguments: deep, id: "deep" }], chunkSize: 1 << 22 },
      { text: "ok" },
    ],
  });
  const agent = createAgent({
    model: openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "sk-test" }),
    tools: [weather],
  });
  const start = performance.now();
  const added = await agent.prompt("Weather?");
  const result = added.find((m): m is ToolResultMessage => m.role === "toolResult")!;
  deepEqual(result.content, [{
    type: "text",
    text: 'Invalid arguments for tool "get_weather": they nest more than 128 levels deep',
  }]);
  equal(ran, 0);
  const reply = added.find((m) => m.role === "assistant");
  const call = reply?.role === "assistant" ? reply.content[0] : undefined;
  deepEqual(call?.type === "toolCall" ? call.arguments : undefined, {});
  equal(performance.now() - start < 3_000, true, `took ${performance.now() - start} ms`);
});
