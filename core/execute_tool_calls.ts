/**
 * Executes the tool calls of one assistant message, in parallel or in order.
 *
 * @module
 */

import type { AgentEvent, AgentEventSink } from "./agent_event.ts";
import { applyResultBudget } from "./apply_result_budget.ts";
import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import { CallWatch } from "./call_watch.ts";
import { type ExecutedToolCall, executePreparedToolCall } from "./execute_prepared_tool_call.ts";
import { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
import { finalizeExecutedToolCall } from "./finalize_executed_tool_call.ts";
import type { AgentContext } from "./hooks.ts";
import {
  DEFAULT_MAX_RESULT_CHARS,
  type LoopConfig,
  timeoutsFor,
  type ToolIndex,
} from "./loop_config.ts";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "./messages.ts";
import {
  abortedBeforeStartMessage,
  type DeferredToolCall,
  type PreparedToolCall,
  prepareToolCall,
  type ToolCallPreparation,
} from "./prepare_tool_call.ts";
import type { AgentTool } from "./tool.ts";

/** What `executeToolCalls` reads. It writes nothing but events. */
export interface ExecuteToolCallsInput {
  /** The message that asked for the calls. */
  assistantMessage: AssistantMessage;
  /** Its `toolCall` blocks, in order. */
  toolCalls: readonly ToolCall[];
  /** The run's tools by name. */
  tools: ToolIndex;
  /** The run's state, for hooks. */
  context: AgentContext;
  /** Execution mode, timeouts, budget and hooks. */
  config: LoopConfig;
  /** The run's abort signal. */
  signal: AbortSignal;
  /** Receives the tool events. */
  emit: AgentEventSink;
  /** Calls already decided (a resumed batch): used instead of preparing them. */
  resolved?: ReadonlyMap<string, ToolCallPreparation>;
}

/** The outcome of a batch: one result message per call, in call order. */
export interface ToolBatch {
  /** One result message per call, in call order. */
  messages: ToolResultMessage[];
  /** Every result asked to stop after this batch. */
  terminate: boolean;
  /** Calls a hook deferred, in call order: they have no result message yet. */
  deferred: DeferredToolCall[];
}

/**
 * The error text of a call from a message cut off at the token limit.
 *
 * @param toolName The tool that was not run.
 * @returns The message for its error result.
 */
export function truncatedCallMessage(toolName: string): string {
  return `Tool ${toolName} was not run: your response was cut off at the output token limit ` +
    `(stopReason "length"), so its arguments may be incomplete. Re-issue the call, with shorter ` +
    `arguments if you can.`;
}

interface Finished extends ExecutedToolCall {
  toolCall: ToolCall;
  tool?: AgentTool;
  /** The arguments it ran with, if it ran. */
  args?: Record<string, unknown>;
  blockedBy?: string;
  rewrittenBy?: readonly string[];
}

interface Settled {
  /** Absent for a deferred call. */
  message?: ToolResultMessage;
  terminate: boolean;
  deferred?: DeferredToolCall;
}

function deferCall(input: ExecuteToolCallsInput, call: DeferredToolCall): Settled {
  const event: Extract<AgentEvent, { type: "tool_execution_deferred" }> = {
    type: "tool_execution_deferred",
    toolCallId: call.toolCall.id,
    toolName: call.tool.name,
    args: call.args,
    reason: call.reason,
  };
  if (call.deferredBy !== undefined) event.deferredBy = call.deferredBy;
  input.emit(event);
  return { terminate: false, deferred: call };
}

function finish(input: ExecuteToolCallsInput, done: Finished): Settled {
  const budget = done.tool?.maxResultChars ?? input.config.maxResultChars ??
    DEFAULT_MAX_RESULT_CHARS;
  const { result, truncation } = applyResultBudget(done.result, budget);
  const { toolCall } = done;
  const end: Extract<AgentEvent, { type: "tool_execution_end" }> = {
    type: "tool_execution_end",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    result,
    isError: done.isError,
  };
  if (done.args !== undefined) end.args = done.args;
  if (done.blockedBy !== undefined) end.blockedBy = done.blockedBy;
  if (done.rewrittenBy !== undefined) end.rewrittenBy = done.rewrittenBy;
  input.emit(end);
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    details: result.details,
    isError: done.isError,
    timestamp: Date.now(),
  };
  if (truncation) message.truncation = truncation;
  return { message, terminate: result.terminate === true };
}

