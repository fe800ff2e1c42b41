/**
 * Runs one prepared call, bounded by its timeout and the run's abort signal.
 *
 * @module
 */

import type { AgentEventSink } from "./agent_event.ts";
import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import type { PreparedToolCall } from "./prepare_tool_call.ts";
import type { ToolResult } from "./tool.ts";

/** The raw outcome of running a call, before `afterToolCall`. */
export interface ExecutedToolCall {
  result: ToolResult;
  isError: boolean;
}

/**
 * The error text of a call that was running when the run was aborted.
 *
 * @param toolName The tool that was stopped.
 * @returns The message for its error result.
 */
export function abortedWhileRunningMessage(toolName: string): string {
  return `Tool ${toolName} was aborted while running`;
}

/**
 * The error text of a call that ran past its timeout.
 *
 * @param toolName The tool that was stopped.
 * @param timeoutMs Its timeout.
 * @returns The message for its error result.
 */
export function timedOutMessage(toolName: string, timeoutMs: number): string {
  return `Tool ${toolName} timed out after ${timeoutMs} ms and was stopped`;
}

function checkResult(name: string, value: unknown): ExecutedToolCall {
  const content = (value as ToolResult | undefined)?.content;
  if (Array.isArray(content)) return { result: value as ToolResult, isError: false };
  return {
    result: createErrorToolResult(
      `Tool ${name} returned an invalid result: expected { content: [...] }`,
    ),
    isError: true,
  };
}

/**
 * Executes a prepared call. Ends with a result whatever happens: the tool's result, its
 * thrown error, a timeout, or the run's abort. A stalled tool never holds the caller
 * beyond `timeoutMs`: its signal is aborted and the caller moves on.
 *
 * @param prepared The call, its tool and validated arguments.
 * @param signal The run's abort signal.
 * @param timeoutMs The call's timeout (`Infinity` or 0 for none).
 * @param emit Receives `tool_execution_update` events while the call runs.
 * @returns The result and whether it is an error; never rejects.
 *
 * @example A tool that throws
 * ```ts
 * import { executePreparedToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const tool = {
 *   name: "boom", description: "fails", parameters: { type: "object" },
 *   execute(): never { throw new Error("boom!"); },
 * };
 * const toolCall = { type: "toolCall" as const, id: "1", name: "boom", arguments: {} };
 * const outcome = await executePreparedToolCall(
 *   { kind: "prepared", toolCall, tool, args: {} }, new AbortController().signal, 1000, () => {},
 * );
 * equal(outcome.isError, true);
 * ```
 */
export function executePreparedToolCall(
  prepared: PreparedToolCall,
  signal: AbortSignal,
  timeoutMs: number,
  emit: AgentEventSink,
): Promise<ExecutedToolCall> {
  const { tool, toolCall } = prepared;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  return new Promise<ExecutedToolCall>((resolve) => {
    const settle = (outcome: ExecutedToolCall) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      settle({
        result: createErrorToolResult(abortedWhileRunningMessage(tool.name), { reason: "aborted" }),
        isError: true,
      });
      controller.abort(signal.reason);
    };
    signal.addEventListener("abort", onAbort);
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        settle({
          result: createErrorToolResult(timedOutMessage(tool.name, timeoutMs), {
            reason: "timeout",
            timeoutMs,
          }),
          isError: true,
        });
        controller.abort(new DOMException(`Tool ${tool.name} timed out`, "TimeoutError"));
      }, timeoutMs);
    }
    const update = (partialResult: ToolResult) => {
      if (!settled) {
        emit({
          type: "tool_execution_update",
          toolCallId: toolCall.id,
          toolName: toolCall.name,
          partialResult,
        });
      }
    };
    try {
      const running = tool.execute(prepared.args, {
        toolCallId: toolCall.id,
        signal: controller.signal,
        update,
      });
      if (running instanceof Promise) {
        running.then(
          (value) => settle(checkResult(tool.name, value)),
          (error) => settle({ result: errorToToolResult(error, "", tool.plugin), isError: true }),
        );
      } else {
        settle(checkResult(tool.name, running));
      }
    } catch (error) {
      settle({ result: errorToToolResult(error, "", tool.plugin), isError: true });
    }
  });
}
