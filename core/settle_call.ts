/**
 * How a tool call's outcome leaves the executor: its `tool_execution_end` (or
 * `tool_execution_deferred`) event, and its result message under the result budget.
 *
 * @module
 */

import type { AgentEvent, AgentEventSink } from "./agent_event.ts";
import { applyResultBudget } from "./apply_result_budget.ts";
import { errorToToolResult } from "./create_error_tool_result.ts";
import type { ExecutedToolCall } from "./execute_prepared_tool_call.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "./loop_config.ts";
import type { ToolCall, ToolResultMessage } from "./messages.ts";
import type { DeferredToolCall } from "./prepare_tool_call.ts";
import type { AgentTool } from "./tool.ts";

/** What a call ended with, and what its end event says about it. */
export interface Finished extends ExecutedToolCall {
  /** The call. */
  toolCall: ToolCall;
  /** Its tool, when it exists. */
  tool?: AgentTool;
  /** The arguments it ran with, if it ran. */
  args?: Record<string, unknown>;
  /** The hook that blocked it. */
  blockedBy?: string;
  /** The hooks that rewrote its arguments. */
  rewrittenBy?: readonly string[];
}

/** A call as its batch keeps it: its result message, or the deferral of a call a hook deferred. */
export type Settled = ToolResultMessage | DeferredToolCall;

/**
 * Whether a settled call was deferred (it has no result message yet).
 *
 * @param one The call as its batch keeps it.
 * @returns `true` for a deferral.
 */
export function isDeferred(one: Settled): one is DeferredToolCall {
  return "kind" in one; // a result message has no `kind`
}

/** Where settling sends its events, and the agent's result budget. */
export interface SettleInput {
  /** Receives the events. */
  emit: AgentEventSink;
  /** The loop's config (its `maxResultChars`). */
  config: { maxResultChars?: number };
}

/**
 * Emits a deferred call's `tool_execution_deferred`: it has no result yet.
 *
 * @param input The event sink.
 * @param call The deferred call.
 * @returns It, as its batch keeps it (the same object).
 *
 * @example
 * ```ts
 * import { deferCall } from "./settle_call.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = { name: "rm", description: "", parameters: {}, execute: () => ({ content: [] }) };
 * const toolCall = { type: "toolCall" as const, id: "c1", name: "rm", arguments: {} };
 * const events: string[] = [];
 * const kept = deferCall({ emit: (e) => events.push(e.type), config: {} },
 *   { kind: "deferred", toolCall, tool, args: {}, reason: "asks" });
 * equal(kept.reason, "asks");
 * equal(events.join(), "tool_execution_deferred");
 * ```
 */
export function deferCall(input: SettleInput, call: DeferredToolCall): DeferredToolCall {
  const event: Extract<AgentEvent, { type: "tool_execution_deferred" }> = {
    type: "tool_execution_deferred",
    toolCallId: call.toolCall.id,
    toolName: call.tool.name,
    args: call.args,
    reason: call.reason,
  };
  if (call.deferredBy !== undefined) event.deferredBy = call.deferredBy;
  input.emit(event);
  return call;
}

function finish(input: SettleInput, finished: Finished): ToolResultMessage {
  const budget = finished.tool?.maxResultChars ?? input.config.maxResultChars ??
    DEFAULT_MAX_RESULT_CHARS;
  const { result, truncation } = applyResultBudget(finished.result, budget);
  const { toolCall } = finished;
  const end: Extract<AgentEvent, { type: "tool_execution_end" }> = {
    type: "tool_execution_end",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    result,
    isError: finished.isError,
  };
  if (finished.args !== undefined) end.args = finished.args;
  if (finished.blockedBy !== undefined) end.blockedBy = finished.blockedBy;
  if (finished.rewrittenBy !== undefined) end.rewrittenBy = finished.rewrittenBy;
  input.emit(end);
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    details: result.details,
    isError: finished.isError,
    timestamp: Date.now(),
  };
  if (truncation) message.truncation = truncation;
  if (result.terminate === true) message.terminate = true;
  return message;
}

/**
 * Emits a finished call's `tool_execution_end` and builds its result message, under the
 * result budget. Never throws for what the call returned: whatever goes wrong (a result
 * the budget cannot measure), the call still gets one result, an error naming it. A throw
 * from the event sink (a host bug) propagates.
 *
 * @param input The event sink and the budget.
 * @param finished The call and what it ended with.
 * @returns Its result message.
 *
 * @example
 * ```ts
 * import { settle } from "./settle_call.ts";
 * import { equal } from "node:assert/strict";
 *
 * const toolCall = { type: "toolCall" as const, id: "c1", name: "echo", arguments: {} };
 * const kept = settle({ emit: () => {}, config: {} }, {
 *   toolCall, result: { content: [{ type: "text", text: "hi" }] }, isError: false,
 * });
 * equal(kept.toolCallId, "c1");
 * ```
 */
export function settle(input: SettleInput, finished: Finished): ToolResultMessage {
  try {
    return finish(input, finished);
  } catch (error) {
    return finish(input, {
      toolCall: finished.toolCall,
      tool: finished.tool,
      result: errorToToolResult(error, `Cannot finish tool call ${finished.toolCall.name}: `),
      isError: true,
    });
  }
}

/**
 * Emits a result message's `message_start` and `message_end`.
 *
 * @param input The event sink.
 * @param message The message.
 *
 * @example
 * ```ts
 * import { emitResultMessage } from "./settle_call.ts";
 * import { equal } from "node:assert/strict";
 *
 * const events: string[] = [];
 * const message = {
 *   role: "toolResult" as const, toolCallId: "c1", toolName: "echo", content: [],
 *   isError: false, timestamp: 0,
 * };
 * emitResultMessage({ emit: (e) => events.push(e.type), config: {} }, message);
 * equal(events.join(), "message_start,message_end");
 * ```
 */
export function emitResultMessage(input: SettleInput, message: ToolResultMessage): void {
  input.emit({ type: "message_start", message });
  input.emit({ type: "message_end", message });
}
