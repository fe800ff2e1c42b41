/**
 * Stream chunks whose fields have the wrong JSON type (a number for a string, an object
 * for the arguments text, `null` for an entry): they are skipped, and never switch a
 * limit off.
 */

import { deepEqual, equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, quickModel, runTurn } from "./stream_helpers.ts";

/** A chat completion chunk with one delta, as an SSE event. */
function chunk(delta: unknown, finish: string | null = null): string {
  const choices = [{ index: 0, delta, finish_reason: finish }];
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices })}\n\n`;
}

/** A Responses event, as an SSE event. */
function event(body: Record<string, unknown>): string {
  return `event: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`;
}

const TOO_MUCH = "the response passed 1000 characters of text, reasoning and tool calls " +
  "(maxResponseChars); the rest was not read";

/** A delta with a wrong type, and the call it leaves (the wrong field ignored). */
const WRONG_TYPES: Record<string, [unknown, { id: string; name: string }]> = {
  "arguments as an object": [
    { tool_calls: [{ index: 0, id: "a", function: { name: "t", arguments: { x: 1 } } }] },
    { id: "a", name: "t" },
  ],
  "an id as a number": [
    { tool_calls: [{ index: 0, id: 5, function: { name: "t", arguments: "{}" } }] },
    { id: "", name: "t" }, // a failed turn gives no id: its calls never run
  ],
  "a name as an object": [
    { tool_calls: [{ index: 0, id: "a", function: { name: { b: 2 } } }] },
    { id: "a", name: "" },
  ],
};

for (const [what, [delta, call]] of Object.entries(WRONG_TYPES)) {
  Deno.test(`chat: a tool call with ${what} leaves maxResponseChars in force`, async () => {
    // Before, `#count(x.length)` added undefined: the count became NaN and never passed.
    const text = Array.from({ length: 20 }, () => chunk({ content: "x".repeat(100) }));
    await using server = await startFakeOpenAI({
      turns: [{
        contentType: "text/event-stream",
        rawBody: chunk(delta) + text.join("") + chunk({}, "stop"),
      }],
    });
    const model = quickModel(server.baseURL, { maxResponseChars: 1000 });
    const turn = await runTurn(model, ask("hi"));
    equal(turn.message.stopReason, "error");
    equal(turn.message.errorMessage, `${server.baseURL}: ${TOO_MUCH}`);
    deepEqual(turn.message.content[0], { type: "toolCall", ...call, arguments: {} });
  });
}

Deno.test("chat: a late id that is a number is ignored, the call gets one of its own", async () => {
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: chunk({ tool_calls: [{ index: 0, function: { name: "t", arguments: "" } }] }) +
        chunk({ tool_calls: [{ index: 0, id: 5, function: { arguments: '{"a":1}' } }] }) +
        chunk({}, "tool_calls"),
    }],
  });
  const turn = await runTurn(quickModel(server.baseURL), ask("hi"));
  deepEqual(turn.message.content, [
    { type: "toolCall", id: "call_1", name: "t", arguments: { a: 1 } },
  ]);
});

Deno.test("responses: a numeric output_text.delta leaves maxResponseChars in force", async () => {
  const text = Array.from({ length: 20 }, () =>
    event({
      type: "response.output_text.delta",
      item_id: "m1",
      output_index: 0,
      content_index: 0,
      delta: "y".repeat(100),
    }));
  const numeric = event({
    type: "response.output_text.delta",
    item_id: "m1",
    output_index: 0,
    content_index: 0,
    delta: 12345,
  });
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: event({ type: "response.created", response: { id: "r" } }) + numeric +
        text.join(""),
    }],
  });
  const model = quickModel(server.baseURL, { api: "responses", maxResponseChars: 1000 });
  const turn = await runTurn(model, ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(turn.message.errorMessage, `${server.baseURL}: ${TOO_MUCH}`);
  deepEqual(turn.message.content, [{ type: "text", text: "y".repeat(1000) }]);
});

Deno.test("chat: a chunk, choice or tool-call entry that is not an object is skipped", async () => {
  // Before, `tool_calls: [null]` threw a TypeError, taken for a broken connection: retried.
  const raw = (json: string) => `data: ${json}\n\n`;
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: raw("null") + raw("5") + raw('{"choices":["x"]}') +
        chunk({ tool_calls: [null, 5, "x"] }) + chunk({ content: "ok" }) + chunk({}, "stop"),
    }],
  });
  const turn = await runTurn(quickModel(server.baseURL), ask("hi"));
  equal(turn.message.errorMessage, undefined);
  deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  equal(server.requests.length, 1);
});

Deno.test("responses: an event or item that is not an object is skipped", async () => {
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: event({ type: "response.created", response: { id: "r" } }) +
        "data: null\n\n" +
        event({ type: "response.output_item.added", output_index: 0, item: null }) +
        event({ type: "response.output_item.done", output_index: 0, item: 5 }) +
        event({ type: "response.output_text.delta", item_id: "m1", delta: "ok" }) +
        event({ type: "response.completed", response: { id: "r" } }),
    }],
  });
  const model = quickModel(server.baseURL, { api: "responses" });
  const turn = await runTurn(model, ask("hi"));
  equal(turn.message.errorMessage, undefined);
  deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  equal(server.requests.length, 1);
});

Deno.test("a chunk of an unexpected shape ends the turn, named as such, without a retry", async () => {
  // Before, the TypeError reading it was taken for a broken connection: retried twice.
  await using server = await startFakeOpenAI({
    turns: [
      // The client itself reads every choice's finish_reason.
      { contentType: "text/event-stream", rawBody: 'data: {"choices":[null]}\n\n' },
      {
        contentType: "text/event-stream",
        rawBody: event({ type: "response.created", response: { id: "r" } }) +
          event({ type: "response.completed", response: null }),
      },
    ],
  });
  const chat = await runTurn(quickModel(server.baseURL), ask("hi"));
  equal(
    chat.message.errorMessage,
    `${server.baseURL} sent a stream chunk of an unexpected shape: ` +
      "Cannot read properties of null (reading 'finish_reason')",
  );
  const responses = await runTurn(quickModel(server.baseURL, { api: "responses" }), ask("hi"));
  equal(
    responses.message.errorMessage,
    `${server.baseURL} sent a stream chunk of an unexpected shape: ` +
      "Cannot read properties of null (reading 'usage')",
  );
  equal(server.requests.length, 2);
});
