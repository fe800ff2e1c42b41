import { createAgent } from "@tack/agent";
import { openai, type OpenAIOptions } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal, match, throws } from "node:assert/strict";
import { type FakeOpenAIServer, startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, closedPort, runTurn, within } from "./stream_helpers.ts";
import { quickModel } from "./stream_helpers.ts";
import { startEndlessServer } from "../support/endless_openai_server.ts";

function model(server: FakeOpenAIServer, options: Partial<OpenAIOptions> = {}) {
  return quickModel(server.baseURL, options);
}

const SERVER_ERROR = "The server had an error while processing your request.";

Deno.test("a 500 before any output is retried", async () => {
  await using server = await startFakeOpenAI({ turns: [{ fault: "500" }, { text: "ok" }] });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "stop");
  deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  equal(server.requests.length, 2);
  // The failed attempt leaves no trace in the events.
  deepEqual(turn.types, ["start", "text_start", "text_delta", "text_end", "done"]);
});

Deno.test("a 500 that persists ends with the status and the server's text", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ fault: "500" }, { fault: "500" }, { fault: "500" }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 500 for model m: ${SERVER_ERROR} ` +
      "(the server failed; retries were used up) (after 3 attempts)",
  );
  equal(server.requests.length, 3);
  deepEqual(turn.types, ["start", "error"]);
});

Deno.test("maxRetries: 0 turns retries off", async () => {
  await using server = await startFakeOpenAI({ turns: [{ fault: "500" }, { text: "ok" }] });
  const turn = await runTurn(model(server, { maxRetries: 0 }), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(server.requests.length, 1);
});

Deno.test("a 429 is retried after the Retry-After the server asked for", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ fault: "429", retryAfter: 0 }, { text: "ok" }],
  });
  // The backoff alone would wait a minute: finishing at once shows Retry-After won.
  const slow = model(server, { retryBaseDelayMs: 60_000, retryMaxDelayMs: 60_000 });
  const turn = await within(5_000, runTurn(slow, ask("hi")));
  equal(turn.message.stopReason, "stop");
  equal(server.requests.length, 2);
});

Deno.test("a Retry-After longer than maxRetryAfterMs is reported, not waited for", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ fault: "429", retryAfter: 120, errorMessage: "Rate limit reached for m." }],
  });
  const turn = await within(5_000, runTurn(model(server), ask("hi")));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 429 for model m: Rate limit reached for m. ` +
      "(the server asked to wait longer than maxRetryAfterMs (60000 ms) before a retry " +
      "(Retry-After: 120); no retry was made)",
  );
  equal(server.requests.length, 1);
});

Deno.test("a 503 whose Retry-After is past any wait says no retry was made", async () => {
  // Before, it said "(the server failed; retries were used up)" though none was made.
  await using server = await startFakeOpenAI({
    turns: [{ status: 503, retryAfter: "99999999999999999999", errorMessage: "Overloaded." }],
  });
  const turn = await within(5_000, runTurn(model(server), ask("hi")));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 503 for model m: Overloaded. ` +
      "(the server asked to wait longer than maxRetryAfterMs (60000 ms) before a retry " +
      "(Retry-After: 99999999999999999999); no retry was made)",
  );
  equal(server.requests.length, 1);
});

Deno.test("a long Retry-After after a retry says no further retry was made", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ fault: "500" }, { status: 503, retryAfter: 120, errorMessage: "Overloaded." }],
  });
  const turn = await within(5_000, runTurn(model(server), ask("hi")));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 503 for model m: Overloaded. ` +
      "(the server asked to wait longer than maxRetryAfterMs (60000 ms) before a retry " +
      "(Retry-After: 120); no further retry was made) (after 2 attempts)",
  );
  equal(server.requests.length, 2);
});

Deno.test("client errors are not retried and say what to check", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { status: 401, errorMessage: "Incorrect API key provided: k." },
      { status: 404, errorMessage: "The model `m` does not exist." },
      { status: 400, errorMessage: "Invalid schema for function 'x'." },
    ],
  });
  const messages = [];
  for (let i = 0; i < 3; i++) messages.push((await runTurn(model(server), ask("hi"))).message);
  deepEqual(messages.map((m) => m.errorMessage), [
    `${server.baseURL} answered 401 for model m: Incorrect API key provided: k. ` +
    "(check the API key (the apiKey option or OPENAI_API_KEY))",
    `${server.baseURL} answered 404 for model m: The model \`m\` does not exist. ` +
    "(check the model name and the base URL (the baseURL option or OPENAI_BASE_URL))",
    `${server.baseURL} answered 400 for model m: Invalid schema for function 'x'.`,
  ]);
  equal(server.requests.length, 3);
});

