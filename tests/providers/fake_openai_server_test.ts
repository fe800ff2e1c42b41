import OpenAI from "@openai/openai";
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";

function client(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: "test", maxRetries: 0 });
}

Deno.test("fake server streams chat text, tool calls and usage to the openai client", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "Hello there", toolCalls: [{ name: "f", arguments: { a: 1 } }] }],
  });
  const stream = await client(server.baseURL).chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let args = "";
  let finish = "";
  let total = 0;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    text += choice?.delta.content ?? "";
    args += choice?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    finish ||= choice?.finish_reason ?? "";
    total = chunk.usage?.total_tokens ?? total;
  }
  deepEqual([text, args, finish, total], ["Hello there", '{"a":1}', "tool_calls", 15]);
  equal(server.requests[0].messages[0].content, "hi");
  equal(server.calls[0].headers.get("authorization"), "Bearer test");
});

Deno.test("fake server streams Responses API events", async () => {
  await using server = await startFakeOpenAI({ turns: [{ thinking: "hmm", text: "ok" }] });
  const stream = await client(server.baseURL).responses.create({
    model: "m",
    input: "hi",
    stream: true,
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  equal(types.at(-1), "response.completed");
  equal(types.filter((t) => t === "response.output_text.delta").length, 1);
  equal(types.filter((t) => t === "response.reasoning_summary_text.delta").length, 1);
});

Deno.test("fake server answers 429 with Retry-After", async () => {
  await using server = await startFakeOpenAI({ turns: [{ fault: "429", retryAfter: 3 }] });
  const error = await client(server.baseURL).chat.completions.create({
    model: "m",
    messages: [],
    stream: true,
  }).catch((e) => e);
  equal(error.status, 429);
  equal(error.headers.get("retry-after"), "3");
  equal(error.message, "429 Rate limit reached.");
});

Deno.test("fake server cuts the connection mid-stream", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "abcdefgh", fault: "cut" }] });
  const stream = await client(server.baseURL).chat.completions.create({
    model: "m",
    messages: [],
    stream: true,
  });
  let text = "";
  await rejects(async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  });
  equal(text, "abcd");
});

Deno.test("fake server sends a malformed chunk", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "abcdefgh", fault: "malformed" }] });
  const stream = await client(server.baseURL).chat.completions.create({
    model: "m",
    messages: [],
    stream: true,
  });
  await rejects(async () => {
    for await (const _ of stream) { /* drain */ }
  }, /malformed/);
});

Deno.test("fake server says when the script has run out", async () => {
  await using server = await startFakeOpenAI();
  const error = await client(server.baseURL).chat.completions.create({
    model: "m",
    messages: [],
    stream: true,
  }).catch((e) => e);
  equal(error.status, 400);
  match(error.message, /no scripted turn for request 1/);
});
