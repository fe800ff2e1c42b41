/**
 * One attempt at streaming a turn from the Chat Completions API, mapped to the
 * assistant event protocol.
 *
 * @module
 */

import type OpenAI from "@openai/openai";
import type { ModelRequest } from "../../../core/model.ts";
import { toChatMessages } from "./convert_messages.ts";
import { toFunctionTool } from "./convert_tools.ts";
import type { RequestSettings } from "./settings.ts";
import { IncompleteStreamError } from "./stream_error.ts";
import { onStreamRead, quote } from "./reply_fetch.ts";
import type { StreamingMessage } from "./streaming_message.ts";

type Params = OpenAI.Chat.ChatCompletionCreateParamsStreaming;
type Chunk = OpenAI.Chat.ChatCompletionChunk;

/** The delta fields servers put reasoning in (llama.cpp, vLLM, Ollama, OpenRouter, …). */
/** The delta fields servers stream reasoning in (read by the replay redactor too). */
export const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/**
 * Builds the Chat Completions request body for a turn.
 *
 * @param request The system prompt, transcript and tools.
 * @param settings The model and its knobs.
 * @returns The streaming request body (usage included in the stream).
 *
 * @example
 * ```ts
 * import { chatCompletionParams } from "./stream_chat_completions.ts";
 * import OpenAI from "@openai/openai";
 * import { equal } from "node:assert/strict";
 *
 * const params = chatCompletionParams(
 *   { systemPrompt: "", messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [] },
 *   {
 *     client: new OpenAI({ apiKey: "k" }), model: "gpt-test", baseURL: "https://x/v1",
 *     maxTokensField: "max_tokens", strictTools: true, maxTokens: 100,
 *   },
 * );
 * equal(params.max_tokens, 100);
 * equal(params.stream_options?.include_usage, true);
 * ```
 */
export function chatCompletionParams(request: ModelRequest, settings: RequestSettings): Params {
  const params: Params = {
    model: settings.model,
    messages: toChatMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => {
      const { name, description, parameters, strict } = toFunctionTool(tool, settings.strictTools);
      return { type: "function" as const, function: { name, description, parameters, strict } };
    });
  }
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  if (settings.maxTokens !== undefined) params[settings.maxTokensField] = settings.maxTokens;
  if (settings.reasoningEffort !== undefined) params.reasoning_effort = settings.reasoningEffort;
  return params;
}

/**
 * Maps a chat `finish_reason` to a stop reason, or to an error text for the ones that
 * mean the answer was withheld.
 *
 * @param reason The finish reason the server sent (quoted in the error text: folded, cut).
 * @param hasToolCalls Whether the message has tool calls (some servers say `"stop"`).
 * @returns The stop reason, or `{ error }`.
 *
 * @example
 * ```ts
 * import { mapFinishReason } from "@tack/agent/sdk/providers/openai";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * equal(mapFinishReason("tool_calls", true), "toolUse");
 * equal(mapFinishReason("length", false), "length");
 * deepEqual(mapFinishReason("content_filter", false), {
 *   error: "the provider withheld the answer (finish_reason: content_filter)",
 * });
 * ```
 */
export function mapFinishReason(
  reason: string,
  hasToolCalls: boolean,
): "stop" | "length" | "toolUse" | { error: string } {
  switch (reason) {
    case "stop":
    case "end":
    case "eos":
      return hasToolCalls ? "toolUse" : "stop";
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "toolUse";
    default:
      return {
        error: `the provider withheld the answer (finish_reason: ${quote(String(reason))})`,
      };
  }
}

/** Splits a stream's text and reasoning into blocks, a new one whenever the kind changes. */
class ChatMapping {
  #segment = 0;
  #kind: "text" | "thinking" | "toolCall" | undefined;
  /** Tool-call stream index to block key (an index reused with a new id opens a new call). */
  #calls = new Map<number, { key: string; id: string | undefined; named: boolean }>();
  /** The index of the call the last tool-call delta went to. */
  #lastIndex: number | undefined;
  /** One past the highest index seen, for a call that comes without one. */
  #nextIndex = 0;
  finishReason: string | undefined;

  constructor(readonly out: StreamingMessage) {}

  #switchTo(kind: "text" | "thinking" | "toolCall"): void {
    if (this.#kind === kind) return;
    if (this.#kind === "text" || this.#kind === "thinking") this.out.end(this.#key(this.#kind));
    this.#kind = kind;
    this.#segment++;
  }

  #key(kind: "text" | "thinking"): string {
    return `${kind}:${this.#segment}`;
  }

