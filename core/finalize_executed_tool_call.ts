/**
 * The `afterToolCall` step: hooks may override a result field by field.
 *
 * @module
 */

import { boundHook } from "./bound_hook.ts";
import { invalidContentReason } from "./check_tool_result.ts";
import { abortedWhileRunningMessage } from "./execute_prepared_tool_call.ts";
import { hookTimedOutMessage } from "./prepare_tool_call.ts";
import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import type { ExecutedToolCall } from "./execute_prepared_tool_call.ts";
import type { AfterToolCallHook, AfterToolCallResult, AgentContext } from "./hooks.ts";
import type { AssistantMessage } from "./messages.ts";
import type { PreparedToolCall } from "./prepare_tool_call.ts";
import type { MaybePromise } from "./maybe_promise.ts";

/**
 * A result with an `afterToolCall` hook's override applied field by field: each field the
 * hook sets replaces the result's, each it leaves out (or `undefined`) is kept.
 *
 * @param executed The result and error flag so far.
 * @param override What the hook returned.
 * @returns The overridden result and error flag.
 *
 * @example The hook replaces the content and keeps the details
 * ```ts
 * import { overrideResult } from "./finalize_executed_tool_call.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const executed = { result: { content: [], details: 1 }, isError: false };
 * const content = [{ type: "text" as const, text: "redacted" }];
 * deepEqual(overrideResult(executed, { content }), {
 *   result: { content, details: 1, terminate: undefined },
 *   isError: false,
 * });
 * ```
 */
export function overrideResult(
  executed: ExecutedToolCall,
  override: AfterToolCallResult,
): ExecutedToolCall {
  return {
    result: {
      content: override.content ?? executed.result.content,
      details: override.details !== undefined ? override.details : executed.result.details,
      terminate: override.terminate ?? executed.result.terminate,
    },
    isError: override.isError ?? executed.isError,
  };
}

/** Why an `afterToolCall` override cannot be applied (content no result may have, a flag that is not a boolean). */
function invalidOverrideReason(override: AfterToolCallResult): string | undefined {
  for (const flag of ["isError", "terminate"] as const) {
    const value = override[flag];
    if (value !== undefined && typeof value !== "boolean") {
      return `${flag} must be a boolean, got ${
        typeof value === "string" ? JSON.stringify(value) : typeof value
      }`;
    }
  }
  return override.content === undefined ? undefined : invalidContentReason(override.content);
}

/**
 * Applies `afterToolCall` to an executed call. Skipped when the run was aborted (the
 * result says so already). A hook that throws makes the result an error.
 *
 * @param prepared The call as prepared.
 * @param executed Its raw outcome.
 * @param assistantMessage The message that asked for it.
 * @param context What the hooks see: the transcript, and this turn's system prompt and tools.
 * @param afterToolCall The (composed) hook, if any.
 * @param signal The run's abort signal.
 * @param hookTimeoutMs How long the hooks may take (the result is withheld past it).
 * @returns The final result and error flag (synchronously when there is no hook); never rejects.
 *
 * @example Without a hook the result passes through
 * ```ts
 * import { emptyUsage, finalizeExecutedToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const toolCall = { type: "toolCall" as const, id: "1", name: "t", arguments: {} };
 * const tool = { name: "t", description: "", parameters: {}, execute: () => ({ content: [] }) };
 * const executed = { result: { content: [] }, isError: false };
 * const message = {
 *   role: "assistant" as const, content: [toolCall], stopReason: "toolUse" as const,
 *   usage: emptyUsage(), provider: "demo", model: "demo", timestamp: 0,
 * };
 * const final = await finalizeExecutedToolCall(
 *   { kind: "prepared", toolCall, tool, args: {} }, executed, message,
 *   { systemPrompt: "", messages: [], tools: [] }, undefined, new AbortController().signal,
 * );
 * equal(final, executed);
 * ```
 */
export function finalizeExecutedToolCall(
  prepared: PreparedToolCall,
  executed: ExecutedToolCall,
  assistantMessage: AssistantMessage,
  context: AgentContext,
  afterToolCall: AfterToolCallHook | undefined,
  signal: AbortSignal,
  hookTimeoutMs: number = Infinity,
): MaybePromise<ExecutedToolCall> {
  if (!afterToolCall || signal.aborted) return executed;
  return applyAfterToolCall(
    prepared,
    executed,
    assistantMessage,
    context,
    afterToolCall,
    signal,
    hookTimeoutMs,
  );
}

async function applyAfterToolCall(
  prepared: PreparedToolCall,
  executed: ExecutedToolCall,
  assistantMessage: AssistantMessage,
  context: AgentContext,
  afterToolCall: AfterToolCallHook,
  signal: AbortSignal,
  hookTimeoutMs: number,
): Promise<ExecutedToolCall> {
  // Its signal aborts when the loop stops waiting: a composed chain asks no later hook.
  const outcome = await boundHook(
    (hooks) =>
      afterToolCall({
        assistantMessage,
        toolCall: prepared.toolCall,
        tool: prepared.tool,
        args: prepared.args,
        result: executed.result,
        isError: executed.isError,
        context,
      }, hooks),
    signal,
    hookTimeoutMs,
  );
  const name = prepared.tool.name;
  // Withholding protects a successful result; an error result (a timeout, say) stands.
  if ((outcome.kind === "timeout" || outcome.kind === "abort") && executed.isError) return executed;
  if (outcome.kind === "timeout") {
    return {
      result: createErrorToolResult(hookTimedOutMessage(name, "afterToolCall", hookTimeoutMs)),
      isError: true,
    };
  }
  if (outcome.kind === "abort") {
    return { result: createErrorToolResult(abortedWhileRunningMessage(name)), isError: true };
  }
  if (outcome.kind === "error") {
    return { result: errorToToolResult(outcome.error, "afterToolCall failed: "), isError: true };
  }
  try {
    const override = outcome.value;
    if (!override) return executed;
    const problem = invalidOverrideReason(override);
    if (problem !== undefined) {
      return {
        result: createErrorToolResult(
          `Tool ${name}: an afterToolCall hook returned an invalid result: ${problem}`,
        ),
        isError: true,
      };
    }
    return overrideResult(executed, override);
  } catch (error) {
    return { result: errorToToolResult(error, "afterToolCall failed: "), isError: true };
  }
}
