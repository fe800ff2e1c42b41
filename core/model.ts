/**
 * What the loop needs from a model: one function that streams a turn.
 *
 * @module
 */

import type { AssistantMessageEventStream } from "./assistant_message_stream.ts";
import type { Message } from "./messages.ts";
import type { JsonSchema } from "./schema.ts";

/** A tool as the model sees it: name, description and JSON Schema of its parameters. */
export interface ToolSpec {
  /** The tool's name (`^[a-zA-Z0-9_-]{1,64}$`). */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The JSON Schema of its parameters. */
  readonly parameters: JsonSchema;
}

/**
 * Everything the model is asked with for one turn.
 *
 * `messages` is the live transcript, read-only for the model: copy it if you keep it
 * past the call (the loop does not copy it per turn, so cost stays flat as it grows).
 */
export interface ModelRequest {
  /** The system prompt. */
  readonly systemPrompt: string;
  /** The transcript (live: copy it to keep it). */
  readonly messages: readonly Message[];
  /** The tools the model may call. */
  readonly tools: readonly ToolSpec[];
}

/** Per-call options for a {@linkcode StreamFn}. */
export interface StreamOptions {
  /** Aborts the request; the stream then ends with `stopReason: "aborted"`. */
  signal?: AbortSignal;
}

/**
 * Streams one assistant turn.
 *
 * Contract: must not throw or reject for request, model or network failures. Encode
 * them in the stream: an `error` event and a final message with `stopReason: "error"`
 * (or `"aborted"`) and an `errorMessage`.
 */
export type StreamFn = (
  request: ModelRequest,
  options: StreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;

/**
 * A model the agent can talk to: `scriptedModel(...)`, `openai({...})`, or your own.
 *
 * @example A model that always says "ok"
 * ```ts
 * import { AssistantMessageStream, emptyUsage, type Model } from "@tack/agent";
 *
 * const ok: Model = {
 *   provider: "demo",
 *   id: "ok",
 *   stream() {
 *     const stream = new AssistantMessageStream();
 *     const message = {
 *       role: "assistant" as const, content: [{ type: "text" as const, text: "ok" }],
 *       stopReason: "stop" as const, usage: emptyUsage(), provider: "demo", model: "ok",
 *       timestamp: Date.now(),
 *     };
 *     stream.push({ type: "done", reason: "stop", message });
 *     return stream;
 *   },
 * };
 * ```
 */
export interface Model {
  /** Who serves it (`"openai"`, `"scripted"`, …). */
  readonly provider: string;
  /** The model's name at that provider. */
  readonly id: string;
  /** Streams one turn. */
  readonly stream: StreamFn;
  /** Releases connections or processes the model holds, if any. */
  dispose?(): void | Promise<void>;
}