Deno.test("a connection cut after output ends the message, keeping what arrived", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "abcdefgh", fault: "cut", faultAfter: 2 }, { text: "never" }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `The connection to ${server.baseURL} failed: error reading a body from connection`,
  );
  deepEqual(turn.message.content, [{ type: "text", text: "abcd" }]);
  equal(server.requests.length, 1); // never retried after partial output
  deepEqual(turn.types, ["start", "text_start", "text_delta", "error"]);
});

Deno.test("a connection cut before any output is retried", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "lost", fault: "cut", faultAfter: 1 }, { text: "ok" }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  equal(server.requests.length, 2);
});

Deno.test("a stream that ends without a finish reason is an error", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "abcdefgh", fault: "truncate", faultAfter: 3 }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the stream ended before the response was complete`,
  );
  deepEqual(turn.message.content, [{ type: "text", text: "abcdefgh" }]);
});

Deno.test("a malformed chunk ends the message and is not retried", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "abcdefgh", fault: "malformed", faultAfter: 1 }, { text: "never" }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL} sent a malformed stream chunk (not JSON): ` +
      "Error reading response: malformed server-sent event JSON.",
  );
  equal(server.requests.length, 1);
});

Deno.test("an error event inside the stream ends the message with the provider's text", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "abcdefgh", fault: "error_event", errorMessage: "Overloaded, try later." }],
  });
  const turn = await runTurn(model(server), ask("hi"));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL} reported an error mid-stream (model m): Overloaded, try later.`,
  );
  deepEqual(turn.message.content, [{ type: "text", text: "abcd" }]);
});

Deno.test("a refused connection is retried, then reported with the address", async () => {
  const baseURL = `http://127.0.0.1:${closedPort()}/v1`;
  const refused = openai({ model: "m", baseURL, maxRetries: 1, retryBaseDelayMs: 1 });
  const turn = await runTurn(refused, ask("hi"));
  equal(turn.message.stopReason, "error");
  match(
    turn.message.errorMessage ?? "",
    new RegExp(
      `^Cannot connect to ${baseURL}: .*Connection refused.* ` +
        "\\(is the server running\\?\\) \\(after 2 attempts\\)$",
    ),
  );
});

Deno.test("no API key for api.openai.com is reported, not sent", async () => {
  const saved = Deno.env.get("OPENAI_API_KEY");
  Deno.env.delete("OPENAI_API_KEY");
  try {
    const turn = await runTurn(
      openai({ model: "gpt-test", baseURL: "https://api.openai.com/v1" }),
      ask("hi"),
    );
    equal(turn.message.stopReason, "error");
    equal(
      turn.message.errorMessage,
      "No OpenAI API key: set OPENAI_API_KEY (and allow reading it with " +
        "--allow-env=OPENAI_API_KEY), pass apiKey, or point baseURL at a local server",
    );
  } finally {
    if (saved !== undefined) Deno.env.set("OPENAI_API_KEY", saved);
  }
});

Deno.test("abort mid-stream cancels the request and ends with stopReason aborted", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "a long answer that streams slowly", chunkSize: 2, delayMs: 20 }],
  });
  const controller = new AbortController();
  const turn = await within(
    5_000,
    runTurn(model(server), ask("hi"), controller.signal, (event) => {
      if (event.type === "text_delta") controller.abort();
    }),
  );
  equal(turn.message.stopReason, "aborted");
  equal(turn.message.errorMessage, "The request was aborted");
  deepEqual(turn.message.content, [{ type: "text", text: "a " }]);
  equal(turn.types.at(-1), "error");
});

Deno.test("abort during a retry backoff ends at once", async () => {
  await using server = await startFakeOpenAI({ turns: [{ fault: "500" }, { text: "never" }] });
  const controller = new AbortController();
  const slow = model(server, { retryBaseDelayMs: 60_000, retryMaxDelayMs: 60_000 });
  const pending = runTurn(slow, ask("hi"), controller.signal);
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  setTimeout(() => controller.abort(), 20);
  const turn = await within(5_000, pending);
  equal(turn.message.stopReason, "aborted");
  equal(server.requests.length, 1);
});