  chunk(chunk: Chunk): void {
    if (typeof chunk !== "object" || chunk === null) return; // `data: null`, `data: 5`
    if (chunk.usage) {
      this.out.setUsage({
        input: chunk.usage.prompt_tokens,
        output: chunk.usage.completion_tokens,
        cached: chunk.usage.prompt_tokens_details?.cached_tokens,
      });
    }
    const choice = chunk.choices?.[0];
    if (typeof choice !== "object" || choice === null) return;
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (delta) {
      for (const field of REASONING_FIELDS) {
        const value = delta[field];
        if (typeof value === "string" && value !== "") {
          this.#switchTo("thinking");
          this.out.appendText(this.#key("thinking"), "thinking", value);
          break; // servers that send two fields send the same text twice
        }
      }
      if (typeof delta.content === "string" && delta.content !== "") {
        this.#switchTo("text");
        this.out.appendText(this.#key("text"), "text", delta.content);
      }
      const calls = choice.delta.tool_calls;
      if (Array.isArray(calls)) {
        for (const call of calls) {
          if (typeof call === "object" && call !== null) this.#toolCall(call);
        }
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  #toolCall(call: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    this.#switchTo("toolCall");
    // The server's JSON, unchecked: an id or name that is not a string counts as absent.
    const id = typeof call.id === "string" ? call.id : undefined;
    const name = typeof call.function?.name === "string" ? call.function.name : undefined;
    const index = typeof call.index === "number" ? call.index : this.#indexOf(id, name);
    this.#lastIndex = index;
    this.#nextIndex = Math.max(this.#nextIndex, index + 1);
    let entry = this.#calls.get(index);
    if (!entry || (id && entry.id && id !== entry.id)) {
      entry = { key: `tool:${index}:${id ?? this.#calls.size}`, id, named: false };
      this.#calls.set(index, entry);
    }
    entry.id ??= id;
    if (name) entry.named = true;
    this.out.openToolCall(entry.key, id, name);
    if (call.function?.arguments) this.out.appendArguments(entry.key, call.function.arguments);
  }

  /**
   * The index of a delta that has none: the last call's when it continues that call (that
   * call's id; or no id, and no name or the last call has none yet); else a new one, as for
   * a server that sends each whole call without an index or id.
   */
  #indexOf(id: string | undefined, name: string | undefined): number {
    const last = this.#lastIndex;
    const entry = last === undefined ? undefined : this.#calls.get(last);
    // Its own id continues it; with no id, so does a delta that names no tool (or names
    // the tool of a call still unnamed).
    if (entry && (id ? id === entry.id : !name || !entry.named)) return last!;
    return this.#nextIndex;
  }
}

/**
 * Streams one attempt: sends the request, maps every chunk into `out`, and ends the
 * message with `done` (or `error` for a withheld answer). Throws what the request or
 * the stream failed with, for the caller to retry or report; returns quietly when
 * aborted (the caller checks the signal).
 *
 * @param request The turn's request.
 * @param settings Client, model and knobs.
 * @param out The message being built.
 * @param signal Cancels the HTTP request.
 * @param onChunk Called whenever bytes arrive, comments included (the idle watchdog).
 * @returns Once the message has ended, or the stream stopped on abort.
 * @throws {Error} The client's error (HTTP status, connection, malformed chunk), or
 *   {@linkcode IncompleteStreamError} when the stream stopped without a finish reason.
 */
export async function streamChatCompletions(
  request: ModelRequest,
  settings: RequestSettings,
  out: StreamingMessage,
  signal: AbortSignal,
  onChunk: () => void = () => {},
): Promise<void> {
  const { data: stream, response } = await settings.client.chat.completions.create(
    chatCompletionParams(request, settings),
    { signal },
  ).withResponse();
  onStreamRead(response, onChunk);
  out.start();
  const mapping = new ChatMapping(out);
  for await (const chunk of stream) {
    onChunk();
    mapping.chunk(chunk);
  }
  if (signal.aborted) return;
  if (mapping.finishReason === undefined) throw new IncompleteStreamError();
  const hasToolCalls = out.message.content.some((block) => block.type === "toolCall");
  const reason = mapFinishReason(mapping.finishReason, hasToolCalls);
  if (typeof reason === "object") out.fail("error", `${settings.baseURL}: ${reason.error}`);
  else out.finish(reason);
}
