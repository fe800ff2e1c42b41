/**
 * Testing helpers: a scripted model and builders for its content blocks. The scripted
 * model is also what `deno task demo` runs on, with no key and no network.
 *
 * @module
 */

import { AssistantMessageStream } from "../core/assistant_message_stream.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type StopReason,
  type TextContent,
  type ThinkingContent,
  type ToolCall,
} from "../core/messages.ts";
import type { Model, ModelRequest, StreamOptions } from "../core/model.ts";
import { sleep } from "./sleep.ts";
import { thrownText } from "../core/thrown_text.ts";

/** A content block of a scripted turn. */
export type ScriptedBlock = TextContent | ThinkingContent | ToolCall;

/** A turn with a stop reason of its own (`"length"`, `"error"`), or a delay. */
export interface ScriptedTurn {
  /** The blocks of the turn. */
  content?: ScriptedBlock[];
  /** Default: `"toolUse"` when there are tool calls, else `"stop"`. */
  stopReason?: StopReason;
  /** For `stopReason: "error"`. */
  errorMessage?: string;
  /** Wait this long before answering (abort ends the wait). */
  delayMs?: number;
}

/** One step of the script: blocks, a turn, or a function of the request that returns one. */
export type ScriptStep =
  | ScriptedBlock[]
  | ScriptedTurn
  | ((
    request: ModelRequest,
  ) => ScriptedBlock[] | ScriptedTurn | Promise<ScriptedBlock[] | ScriptedTurn>);

/** A request as the scripted model recorded it (`messages` is a snapshot of that turn). */
export interface RecordedRequest {
  /** The system prompt. */
  readonly systemPrompt: string;
  /** The transcript as it was on that turn. */
  readonly messages: readonly ModelRequest["messages"][number][];
  /** The tools offered. */
  readonly tools: ModelRequest["tools"];
}

/** The scripted model, with what it was asked. */
export interface ScriptedModel extends Model {
  /** The requests it was called with, one per turn. */
  readonly requests: readonly RecordedRequest[];
}

/** Options of {@linkcode scriptedModel}. */
export interface ScriptedModelOptions {
  /** The model id to report (default `"scripted"`). */
  id?: string;
  /** Delay before every turn, in ms (default 0). */
  delayMs?: number;
}

let nextId = 0;

/**
 * Builds a tool-call block.
 *
 * @param name The tool to call.
 * @param args Its arguments.
 * @param id The call's id (default: a fresh `call_N`).
 * @returns The block.
 *
 * @example
 * ```ts
 * import { toolCall } from "@tack/agent/sdk/testing";
 * import { equal } from "node:assert/strict";
 *
 * equal(toolCall("get_weather", { city: "Paris" }, "c1").id, "c1");
 * ```
 */
export function toolCall(name: string, args: Record<string, unknown> = {}, id?: string): ToolCall {
  return { type: "toolCall", id: id ?? `call_${++nextId}`, name, arguments: args };
}

/**
 * Builds a text block.
 *
 * @param text The text.
 * @returns The block.
 *
 * @example
 * ```ts
 * import { text } from "@tack/agent/sdk/testing";
 * import { equal } from "node:assert/strict";
 *
 * equal(text("hi").text, "hi");
 * ```
 */
export function text(text: string): TextContent {
  return { type: "text", text };
}

/**
 * Builds a thinking block.
 *
 * @param thinking The reasoning text.
 * @returns The block.
 *
 * @example
 * ```ts
 * import { thinking } from "@tack/agent/sdk/testing";
 * import { equal } from "node:assert/strict";
 *
 * equal(thinking("hmm").type, "thinking");
 * ```
 */
export function thinking(thinking: string): ThinkingContent {
  return { type: "thinking", thinking };
}

function record(request: ModelRequest): RecordedRequest {
  const source = request.messages;
  const length = source.length;
  let snapshot: readonly ModelRequest["messages"][number][] | undefined;
  return {
    systemPrompt: request.systemPrompt,
    tools: request.tools,
    get messages() {
      return snapshot ??= source.slice(0, length);
    },
  };
}

