/**
 * A fake OpenAI-compatible server for tests: `Deno.serve` on 127.0.0.1 (a free port),
 * speaking server-sent events like the real API on `POST /v1/chat/completions` and
 * `POST /v1/responses`. Each request plays the next scripted turn; faults come on
 * demand; every request is recorded.
 *
 * Faults (`fault`): `"500"` and `"429"` answer with that status and an OpenAI-style JSON
 * error (`retryAfter` sets `Retry-After`); `status` gives any other HTTP error; `"cut"`
 * sends `faultAfter` events (default 2) and then breaks the connection (Deno's HTTP server
 * logs the broken body to stderr: expected); `"truncate"` sends
 * them and then ends the response cleanly, without the final events; `"stall"` sends them and then
 * nothing more, keeping the response open until the client gives up; `"malformed"`
 * sends them and then a chunk that is not JSON; `"error_event"` sends them and then an
 * in-stream error event. `delayMs` waits before every event (slow chunks). A request past
 * the end of the script gets a 400 whose message says so.
 *
 * @example An agent on the fake server, with a rate limit on the way
 * ```ts
 * import { createAgent, defineTool } from "@tack/agent";
 * import { openai } from "@tack/agent/sdk/providers/openai";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 * import { startFakeOpenAI } from "./fake_openai_server.ts";
 *
 * await using server = await startFakeOpenAI({
 *   turns: [
 *     { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
 *     { fault: "429", retryAfter: 0 }, // the next request gets a 429 …
 *     { text: "It is sunny." }, // … and its retry this answer
 *   ],
 * });
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "Weather",
 *   parameters: Type.Object({ city: Type.String() }),
 *   execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 * });
 * const model = openai({ model: "gpt-test", baseURL: server.baseURL, apiKey: "test" });
 * const agent = createAgent({ model, tools: [weather] });
 * await agent.prompt("Weather in Paris?");
 * equal(server.requests.length, 3); // the parsed JSON bodies, in order
 * equal(server.requests[2].messages.at(-1).content, "Sunny in Paris");
 * equal(server.calls[0].path, "/v1/chat/completions");
 * ```
 *
 * @module
 */

/** A tool call the fake model makes. `arguments` is sent as JSON (or verbatim if a string). */
export interface FakeToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  /** Default: `call_<turn>_<index>`. */
  id?: string;
}

/** A fault to inject instead of (or in the middle of) a normal answer. */
export type FakeFault =
  | "500"
  | "429"
  | "cut"
  | "truncate"
  | "stall"
  | "malformed"
  | "error_event";

/** Token counts the fake reports (defaults: input 10, output 5, cached 0). */
export interface FakeUsage {
  input?: number;
  output?: number;
  cached?: number;
}

/** One scripted answer. Content streams in the order thinking, text, tool calls. */
export interface FakeTurn {
  /** Streamed as `reasoning_content` (chat) or a reasoning summary (responses). */
  thinking?: string;
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Chat `finish_reason`; default `"tool_calls"` with tool calls, else `"stop"`. `"length"`
   * ends a Responses stream with `response.incomplete`. */
  finishReason?: string;
  usage?: FakeUsage;
  /** Characters per text, thinking or argument delta (default 4). */
  chunkSize?: number;
  /** Wait this long before every event (default 0). */
  delayMs?: number;
  fault?: FakeFault;
  /** Answer with this HTTP error status instead of a stream. */
  status?: number;
  /** `Retry-After` header value for an HTTP error (seconds). */
  retryAfter?: number | string;
  /** The error text the provider sends with a fault (default: a generic one). */
  errorMessage?: string;
  /** For the mid-stream faults: how many events are sent first (default 2). */
  faultAfter?: number;
  /**
   * Answer with this body as it is (status `status`, default 200) instead of a stream or
   * an OpenAI-style error: another server's error shape, a JSON reply, an empty body.
   */
  rawBody?: string;
  /** The `content-type` of `rawBody` (default none). */
  contentType?: string;
}

