/**
 * Executes the tool calls of one assistant message, in parallel or in order.
 *
 * @module
 */

import type { AgentEventSink } from "./agent_event.ts";
import { createErrorToolResult } from "./create_error_tool_result.ts";
import { CallWatch } from "./call_watch.ts";
import { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
import { type ReadyCall, runAll } from "./parallel_lanes.ts";
import { runCall } from "./run_call.ts";
import type { AgentContext } from "./hooks.ts";
import type { LoopConfig, ToolIndex } from "./loop_config.ts";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "./messages.ts";
import { abortedWhilePendingMessage } from "./interruption.ts";
import {
  abortedBeforeStartMessage,
  type DeferredToolCall,
  prepareToolCall,
  type ToolCallPreparation,
} from "./prepare_tool_call.ts";
import {
  deferCall,
  emitResultMessage,
  type Finished,
  isDeferred,
  settle,
  type Settled,
} from "./settle_call.ts";

/** What `executeToolCalls` reads. It writes nothing but events. */
export interface ExecuteToolCallsInput {
  /** The message that asked for the calls. */
  assistantMessage: AssistantMessage;
  /** Its `toolCall` blocks, in order. */
  toolCalls: readonly ToolCall[];
  /** The tools of this turn by name (the run's, or those `prepareTurn` chose). */
  tools: ToolIndex;
  /** What the hooks see: the transcript, and this turn's system prompt and tools. */
  context: AgentContext;
  /** Execution mode, timeouts, budget and hooks. */
  config: LoopConfig;
  /** The run's abort signal. */
  signal: AbortSignal;
  /** Receives the tool events. */
  emit: AgentEventSink;
  /** The run's watch over running calls; the batch makes (and disposes) one when omitted. */
  watch?: CallWatch;
  /** Calls already decided (a resumed batch): used instead of preparing them. */
  resolved?: ReadonlyMap<string, ToolCallPreparation>;
}

/** The outcome of a batch: its result messages and its deferred calls, each in call order. */
export interface ToolBatch {
  /** One result message per call that has one (a deferred call has none yet), in call order. */
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

/**
 * Starts a call: its `tool_execution_start`, then its preparation (the four gates), or the
 * decision a resumed batch brought, or an error result for a call cut off at the token limit.
 */
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

function isSequential(input: ExecuteToolCallsInput): boolean {
  if (input.config.toolExecution === "sequential") return true;
  for (const call of input.toolCalls) {
    if (input.tools.get(call.name)?.executionMode === "sequential") return true;
  }
  return false;
}

/**
 * After an abort, a call a hook deferred waits for no decision, and the calls of a
 * sequential batch after it never start: each gets its error result now (a call that never
 * started gets its `tool_execution_start` first), so that every call has one.
 *
 * @returns The result messages it made, in call order (they are also put in `settled`).
 */
function closeAborted(
  input: ExecuteToolCallsInput,
  settled: (Settled | undefined)[],
): ToolResultMessage[] {
  const closed: ToolResultMessage[] = [];
  for (let i = 0; i < input.toolCalls.length; i++) {
    const one = settled[i];
    if (one !== undefined && !isDeferred(one)) continue;
    const toolCall = input.toolCalls[i];
    if (one === undefined) {
      input.emit({
        type: "tool_execution_start",
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        args: toolCall.arguments,
      });
    }
    const text = one
      ? abortedWhilePendingMessage(one.tool.name)
      : abortedBeforeStartMessage(toolCall.name);
    const tool = one?.tool ?? input.tools.get(toolCall.name);
    const message = settle(input, {
      toolCall,
      tool,
      result: createErrorToolResult(text),
      isError: true,
    });
    settled[i] = message;
    closed.push(message);
  }
  return closed;
}

async function executeSequential(
  input: ExecuteToolCallsInput,
  watch: CallWatch,
): Promise<(Settled | undefined)[]> {
  const settled: (Settled | undefined)[] = new Array(input.toolCalls.length);
  for (let i = 0; i < input.toolCalls.length; i++) {
    const started = start(input, input.toolCalls[i]);
    const preparation = isPromiseLike<ToolCallPreparation>(started) ? await started : started;
    if (preparation.kind === "deferred") {
      // Sequential means each call finishes before the next starts: the calls after a
      // deferred one wait with it (no result yet) and run after it on resume.
      settled[i] = deferCall(input, preparation);
      break;
    }
    const one = settle(
      input,
      preparation.kind === "immediate"
        ? preparation
        : await new Promise<Finished>((done) => runCall(input, preparation, i, watch, done)),
    );
    emitResultMessage(input, one);
    settled[i] = one;
  }
  if (input.signal.aborted) {
    for (const message of closeAborted(input, settled)) emitResultMessage(input, message);
  }
  return settled;
}

async function executeParallel(
  input: ExecuteToolCallsInput,
  watch: CallWatch,
): Promise<Settled[]> {
  const settled: Settled[] = new Array(input.toolCalls.length);
  const ready: ReadyCall[] = [];
  for (let i = 0; i < input.toolCalls.length; i++) {
    const started = start(input, input.toolCalls[i]);
    const preparation = isPromiseLike<ToolCallPreparation>(started) ? await started : started;
    if (preparation.kind === "immediate") settled[i] = settle(input, preparation);
    else if (preparation.kind === "deferred") settled[i] = deferCall(input, preparation);
    else ready.push({ index: i, call: preparation });
  }
  if (ready.length > 0) await runAll(input, ready, settled, watch);
  if (input.signal.aborted) closeAborted(input, settled);
  for (const one of settled) if (!isDeferred(one)) emitResultMessage(input, one);
  return settled;
}

/**
 * Runs every tool call of an assistant message and returns one result message per call,
 * in call order. Parallel unless the config says `"sequential"` or any called tool
 * declares `executionMode: "sequential"`. Pure: it writes nothing but events, and never
 * rejects for what a tool or hook does (an event listener that throws, a host bug, does).
 *
 * Parallel: calls are prepared in order, then the prepared calls run at once, at most
 * `config.maxConcurrency` at a time (the others wait in call order, and their timeouts
 * count from when they start); `tool_execution_end` comes in completion order, result
 * messages in call order.
 * Sequential: each call finishes before the next starts. A call a hook deferred does not
 * run and gets no result message; it is returned in `deferred` (in a sequential batch the
 * calls after it do not start either).
 *
 * @param input The message, its calls, the tools, config, signal and event sink.
 * @returns The result messages, whether the batch asked to stop, and the deferred calls.
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
  const watch = input.watch ?? new CallWatch(input.signal);
  let settled: (Settled | undefined)[];
  try {
    settled = isSequential(input)
      ? await executeSequential(input, watch)
      : await executeParallel(input, watch);
  } finally {
    if (!input.watch) watch.dispose();
  }
  const messages: ToolResultMessage[] = [];
  const deferred: DeferredToolCall[] = [];
  let terminate = settled.length > 0;
  for (const one of settled) {
    if (one === undefined) continue; // after a deferred call of a sequential batch
    if (isDeferred(one)) {
      deferred.push(one);
      terminate = false; // a call with no result yet has not asked to stop
    } else {
      messages.push(one);
      if (one.terminate !== true) terminate = false;
    }
  }
  return { messages, terminate, deferred };
}
