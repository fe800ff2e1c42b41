/**
 * The OpenAI provider's overhead: a large recorded SSE stream (2 000 text deltas, then a
 * tool call whose 20 kB of arguments arrive in 5 000 deltas) replayed from memory
 * through a `fetch` stand-in, so no network time is measured. Each iteration consumes
 * the whole stream: once with the bare `openai` client (SSE parsing only), once through
 * `openai()` into Tack's event protocol (SSE parsing + mapping + incremental argument
 * parsing). Events per second = 7 000 / the time per iteration.
 *
 * The last group shows why arguments are parsed incrementally: re-parsing the whole
 * argument text on every delta (what a naive partial-JSON approach does) is quadratic.
 */

import OpenAI from "@openai/openai";
import { openai, PartialJsonParser } from "@tack/agent/sdk/providers/openai";

const TEXT_DELTAS = 2_000;
const ARGUMENT_DELTAS = 5_000;
const DELTA = 4;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = {
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 0,
    model: "bench",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const content = "x".repeat(ARGUMENT_DELTAS * DELTA - 14);
const argumentText = JSON.stringify({ path: "a.ts", content });
const parts: string[] = [chunk({ role: "assistant", content: "" })];
for (let i = 0; i < TEXT_DELTAS; i++) parts.push(chunk({ content: "word" }));
parts.push(chunk({
  tool_calls: [{
    index: 0,
    id: "c1",
    type: "function",
    function: { name: "write", arguments: "" },
  }],
}));
for (let i = 0; i < argumentText.length; i += DELTA) {
  const piece = argumentText.slice(i, i + DELTA);
  parts.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
}
parts.push(chunk({}, "tool_calls"));
parts.push("data: [DONE]\n\n");
const recorded = new TextEncoder().encode(parts.join(""));

/** Replays the recorded stream in 16 kB network-sized reads. */
const replay: typeof fetch = () => {
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= recorded.length) return controller.close();
      controller.enqueue(recorded.subarray(offset, offset += 16_384));
    },
  });
  return Promise.resolve(
    new Response(body, { headers: { "content-type": "text/event-stream" } }),
  );
};

const client = new OpenAI({ apiKey: "k", baseURL: "http://bench.invalid/v1", fetch: replay });
const model = openai({ model: "bench", baseURL: "http://bench.invalid/v1", fetch: replay });
const request = {
  systemPrompt: "",
  tools: [],
  messages: [{ role: "user" as const, content: "go", timestamp: 0 }],
};

Deno.bench({
  name: "bare openai client: iterate the chunks",
  group: "stream",
  baseline: true,
  async fn() {
    const stream = await client.chat.completions.create({
      model: "bench",
      messages: [],
      stream: true,
    });
    let n = 0;
    for await (const _ of stream) n++;
    if (n < TEXT_DELTAS + ARGUMENT_DELTAS) throw new Error(`only ${n} chunks`);
  },
});

Deno.bench({
  name: "tack openai(): chunks to assistant events",
  group: "stream",
  async fn() {
    const stream = await model.stream(request, {});
    let n = 0;
    for await (const _ of stream) n++;
    const message = await stream.result();
    if (message.stopReason !== "toolUse" || n < TEXT_DELTAS + ARGUMENT_DELTAS) {
      throw new Error(
        `ended with ${message.stopReason} after ${n} events: ${message.errorMessage}`,
      );
    }
  },
});

const deltas: string[] = [];
for (let i = 0; i < argumentText.length; i += DELTA) deltas.push(argumentText.slice(i, i + DELTA));

Deno.bench({
  name: "PartialJsonParser: 20 kB of arguments in 4-character deltas",
  group: "arguments",
  baseline: true,
  fn() {
    const parser = new PartialJsonParser();
    for (const delta of deltas) parser.push(delta);
    if (!parser.complete) throw new Error("incomplete");
  },
});

Deno.bench({
  name: "naive: close and JSON.parse the whole text on every delta",
  group: "arguments",
  fn() {
    let text = "";
    for (const delta of deltas) {
      text += delta;
      try {
        JSON.parse(text + '"}');
      } catch { /* a prefix that does not close this way */ }
    }
  },
});