/** `finish`, guaranteed not to throw: whatever goes wrong, the call still gets one result. */
function settle(input: ExecuteToolCallsInput, done: Finished): Settled {
  try {
    return finish(input, done);
  } catch (error) {
    return finish(input, {
      toolCall: done.toolCall,
      tool: done.tool,
      result: errorToToolResult(error, `Cannot finish tool call ${done.toolCall.name}: `),
      isError: true,
    });
  }
}

function run(
  input: ExecuteToolCallsInput,
  prepared: PreparedToolCall,
  watch: CallWatch,
): MaybePromise<Finished> {
  const { tool, toolCall } = prepared;
  if (input.signal.aborted) {
    return {
      toolCall,
      tool,
      result: createErrorToolResult(abortedBeforeStartMessage(tool.name)),
      isError: true,
    };
  }
  const { callMs } = timeoutsFor(tool, input.config);
  const executed = executePreparedToolCall(prepared, input.signal, callMs, input.emit, watch);
  return isPromiseLike<ExecutedToolCall>(executed)
    ? executed.then((done) => afterRun(input, prepared, done))
    : afterRun(input, prepared, executed);
}

function afterRun(
  input: ExecuteToolCallsInput,
  prepared: PreparedToolCall,
  executed: ExecutedToolCall,
): MaybePromise<Finished> {
  const final = finalizeExecutedToolCall(
    prepared,
    executed,
    input.assistantMessage,
    input.context,
    input.config.afterToolCall,
    input.signal,
    timeoutsFor(prepared.tool, input.config).hookMs,
  );
  const { toolCall, tool, args, rewrittenBy } = prepared;
  return isPromiseLike<ExecutedToolCall>(final)
    ? final.then((f) => ({
      toolCall,
      tool,
      args,
      rewrittenBy,
      result: f.result,
      isError: f.isError,
    }))
    : { toolCall, tool, args, rewrittenBy, result: final.result, isError: final.isError };
}

function start(
  input: ExecuteToolCallsInput,
  toolCall: ToolCall,
): MaybePromise<ToolCallPreparation> {
  input.emit({
    type: "tool_execution_start",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: toolCall.arguments,
  });
  const resolved = input.resolved?.get(toolCall.id);
  if (resolved) return resolved;
  if (input.assistantMessage.stopReason === "length") {
    return {
      kind: "immediate",
      toolCall,
      result: createErrorToolResult(truncatedCallMessage(toolCall.name)),
      isError: true,
    };
  }
  return prepareToolCall({
    toolCall,
    assistantMessage: input.assistantMessage,
    tools: input.tools,
    context: input.context,
    beforeToolCall: input.config.beforeToolCall,
    verifyToolCall: input.config.verifyToolCall,
    timeouts: input.config,
    signal: input.signal,
  });
}

function emitResultMessage(input: ExecuteToolCallsInput, message?: ToolResultMessage): void {
  if (!message) return;
  input.emit({ type: "message_start", message });
  input.emit({ type: "message_end", message });
}

function isSequential(input: ExecuteToolCallsInput): boolean {
  if (input.config.toolExecution === "sequential") return true;
  for (const call of input.toolCalls) {
    if (input.tools.get(call.name)?.executionMode === "sequential") return true;
  }
  return false;
}

async function executeSequential(input: ExecuteToolCallsInput): Promise<Settled[]> {
  const settled: Settled[] = [];
  const watch = new CallWatch(input.signal);
  try {
    for (const toolCall of input.toolCalls) {
      let preparation = start(input, toolCall);
      if (isPromiseLike<ToolCallPreparation>(preparation)) preparation = await preparation;
      if (preparation.kind === "deferred") {
        // Sequential means each call finishes before the next starts: the calls after a
        // deferred one wait with it (no result yet) and run after it on resume.
        settled.push(deferCall(input, preparation));
        break;
      }
      let done: Finished;
      if (preparation.kind === "immediate") done = preparation;
      else {
        const running = run(input, preparation, watch);
        watch.seal();
        try {
          done = isPromiseLike<Finished>(running) ? await running : running;
        } catch (error) {
          done = {
            toolCall,
            tool: preparation.tool,
            result: errorToToolResult(error),
            isError: true,
          };
        }
      }
      const one = settle(input, done);
      emitResultMessage(input, one.message);
      settled.push(one);
    }
  } finally {
    watch.dispose();
  }
  return settled;
}

