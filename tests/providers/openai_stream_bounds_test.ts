/**
 * The byte bounds of a streamed response (`maxEventBytes`, `maxResponseBytes`), against
 * loopback servers that stream without end.
 */

import { boundEventStream } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal } from "node:assert/strict";
import { startEndlessBody } from "../support/endless_openai_server.ts";
import { ask, quickModel, runTurn, within } from "./stream_helpers.ts";

const encoder = new TextEncoder();
const MEGABYTE = encoder.encode("x".repeat(1 << 20));

function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const choices = [{ index: 0, delta, finish_reason: null }];
  return `data: ${
    JSON.stringify({ id: "c", object: "chat.completion.chunk", choices, ...extra })
  }\n\n`;
}

Deno.test("a line that never ends is stopped at maxEventBytes (default 10 MiB)", async () => {
  // Before the bound the client held the line whole: the host grew 200-400 MB a second
  // until abort(), as maxResponseChars counts only what a parsed chunk holds.
  await using server = await startEndlessBody((n) =>
    n === 0 ? 'data: {"choices":[{"index":0,"delta":{"content":"' : MEGABYTE
  );
  const turn = await within(10_000, runTurn(quickModel(server.baseURL), ask("hi")));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: one event of the stream passed 10485760 bytes without ending ` +
      "(maxEventBytes); the rest was not read",
  );
  deepEqual(turn.message.content, []);
  equal(server.requests, 1); // not retried: the server would send the same
});

Deno.test("data lines without the blank line that ends their event count as one event", async () => {
  await using server = await startEndlessBody(() => `data: ${"x".repeat(1000)}\n`);
  const turn = await within(
    10_000,
    runTurn(quickModel(server.baseURL, { maxEventBytes: 100_000 }), ask("hi")),
  );
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: one event of the stream passed 100000 bytes without ending ` +
      "(maxEventBytes); the rest was not read",
  );
});

const NOTHING_COUNTED: Record<string, (n: number) => string> = {
  "empty deltas": () => chunk({}).repeat(100),
  "`: ping` comments": () => ": ping\n\n".repeat(1000),
  "`choices: []`": () => 'data: {"id":"c","choices":[]}\n\n'.repeat(100),
  "the same tool-call id again and again": () =>
    chunk({
      tool_calls: [{
        index: 0,
        id: "I".repeat(100_000),
        type: "function",
        function: { name: "x" },
      }],
    }),
};

for (const [what, next] of Object.entries(NOTHING_COUNTED)) {
  Deno.test(`a stream of ${what} without end is stopped at maxResponseBytes`, async () => {
    // Before the bound none of these ever ended: nothing in them counts toward maxResponseChars.
    await using server = await startEndlessBody(next);
    const model = quickModel(server.baseURL, { maxResponseBytes: 2_000_000 });
    const turn = await within(10_000, runTurn(model, ask("hi")));
    equal(turn.message.stopReason, "error");
    equal(
      turn.message.errorMessage,
      `${server.baseURL}: the response passed 2000000 bytes (maxResponseBytes); the rest was not read`,
    );
    equal(server.requests, 1);
  });
}

Deno.test("events ended by \\r\\n\\r\\n or \\r\\r, cut anywhere, are each within maxEventBytes", async () => {
  const events =
    ["\r\n\r\n", "\r\r", "\n\n", "\r\n\n", "\n\r"].flatMap((end) =>
      Array.from({ length: 200 }, () => chunk({ content: "abcd" }).replace(/\n\n$/, end))
    ).join("") + chunk({}, {}).replace('"finish_reason":null', '"finish_reason":"stop"') +
    "data: [DONE]\n\n";
  const bytes = encoder.encode(events);
  // Served in pieces of 1 to 7 bytes, so blank lines are split between chunks.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        const size = 1 + (offset % 7);
        controller.enqueue(bytes.slice(offset, offset += size));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const baseURL = `http://127.0.0.1:${server.addr.port}/v1`;
    // The longest event is 125 bytes: 121 of `data: {…}` and `\r\n\r\n`.
    const turn = await runTurn(quickModel(baseURL, { maxEventBytes: 125 }), ask("hi"));
    equal(turn.message.errorMessage, undefined);
    deepEqual(turn.message.content, [{ type: "text", text: "abcd".repeat(1000) }]);
    const tight = await runTurn(quickModel(baseURL, { maxEventBytes: 100 }), ask("hi"));
    equal(
      tight.message.errorMessage,
      `${baseURL}: one event of the stream passed 100 bytes without ending (maxEventBytes); ` +
        "the rest was not read",
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("boundEventStream passes a body within its bounds through unchanged", async () => {
  const text = "data: a\n\n: ping\r\rdata: b\r\n\r\n";
  // The longest event the client holds: `: ping\r\r` and `data: b\r\n\r\n`, 19 bytes.
  const bounded = boundEventStream(new Response(text).body!, { maxBytes: 100, maxEventBytes: 19 });
  equal(await new Response(bounded).text(), text);
});

Deno.test("`: ping` comments without end are stopped at maxEventBytes: the client holds them", async () => {
  // Before, each blank line restarted the count, while the client's decoder kept every
  // comment line until an event with data came: its memory grew with the bytes.
  await using server = await startEndlessBody(() => ": ping\n\n".repeat(1000));
  const model = quickModel(server.baseURL, { maxEventBytes: 65_536 });
  const turn = await within(10_000, runTurn(model, ask("hi")));
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: one event of the stream passed 65536 bytes without ending ` +
      "(maxEventBytes); the rest was not read",
  );
  equal(server.requests, 1);
});

Deno.test("comments between events count toward the event after them, and no further", async () => {
  const pings = ": ping\r\n\r\nid: 7\n\nevent:\n\n".repeat(20); // no event: the client holds it all
  const body = pings + chunk({ content: "ab" }) + pings + chunk({ content: "cd" }) +
    chunk({}).replace('"finish_reason":null', '"finish_reason":"stop"') + "data: [DONE]\n\n";
  const served = encoder.encode(body);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= served.length) return controller.close();
        controller.enqueue(served.slice(offset, offset += 1 + (offset % 5)));
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const baseURL = `http://127.0.0.1:${server.addr.port}/v1`;
    const held = pings.length + chunk({ content: "ab" }).length;
    const fits = await runTurn(quickModel(baseURL, { maxEventBytes: held }), ask("hi"));
    equal(fits.message.errorMessage, undefined);
    deepEqual(fits.message.content, [{ type: "text", text: "abcd" }]);
    const tight = await runTurn(quickModel(baseURL, { maxEventBytes: held - 1 }), ask("hi"));
    equal(
      tight.message.errorMessage,
      `${baseURL}: one event of the stream passed ${held - 1} bytes without ending ` +
        "(maxEventBytes); the rest was not read",
    );
  } finally {
    await server.shutdown();
  }
});