function streamTurn(
  stream: AssistantMessageStream,
  message: AssistantMessage,
  blocks: ScriptedBlock[],
): void {
  const partial: AssistantMessage = { ...message, content: [] };
  stream.push({ type: "start", partial });
  for (const block of blocks) {
    const contentIndex = partial.content.length;
    partial.content.push(block);
    if (block.type === "text") {
      stream.push({ type: "text_start", contentIndex, partial });
      stream.push({ type: "text_delta", contentIndex, delta: block.text, partial });
      stream.push({ type: "text_end", contentIndex, content: block.text, partial });
    } else if (block.type === "thinking") {
      stream.push({ type: "thinking_start", contentIndex, partial });
      stream.push({ type: "thinking_delta", contentIndex, delta: block.thinking, partial });
      stream.push({ type: "thinking_end", contentIndex, content: block.thinking, partial });
    } else {
      stream.push({ type: "toolcall_start", contentIndex, partial });
      stream.push({
        type: "toolcall_delta",
        contentIndex,
        delta: JSON.stringify(block.arguments),
        partial,
      });
      stream.push({ type: "toolcall_end", contentIndex, toolCall: block, partial });
    }
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    stream.push({ type: "error", reason: message.stopReason, error: message });
  } else {
    stream.push({ type: "done", reason: message.stopReason, message });
  }
}

/** A scripted model's script, options and record. */
interface Script {
  readonly script: readonly ScriptStep[];
  readonly options: ScriptedModelOptions;
  readonly id: string;
  readonly requests: RecordedRequest[];
}

// The model's turn is played by module functions, not closures made per model: V8 drops the
// code it optimized for a closure at a full GC that finds none alive (core/keep_layout.ts).

function scripted(
  model: Script,
  stopReason: StopReason,
  content: ScriptedBlock[],
  errorMessage?: string,
): AssistantMessage {
  const message: AssistantMessage = {
    role: "assistant",
    content,
    stopReason,
    usage: emptyUsage(),
    provider: "scripted",
    model: model.id,
    timestamp: Date.now(),
  };
  if (errorMessage !== undefined) message.errorMessage = errorMessage;
  return message;
}

function aborted(model: Script): AssistantMessage {
  return scripted(model, "aborted", [], "The request was aborted");
}

async function play(
  model: Script,
  request: ModelRequest,
  signal: AbortSignal | undefined,
  stream: AssistantMessageStream,
): Promise<void> {
  const { script, options, requests } = model;
  const turn = requests.length;
  requests.push(record(request));
  if (options.delayMs) await sleep(options.delayMs, signal);
  if (signal?.aborted) return streamTurn(stream, aborted(model), []);
  const step = script[turn];
  if (step === undefined) {
    const message = `Scripted model has no step for turn ${
      turn + 1
    } (the script has ${script.length})`;
    return streamTurn(stream, scripted(model, "error", [], message), []);
  }
  let outcome: ScriptedBlock[] | ScriptedTurn;
  try {
    outcome = typeof step === "function" ? await step(request) : step;
  } catch (error) {
    const message = `Scripted step ${turn + 1} threw: ${
      error instanceof Error ? error.message : error
    }`;
    return streamTurn(stream, scripted(model, "error", [], message), []);
  }
  const turnSpec: ScriptedTurn = Array.isArray(outcome) ? { content: outcome } : outcome;
  if (turnSpec.delayMs) await sleep(turnSpec.delayMs, signal);
  if (signal?.aborted) return streamTurn(stream, aborted(model), []);
  const content = turnSpec.content ?? [];
  const stopReason = turnSpec.stopReason ??
    (content.some((block) => block.type === "toolCall") ? "toolUse" : "stop");
  streamTurn(stream, scripted(model, stopReason, content, turnSpec.errorMessage), content);
}

/**
 * A model that plays a script, one step per turn, streaming each step's blocks as the
 * real providers do. The stop reason follows from the blocks (`toolUse` when there are
 * tool calls, else `stop`) unless the step says otherwise. Running past the script ends
 * the turn with `stopReason: "error"` and a message saying so. Honours abort.
 *
 * @param script The steps, in turn order.
 * @param options Model id and a per-turn delay.
 * @returns The model, with `requests` recording what it was asked.
 *
 * @example A tool call, then an answer that reads its result
 * ```ts
 * import { scriptedModel, text, toolCall } from "@tack/agent/sdk/testing";
 * import { equal } from "node:assert/strict";
 *
 * const model = scriptedModel([
 *   [toolCall("get_weather", { city: "Paris" })],
 *   (request) => [text(`I got ${request.messages.length} messages.`)],
 * ]);
 * equal(model.requests.length, 0);
 * ```
 */
export function scriptedModel(
  script: readonly ScriptStep[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const model: Script = { script, options, id: options.id ?? "scripted", requests: [] };
  return {
    provider: "scripted",
    id: model.id,
    requests: model.requests,
    stream(request: ModelRequest, streamOptions: StreamOptions) {
      const stream = new AssistantMessageStream();
      play(model, request, streamOptions.signal, stream).catch((error) => {
        if (!stream.ended) streamTurn(stream, scripted(model, "error", [], thrownText(error)), []);
      });
      return stream;
    },
  };
}