Deno.test("a signal aborted before the turn sends nothing", async () => {
  await using server = await startFakeOpenAI({ turns: [{ text: "never" }] });
  const turn = await runTurn(model(server), ask("hi"), AbortSignal.abort());
  equal(turn.message.stopReason, "aborted");
  equal(server.requests.length, 0);
});

Deno.test("agent.abort() mid-stream ends the run with an aborted message", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "streaming slowly for a while", chunkSize: 1, delayMs: 15 }],
  });
  const agent = createAgent({ model: model(server) });
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
      agent.abort();
    }
  });
  await within(5_000, agent.prompt("hi"));
  const last = agent.messages.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "aborted");
});

Deno.test("a cut in the middle of a tool call: the stream showed what parsed, the transcript keeps no unanswered call, no tool runs", async () => {
  await using server = await startFakeOpenAI({
    turns: [{
      toolCalls: [{ name: "get_weather", arguments: { city: "Paris" }, id: "c1" }],
      chunkSize: 3,
      fault: "cut",
      faultAfter: 5, // role, the call's start, then '{"c', 'ity', '":"'
    }],
  });
  let ran = false;
  const agent = createAgent({
    model: model(server),
    tools: [{
      name: "get_weather",
      description: "Weather",
      parameters: { type: "object", properties: {} } as never,
      execute: () => {
        ran = true;
        return { content: [] };
      },
    }],
  });
  let streamed: unknown;
  agent.subscribe((event) => {
    if (event.type === "message_update") streamed = structuredClone(event.message.content);
  });
  await agent.prompt("Weather?");
  deepEqual(streamed, [
    { type: "toolCall", id: "c1", name: "get_weather", arguments: { city: "" } },
  ]);
  const last = agent.messages.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "error");
  deepEqual(last?.role === "assistant" && last.content, []);
  equal(ran, false);
  equal(server.requests.length, 1);
});

Deno.test("host mistakes throw at creation; a bad OPENAI_BASE_URL is reported in the turn", async () => {
  throws(
    () => openai({ model: "" }),
    new TypeError("Cannot create the openai model: `model` is empty"),
  );
  throws(
    () => openai({ model: "m", baseURL: "localhost:11434" }),
    new TypeError(
      'Cannot create the openai model: baseURL "localhost:11434" is not an http(s) URL',
    ),
  );
  const saved = Deno.env.get("OPENAI_BASE_URL");
  Deno.env.set("OPENAI_BASE_URL", "::bad");
  try {
    const turn = await runTurn(openai({ model: "m", apiKey: "k" }), ask("hi"));
    equal(turn.message.stopReason, "error");
    equal(
      turn.message.errorMessage,
      'OPENAI_BASE_URL "::bad" is not an http(s) URL (like http://127.0.0.1:11434/v1)',
    );
  } finally {
    if (saved === undefined) Deno.env.delete("OPENAI_BASE_URL");
    else Deno.env.set("OPENAI_BASE_URL", saved);
  }
});

Deno.test("a stream that stalls after output ends after idleTimeoutMs", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "abcdefgh", fault: "stall", faultAfter: 2 }, { text: "never" }],
  });
  const turn = await within(5_000, runTurn(model(server, { idleTimeoutMs: 50 }), ask("hi")));
  equal(turn.message.stopReason, "error");
  equal(turn.message.errorMessage, `${server.baseURL}: no data arrived for 50 ms (idleTimeoutMs)`);
  deepEqual(turn.message.content, [{ type: "text", text: "abcd" }]);
  equal(server.requests.length, 1);
});

Deno.test("a stream that stalls before any output is retried", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "lost", fault: "stall", faultAfter: 1 }, { text: "ok" }],
  });
  const turn = await within(5_000, runTurn(model(server, { idleTimeoutMs: 50 }), ask("hi")));
  deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  equal(server.requests.length, 2);
});

Deno.test("a slow but steady stream is not cut by the idle timeout", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ text: "one two three four", chunkSize: 2, delayMs: 25 }],
  });
  const turn = await runTurn(model(server, { idleTimeoutMs: 250 }), ask("hi"));
  equal(turn.message.stopReason, "stop");
  deepEqual(turn.message.content, [{ type: "text", text: "one two three four" }]);
});

