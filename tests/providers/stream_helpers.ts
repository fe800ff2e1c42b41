/** Helpers for the provider tests: run one turn and keep what streamed. */

import type { AssistantMessage, AssistantMessageEvent, Model, ModelRequest } from "@tack/agent";
import { openai, type OpenAIOptions } from "@tack/agent/sdk/providers/openai";

/** One turn's events and final message. */
export interface Turn {
  events: AssistantMessageEvent[];
  types: string[];
  message: AssistantMessage;
}

/** A request with one user message (and the given tools). */
export function ask(text: string, tools: ModelRequest["tools"] = []): ModelRequest {
  return { systemPrompt: "", messages: [{ role: "user", content: text, timestamp: 0 }], tools };
}

/** Streams one turn to its end, calling `onEvent` for each event. */
export async function runTurn(
  model: Model,
  request: ModelRequest,
  signal?: AbortSignal,
  onEvent?: (event: AssistantMessageEvent) => void,
): Promise<Turn> {
  const stream = await model.stream(request, { signal });
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  return { events, types: events.map((e) => e.type), message: await stream.result() };
}

/** A loopback port nothing listens on. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Rejects if `promise` takes longer than `ms` (so a wrong wait fails instead of hanging). */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The provider on a test server, with quick retries so fault tests stay fast.
 *
 * @param baseURL The server's base URL.
 * @param options Anything else (they win).
 * @returns The model.
 */
export function quickModel(baseURL: string, options: Partial<OpenAIOptions> = {}): Model {
  return openai({
    model: "m",
    baseURL,
    apiKey: "k",
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    ...options,
  });
}
