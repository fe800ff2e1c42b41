/**
 * Message and content types shared by the loop, providers and tools.
 *
 * @module
 */

/** Plain text content. */
export type TextContent = { type: "text"; text: string };

/** An image, base64-encoded. */
export type ImageContent = { type: "image"; data: string; mimeType: string };

/** Reasoning the model showed before answering. */
export type ThinkingContent = { type: "thinking"; thinking: string };

/** The model's request to run a tool. `id` pairs it with its {@linkcode ToolResultMessage}. */
export type ToolCall = {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set by a provider when the streamed argument text was not a JSON object; the call
   * then ends at the argument gate with this text, and never runs.
   */
  argumentsError?: string;
};

/** Why an assistant message ended. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** Token counts for one model response (`cost` in the provider's currency unit, usually USD). */
export type Usage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
};

/** A message from the user. */
export type UserMessage = {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
};

/** A message from the model. */
export type AssistantMessage = {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  stopReason: StopReason;
  errorMessage?: string;
  usage: Usage;
  provider: string;
  model: string;
  timestamp: number;
};

/** What the loop kept back when a result went over its character budget. */
export type ResultTruncation = {
  /** Text characters the tool returned. */
  originalChars: number;
  /** Text characters the model was shown (head and tail, without the note). */
  keptChars: number;
  /** The untruncated content, for the host: never sent to the model. */
  fullContent: (TextContent | ImageContent)[];
};

/** The outcome of one tool call, paired with it by `toolCallId`. */
export type ToolResultMessage<D = unknown> = {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: D;
  isError: boolean;
  timestamp: number;
  /** Present when the result went over the budget; see {@linkcode ResultTruncation}. */
  truncation?: ResultTruncation;
  /**
   * Present when the tool asked to stop after its batch (`terminate: true`): kept so that a
   * batch resumed after an interruption still stops only if every result asked to.
   */
  terminate?: true;
};

/** Any message of the transcript. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * A zeroed {@linkcode Usage}, for messages that used no tokens.
 *
 * @returns A fresh usage record with every count at zero.
 *
 * @example Starting a usage record
 * ```ts
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(emptyUsage().totalTokens, 0);
 * ```
 */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * The tool calls of a message (none unless it is an assistant message).
 *
 * @param message The message.
 * @returns Its `toolCall` blocks, in order.
 *
 * @example
 * ```ts
 * import { toolCallsOf } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(toolCallsOf({ role: "user", content: "hi", timestamp: 0 }).length, 0);
 * ```
 */
export function toolCallsOf(message: Message | undefined): ToolCall[] {
  const calls: ToolCall[] = [];
  if (message?.role !== "assistant") return calls;
  for (const block of message.content) if (block.type === "toolCall") calls.push(block);
  return calls;
}