async function executeParallel(input: ExecuteToolCallsInput): Promise<Settled[]> {
  const slots: (Settled | PreparedToolCall)[] = [];
  for (const toolCall of input.toolCalls) {
    let preparation = start(input, toolCall);
    if (isPromiseLike<ToolCallPreparation>(preparation)) preparation = await preparation;
    slots.push(
      preparation.kind === "prepared"
        ? preparation
        : preparation.kind === "deferred"
        ? deferCall(input, preparation)
        : settle(input, preparation),
    );
  }
  const settled: Settled[] = new Array(slots.length);
  const pending: Promise<void>[] = [];
  const watch = new CallWatch(input.signal);
  try {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      if (!("kind" in slot)) {
        settled[i] = slot;
        continue;
      }
      const done = run(input, slot, watch);
      if (isPromiseLike<Finished>(done)) {
        pending.push(done.then(
          (d) => void (settled[i] = settle(input, d)),
          (error) =>
            void (settled[i] = settle(input, {
              toolCall: slot.toolCall,
              tool: slot.tool,
              result: errorToToolResult(error),
              isError: true,
            })),
        ));
      } else settled[i] = settle(input, done);
    }
    watch.seal();
    if (pending.length > 0) await Promise.all(pending);
  } finally {
    watch.dispose();
  }
  for (const one of settled) emitResultMessage(input, one.message);
  return settled;
}

/**
 * Runs every tool call of an assistant message and returns one result message per call,
 * in call order. Parallel unless the config says `"sequential"` or any called tool
 * declares `executionMode: "sequential"`. Pure: it writes nothing but events, and never
 * rejects.
 *
 * Parallel: calls are prepared in order, then all prepared calls run at once;
 * `tool_execution_end` comes in completion order, result messages in call order.
 * Sequential: each call finishes before the next starts. A call a hook deferred does not
 * run and gets no result message; it is returned in `deferred` (in a sequential batch the
 * calls after it do not start either).
 *
 * @param input The message, its calls, the tools, config, signal and event sink.
 * @returns The result messages and whether the batch asked to stop.
 *
 * @example Two calls, one unknown tool
 * ```ts
 * import { emptyUsage, executeToolCalls, indexTools, scriptedModel } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const echo = {
 *   name: "echo", description: "echo", parameters: { type: "object" },
 *   execute: () => ({ content: [{ type: "text" as const, text: "hi" }] }),
 * };
 * const toolCalls = [
 *   { type: "toolCall" as const, id: "a", name: "echo", arguments: {} },
 *   { type: "toolCall" as const, id: "b", name: "banana", arguments: {} },
 * ];
 * const assistantMessage = {
 *   role: "assistant" as const, content: toolCalls, stopReason: "toolUse" as const,
 *   usage: emptyUsage(), provider: "demo", model: "demo", timestamp: 0,
 * };
 * const batch = await executeToolCalls({
 *   assistantMessage, toolCalls, tools: indexTools([echo]), emit: () => {},
 *   context: { systemPrompt: "", messages: [], tools: [echo] },
 *   config: { model: scriptedModel([]) }, signal: new AbortController().signal,
 * });
 * equal(batch.messages.map((m) => m.isError).join(), "false,true");
 * ```
 */
export async function executeToolCalls(input: ExecuteToolCallsInput): Promise<ToolBatch> {
  const settled = isSequential(input)
    ? await executeSequential(input)
    : await executeParallel(input);
  const messages: ToolResultMessage[] = [];
  const deferred: DeferredToolCall[] = [];
  let terminate = settled.length > 0;
  for (const one of settled) {
    if (one.message) messages.push(one.message);
    if (one.deferred) deferred.push(one.deferred);
    if (!one.terminate) terminate = false;
  }
  return { messages, terminate, deferred };
}
