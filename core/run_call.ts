/**
 * Runs one prepared call of a batch to its final outcome: its tool, then `afterToolCall`.
 *
 * @module
 */

import type { CallWatch } from "./call_watch.ts";
import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import { type ExecutedToolCall, runPreparedToolCall } from "./execute_prepared_tool_call.ts";
import type { ExecuteToolCallsInput } from "./execute_tool_calls.ts";
import { finalizeExecutedToolCall } from "./finalize_executed_tool_call.ts";
import { timeoutsFor } from "./loop_config.ts";
import { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
import { abortedBeforeStartMessage, type PreparedToolCall } from "./prepare_tool_call.ts";
import type { Finished } from "./settle_call.ts";

// The bodies of a call's callbacks are module functions, not closures: V8 drops the code it
// optimized for a closure at a full GC that finds none alive (see keep_layout.ts).

/**
 * Runs a prepared call: its tool, bounded by its timeout and the run's abort, then
 * `afterToolCall`; hands `done` the outcome, once, whatever happens. A call of an aborted
 * run does not start. A synchronous tool without an asynchronous hook finishes before this
 * returns. The caller settles the outcome (events, result message): a throw there is a host
 * bug, and must reach the caller's promise, not a tool's callback.
 *
 * @param input The batch: its message, context, config, signal and event sink.
 * @param prepared The call, its tool and validated arguments.
 * @param index Its place in the batch, handed back to `done` (so that a batch needs no
 * closure per call to know which call finished).
 * @param watch The run's watch over running calls.
 * @param done Receives the outcome and `index`.
 *
 * @example A synchronous tool finishes before `runCall` returns
 * ```ts
 * import { runCall } from "./run_call.ts";
 * import { CallWatch } from "./call_watch.ts";
 * import type { ExecuteToolCallsInput } from "./execute_tool_calls.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = {
 *   name: "hi", description: "", parameters: { type: "object" },
 *   execute: () => ({ content: [{ type: "text" as const, text: "hi" }] }),
 * };
 * const toolCall = { type: "toolCall" as const, id: "1", name: "hi", arguments: {} };
 * const signal = new AbortController().signal;
 * const input = { config: {}, signal, emit: () => {} } as unknown as ExecuteToolCallsInput;
 * let isError: boolean | undefined;
 * runCall(input, { kind: "prepared", toolCall, tool, args: {} }, 0, new CallWatch(signal),
 *   (one) => (isError = one.isError));
 * equal(isError, false);
 * ```
 */
export function runCall(
  input: ExecuteToolCallsInput,
  prepared: PreparedToolCall,
  index: number,
  watch: CallWatch,
  done: (one: Finished, index: number) => void,
): void {
  const { tool, toolCall } = prepared;
  if (input.signal.aborted) {
    const result = createErrorToolResult(abortedBeforeStartMessage(tool.name));
    return done({ toolCall, tool, result, isError: true }, index);
  }
  try {
    const { callMs, hookMs } = timeoutsFor(tool, input.config);
    runPreparedToolCall(
      prepared,
      input.signal,
      callMs,
      input.emit,
      watch,
      (executed) => afterExecution(input, prepared, index, hookMs, executed, done),
    );
  } catch (error) {
    done(failedCall(prepared, error), index);
  }
}

/** Runs `afterToolCall` on what a call's tool answered, then hands `done` its final outcome. */
function afterExecution(
  input: ExecuteToolCallsInput,
  prepared: PreparedToolCall,
  index: number,
  hookMs: number,
  executed: ExecutedToolCall,
  done: (one: Finished, index: number) => void,
): void {
  let final: MaybePromise<ExecutedToolCall>;
  try {
    final = finalizeExecutedToolCall(
      prepared,
      executed,
      input.assistantMessage,
      input.context,
      input.config.afterToolCall,
      input.signal,
      hookMs,
    );
  } catch (error) {
    return done(failedCall(prepared, error), index);
  }
  if (isPromiseLike<ExecutedToolCall>(final)) {
    final.then(
      (outcome) => done(finishedCall(prepared, outcome), index),
      (error) => done(failedCall(prepared, error), index),
    );
  } else done(finishedCall(prepared, final), index);
}

function finishedCall(prepared: PreparedToolCall, final: ExecutedToolCall): Finished {
  return {
    toolCall: prepared.toolCall,
    tool: prepared.tool,
    args: prepared.args,
    rewrittenBy: prepared.rewrittenBy,
    result: final.result,
    isError: final.isError,
  };
}

function failedCall(prepared: PreparedToolCall, error: unknown): Finished {
  return {
    toolCall: prepared.toolCall,
    tool: prepared.tool,
    result: errorToToolResult(error),
    isError: true,
  };
}