Deno.test("keep-alive comments count as data for the idle timeout", async () => {
  // OpenRouter sends `: OPENROUTER PROCESSING` while a model reasons. Before, comments never
  // reached the watchdog: "no data arrived for 400 ms" though data arrived every 100 ms.
  const encoder = new TextEncoder();
  const answer =
    'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}\n\n' +
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (n++ < 10) controller.enqueue(encoder.encode(": OPENROUTER PROCESSING\n\n"));
        else {
          controller.enqueue(encoder.encode(answer));
          controller.close();
        }
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const baseURL = `http://127.0.0.1:${server.addr.port}/v1`;
    const options = { idleTimeoutMs: 400, maxRetries: 0 };
    const turn = await within(5_000, runTurn(quickModel(baseURL, options), ask("hi")));
    equal(turn.message.errorMessage, undefined);
    deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a server that streams text without end is stopped at maxResponseChars", async () => {
  // Before the limit, this took the host past 1.6 GB in 10 s and never ended.
  const text = "a".repeat(65_536);
  await using server = await startEndlessServer((n) =>
    n % 2 ? { content: text } : { reasoning_content: text }
  );
  const turn = await within(10_000, runTurn(quickModel(server.baseURL), ask("hi")));
  equal(turn.message.stopReason, "error");
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the response passed 10000000 characters of text, reasoning and ` +
      "tool calls (maxResponseChars); the rest was not read",
  );
  const kept = turn.message.content.map((b) => b.type === "text" ? b.text : "").join("");
  equal(kept.length <= 10_000_000, true);
});

Deno.test("maxResponseChars counts tool-call arguments", async () => {
  await using server = await startFakeOpenAI({
    turns: [{ toolCalls: [{ name: "x", arguments: { text: "a".repeat(200) } }], chunkSize: 50 }],
  });
  const turn = await runTurn(model(server, { maxResponseChars: 100 }), ask("hi"));
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the response passed 100 characters of text, reasoning and ` +
      "tool calls (maxResponseChars); the rest was not read",
  );
});

Deno.test("maxResponseChars counts tool-call names and ids", async () => {
  // Before, names and ids were not counted: 1,000 calls with 1 MB names were kept (1 GB,
  // left in the transcript by the failed turn) until maxToolCalls.
  const name = "N".repeat(30_000);
  await using server = await startEndlessServer((n) => ({
    tool_calls: [{ index: n, id: `c${n}`, type: "function", function: { name, arguments: "" } }],
  }));
  const turn = await within(
    10_000,
    runTurn(quickModel(server.baseURL, { maxResponseChars: 100_000 }), ask("hi")),
  );
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the response passed 100000 characters of text, reasoning and ` +
      "tool calls (maxResponseChars); the rest was not read",
  );
  // Three calls fit (3 × 30,002 characters); the fourth is refused before it is kept.
  deepEqual(
    turn.message.content.map((b) => b.type === "toolCall" ? [b.id, b.name.length] : b.type),
    [["c0", 30_000], ["c1", 30_000], ["c2", 30_000]],
  );
});

Deno.test("an id or name that arrives later counts too", async () => {
  await using server = await startEndlessServer((n) =>
    n === 0
      ? { tool_calls: [{ index: 0, type: "function", function: { arguments: "" } }] }
      : { tool_calls: [{ index: 0, function: { name: "x".repeat(60_000) } }] }
  );
  const turn = await within(
    10_000,
    runTurn(quickModel(server.baseURL, { maxResponseChars: 50_000 }), ask("hi")),
  );
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the response passed 50000 characters of text, reasoning and ` +
      "tool calls (maxResponseChars); the rest was not read",
  );
});

Deno.test("a server that streams tool calls without end is stopped at maxToolCalls", async () => {
  // Before the limit, 300,000 calls in one message threw out of agent.prompt (a stack overflow).
  await using server = await startEndlessServer((n) => ({
    tool_calls: [{
      index: n,
      id: `c${n}`,
      type: "function",
      function: { name: "x", arguments: "{}" },
    }],
  }));
  const turn = await within(10_000, runTurn(quickModel(server.baseURL), ask("hi")));
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the response passed 1000 tool calls (maxToolCalls); the rest was not read`,
  );
  equal(turn.message.content.length, 1_000);
});

Deno.test("the response limits must be positive numbers", () => {
  throws(
    () => openai({ model: "m", maxToolCalls: 0 }),
    new TypeError(
      "Cannot create the openai model: maxToolCalls is 0; it must be a positive number",
    ),
  );
});