/** A request as the fake server received it. */
export interface FakeRequest {
  readonly path: string;
  readonly headers: Headers;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

/** A script step: a turn, or a function of the request that returns one. */
export type FakeStep = FakeTurn | ((request: FakeRequest) => FakeTurn);

/** Options of {@linkcode startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** One step per request, in order. More can be added later with `push`. */
  turns?: FakeStep[];
  /** The model id reported by `GET /v1/models` (default `"fake-model"`). */
  model?: string;
}

/** A running fake server. Close it with `close()` or `await using`. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`, the value for `baseURL` / `OPENAI_BASE_URL`. */
  readonly baseURL: string;
  /** The parsed JSON bodies of the requests received, in order. */
  // deno-lint-ignore no-explicit-any
  readonly requests: any[];
  /** The requests with their paths and headers. */
  readonly calls: readonly FakeRequest[];
  /** Appends steps to the script. */
  push(...turns: FakeStep[]): void;
  /** Stops the server, ending any open stream. */
  close(): Promise<void>;
}

type SseEvent = { event?: string; data: unknown } | { raw: string };

const encoder = new TextEncoder();

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function argumentsText(call: FakeToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
}

function chatEvents(turn: FakeTurn, index: number, body: Record<string, unknown>): SseEvent[] {
  const size = turn.chunkSize ?? 4;
  const id = `chatcmpl-${index}`;
  const model = typeof body.model === "string" ? body.model : "fake-model";
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({
    data: {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    },
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  if (turn.thinking) {
    for (const piece of pieces(turn.thinking, size)) {
      events.push(chunk({ reasoning_content: piece }));
    }
  }
  if (turn.text) {
    for (const piece of pieces(turn.text, size)) events.push(chunk({ content: piece }));
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    const callId = call.id ?? `call_${index}_${i}`;
    events.push(chunk({
      tool_calls: [{
        index: i,
        id: callId,
        type: "function",
        function: { name: call.name, arguments: "" },
      }],
    }));
    for (const piece of pieces(argumentsText(call), size)) {
      events.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
  });
  const finish = turn.finishReason ?? (turn.toolCalls?.length ? "tool_calls" : "stop");
  events.push(chunk({}, finish));
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) {
    const usage = turn.usage ?? {};
    const input = usage.input ?? 10;
    const output = usage.output ?? 5;
    events.push({
      data: {
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [],
        usage: {
          prompt_tokens: input,
          completion_tokens: output,
          total_tokens: input + output,
          prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
    });
  }
  events.push({ raw: "data: [DONE]\n\n" });
  return events;
}

function responsesEvents(turn: FakeTurn, index: number, body: Record<string, unknown>): SseEvent[] {
  const size = turn.chunkSize ?? 4;
  const model = typeof body.model === "string" ? body.model : "fake-model";
  const events: SseEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...fields } });
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: `resp_${index}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
    status,
    output: [],
    ...extra,
  });
  emit("response.created", { response: response("in_progress") });
  emit("response.in_progress", { response: response("in_progress") });
  let outputIndex = 0;
  if (turn.thinking) {
    const item = { id: `rs_${index}`, type: "reasoning", summary: [] as unknown[] };
    const base = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
    emit("response.output_item.added", { output_index: outputIndex, item });
    emit("response.reasoning_summary_part.added", {
      ...base,
      part: { type: "summary_text", text: "" },
    });
    for (const delta of pieces(turn.thinking, size)) {
      emit("response.reasoning_summary_text.delta", { ...base, delta });
    }
    emit("response.reasoning_summary_text.done", { ...base, text: turn.thinking });
    const part = { type: "summary_text", text: turn.thinking };
    emit("response.reasoning_summary_part.done", { ...base, part });
    emit("response.output_item.done", {
      output_index: outputIndex++,
      item: { ...item, summary: [part] },
    });
  }
  if (turn.text) {
    const item = { id: `msg_${index}`, type: "message", role: "assistant", status: "in_progress" };
    const base = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    emit("response.output_item.added", {
      output_index: outputIndex,
      item: { ...item, content: [] },
    });
    emit("response.content_part.added", {
      ...base,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of pieces(turn.text, size)) {
      emit("response.output_text.delta", { ...base, delta, logprobs: [] });
    }
    emit("response.output_text.done", { ...base, text: turn.text, logprobs: [] });
    const part = { type: "output_text", text: turn.text, annotations: [] };
    emit("response.content_part.done", { ...base, part });
    emit("response.output_item.done", {
      output_index: outputIndex++,
      item: { ...item, status: "completed", content: [part] },
    });
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    const item = {
      id: `fc_${index}_${i}`,
      type: "function_call",
      call_id: call.id ?? `call_${index}_${i}`,
      name: call.name,
      arguments: "",
      status: "in_progress",
    };
    const base = { item_id: item.id, output_index: outputIndex };
    const args = argumentsText(call);
    emit("response.output_item.added", { output_index: outputIndex, item });
    for (const delta of pieces(args, size)) {
      emit("response.function_call_arguments.delta", { ...base, delta });
    }
    emit("response.function_call_arguments.done", { ...base, arguments: args });
    emit("response.output_item.done", {
      output_index: outputIndex++,
      item: { ...item, arguments: args, status: "completed" },
    });
  });
  const usage = turn.usage ?? {};
  const input = usage.input ?? 10;
  const output = usage.output ?? 5;
  const usageBody = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  if (turn.finishReason === "length") {
    emit("response.incomplete", {
      response: response("incomplete", {
        incomplete_details: { reason: "max_output_tokens" },
        usage: usageBody,
      }),
    });
  } else {
    emit("response.completed", { response: response("completed", { usage: usageBody }) });
  }
  return events;
}

function errorEvent(path: string, message: string, sequence: number): SseEvent {
  return path.endsWith("/responses")
    ? {
      event: "error",
      data: {
        type: "error",
        code: "server_error",
        message,
        param: null,
        sequence_number: sequence,
      },
    }
    : { data: { error: { message, type: "server_error", param: null, code: null } } };
}

function encode(event: SseEvent): Uint8Array {
  if ("raw" in event) return encoder.encode(event.raw);
  const name = event.event ? `event: ${event.event}\n` : "";
  return encoder.encode(`${name}data: ${JSON.stringify(event.data)}\n\n`);
}

function jsonError(status: number, message: string, headers: HeadersInit = {}): Response {
  const type = status === 429
    ? "rate_limit_exceeded"
    : status >= 500
    ? "server_error"
    : "invalid_request_error";
  return Response.json({ error: { message, type, param: null, code: null } }, { status, headers });
}

function streamResponse(events: SseEvent[], turn: FakeTurn): Response {
  const delayMs = turn.delayMs ?? 0;
  let next = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const sleep = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, delayMs);
    });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (delayMs > 0) await sleep();
      if (next === -1) return;
      if (next >= events.length && turn.fault === "stall") {
        // Hold the response open until the client cancels it.
        return new Promise<void>((resolve) => (wake = resolve));
      }
      if (next >= events.length) return controller.close();
      controller.enqueue(encode(events[next++]));
    },
    cancel() {
      next = -1;
      clearTimeout(timer);
      wake?.();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

function faultEvents(events: SseEvent[], turn: FakeTurn, path: string): SseEvent[] {
  const after = Math.min(turn.faultAfter ?? 2, events.length - 1);
  const head = events.slice(0, after);
  const message = turn.errorMessage ?? "The server had an error while processing your request.";
  if (turn.fault === "malformed") head.push({ raw: 'data: {"choices": [{"delta": {"cont\n\n' });
  if (turn.fault === "error_event") head.push(errorEvent(path, message, after));
  return head;
}

function cutResponse(events: SseEvent[], turn: FakeTurn): Response {
  const delayMs = turn.delayMs ?? 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let i = 0;
      const step = () => {
        if (i < events.length) {
          controller.enqueue(encode(events[i++]));
          timer = setTimeout(step, delayMs);
        } else {
          controller.error(new Error("fake OpenAI server: connection cut"));
        }
      };
      timer = setTimeout(step, delayMs);
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/**
 * Starts a fake OpenAI-compatible server on 127.0.0.1 at a free port.
 *
 * @param options The script (one turn per request) and the reported model id.
 * @returns The running server: `baseURL`, `requests`, `calls`, `push`, `close`.
 *
 * @example A scripted 500, seen by a bare client
 * ```ts
 * import { startFakeOpenAI } from "./fake_openai_server.ts";
 * import { equal } from "node:assert/strict";
 *
 * await using server = await startFakeOpenAI({ turns: [{ fault: "500" }] });
 * const response = await fetch(`${server.baseURL}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [], stream: true }),
 * });
 * equal(response.status, 500);
 * equal((await response.json()).error.type, "server_error");
 * ```
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const script: FakeStep[] = [...(options.turns ?? [])];
  const calls: FakeRequest[] = [];
  // deno-lint-ignore no-explicit-any
  const requests: any[] = [];
  const controller = new AbortController();
  const { promise: ready, resolve: listening } = Promise.withResolvers<Deno.NetAddr>();

  const handler = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/models") {
      const id = options.model ?? "fake-model";
      return Response.json({ object: "list", data: [{ id, object: "model", owned_by: "fake" }] });
    }
    const known = path === "/v1/chat/completions" || path === "/v1/responses";
    if (request.method !== "POST" || !known) {
      return jsonError(404, `Fake OpenAI server: no route for ${request.method} ${path}`);
    }
    // deno-lint-ignore no-explicit-any
    let body: any;
    try {
      body = await request.json();
    } catch {
      return jsonError(400, "Fake OpenAI server: the request body is not JSON");
    }
    const recorded: FakeRequest = { path, headers: request.headers, body };
    const index = calls.length;
    calls.push(recorded);
    requests.push(body);
    const step = script[index];
    if (step === undefined) {
      return jsonError(400, `Fake OpenAI server: no scripted turn for request ${index + 1}`);
    }
    const turn = typeof step === "function" ? step(recorded) : step;
    const message = turn.errorMessage ?? "The server had an error while processing your request.";
    const retryHeaders: Record<string, string> = turn.retryAfter === undefined
      ? {}
      : { "retry-after": String(turn.retryAfter) };
    if (turn.rawBody !== undefined) {
      const headers = new Headers(retryHeaders);
      const response = new Response(turn.rawBody, { status: turn.status ?? 200, headers });
      // A string body gets text/plain by default; a raw reply has only what it was given.
      response.headers.delete("content-type");
      if (turn.contentType) response.headers.set("content-type", turn.contentType);
      return response;
    }
    if (turn.status !== undefined) return jsonError(turn.status, message, retryHeaders);
    if (turn.fault === "500") return jsonError(500, message, retryHeaders);
    if (turn.fault === "429") {
      return jsonError(429, turn.errorMessage ?? "Rate limit reached.", retryHeaders);
    }
    if (body.stream !== true) {
      return jsonError(400, "Fake OpenAI server: only streaming requests are supported");
    }
    const events = path === "/v1/responses"
      ? responsesEvents(turn, index, body)
      : chatEvents(turn, index, body);
    if (turn.fault === "cut") return cutResponse(faultEvents(events, turn, path), turn);
    if (turn.fault) return streamResponse(faultEvents(events, turn, path), turn);
    return streamResponse(events, turn);
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: (address) => listening(address as Deno.NetAddr),
  }, handler);
  const address = await ready;
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      controller.abort();
      await server.finished;
    })();
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    calls,
    push: (...turns) => void script.push(...turns),
    close,
    [Symbol.asyncDispose]: close,
  };
}
