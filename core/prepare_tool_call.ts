/**
 * The four gates a call passes before it may run: the tool exists, `prepareArguments`,
 * schema validation, `beforeToolCall` (and validation again if it rewrote the arguments).
 *
 * @module
 */

import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import type { AgentContext, BeforeToolCallHook } from "./hooks.ts";
import type { ToolIndex } from "./loop_config.ts";
import type { AssistantMessage, ToolCall } from "./messages.ts";
import type { AgentTool, ToolResult } from "./tool.ts";
import type { MaybePromise } from "./maybe_promise.ts";
import { describeInvalidArguments, validateToolArguments } from "./validate_tool_arguments.ts";

/** A call that passed every gate and may execute. */
export interface PreparedToolCall {
  /** Tag: the call may run. */
  kind: "prepared";
  /** The call as the model sent it. */
  toolCall: ToolCall;
  /** The tool that will run it. */
  tool: AgentTool;
  /** The validated (possibly rewritten and coerced) arguments. */
  args: Record<string, unknown>;
}

/** A call that ended at a gate: its (error) result is already known. */
export interface ImmediateToolCall {
  /** Tag: the call ended at a gate. */
  kind: "immediate";
  /** The call as the model sent it. */
  toolCall: ToolCall;
  /** The tool, when it exists. */
  tool?: AgentTool;
  /** The error result. */
  result: ToolResult;
  /** Always an error. */
  isError: true;
}

/** What preparing a call gives: run it, or here is its result. */
export type ToolCallPreparation = PreparedToolCall | ImmediateToolCall;

/** Everything preparation reads; nothing in it is written. */
export interface PrepareToolCallInput {
  /** The call to prepare. */
  toolCall: ToolCall;
  /** The message that asked for it. */
  assistantMessage: AssistantMessage;
  /** The run's tools by name. */
  tools: ToolIndex;
  /** The run's state. */
  context: AgentContext;
  /** The composed `beforeToolCall` hook, if any. */
  beforeToolCall?: BeforeToolCallHook;
  /** The run's abort signal. */
  signal: AbortSignal;
}

function immediate(toolCall: ToolCall, result: ToolResult, tool?: AgentTool): ImmediateToolCall {
  return { kind: "immediate", toolCall, tool, result, isError: true };
}

/**
 * The error text of a call the run's abort kept from starting.
 *
 * @param toolName The tool that did not run.
 * @returns The message for its error result.
 */
export function abortedBeforeStartMessage(toolName: string): string {
  return `Tool ${toolName} was not run: the run was aborted before it started`;
}

function notFoundMessage(name: string, tools: ToolIndex): string {
  const names = [...tools.keys()];
  return names.length === 0
    ? `Tool ${name} not found. No tools are available.`
    : `Tool ${name} not found. Available tools: ${names.join(", ")}`;
}

/**
 * Runs a call through the four gates. Pure: reads its input, writes nothing, never throws.
 * Synchronous unless a `beforeToolCall` hook has to be awaited.
 *
 * @param input The call, the tools, the context and the hook.
 * @returns `{ kind: "prepared", args }` or `{ kind: "immediate", result }` (now, or a promise of it).
 *
 * @example An unknown tool ends at the first gate
 * ```ts
 * import { emptyUsage, prepareToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const toolCall = { type: "toolCall" as const, id: "1", name: "banana", arguments: {} };
 * const assistantMessage = {
 *   role: "assistant" as const, content: [toolCall], stopReason: "toolUse" as const,
 *   usage: emptyUsage(), provider: "demo", model: "demo", timestamp: 0,
 * };
 * const outcome = await prepareToolCall({
 *   toolCall, assistantMessage, tools: new Map(), signal: new AbortController().signal,
 *   context: { systemPrompt: "", messages: [], tools: [] },
 * });
 * equal(outcome.kind, "immediate");
 * ```
 */
export function prepareToolCall(input: PrepareToolCallInput): MaybePromise<ToolCallPreparation> {
  const { toolCall, tools, signal } = input;
  if (signal.aborted) {
    return immediate(toolCall, createErrorToolResult(abortedBeforeStartMessage(toolCall.name)));
  }
  const tool = tools.get(toolCall.name);
  if (!tool) {
    return immediate(toolCall, createErrorToolResult(notFoundMessage(toolCall.name, tools)));
  }

  if (toolCall.argumentsError !== undefined) {
    return immediate(
      toolCall,
      createErrorToolResult(
        `Invalid arguments for tool "${tool.name}": ${toolCall.argumentsError}`,
      ),
      tool,
    );
  }
  let raw = toolCall.arguments;
  if (tool.prepareArguments) {
    try {
      raw = tool.prepareArguments(raw);
    } catch (error) {
      return immediate(
        toolCall,
        errorToToolResult(error, `Cannot prepare arguments for tool "${tool.name}": `),
        tool,
      );
    }
  }
  const validated = validateToolArguments(tool.name, tool.parameters, raw);
  if (!validated.ok) return immediate(toolCall, createErrorToolResult(validated.message), tool);
  if (!input.beforeToolCall) return { kind: "prepared", toolCall, tool, args: validated.value };
  return passBeforeToolCall(input, input.beforeToolCall, tool, validated.value);
}

async function passBeforeToolCall(
  input: PrepareToolCallInput,
  beforeToolCall: BeforeToolCallHook,
  tool: AgentTool,
  args: Record<string, unknown>,
): Promise<ToolCallPreparation> {
  const { toolCall, signal } = input;
  let decision;
  try {
    decision = await beforeToolCall({
      assistantMessage: input.assistantMessage,
      toolCall,
      tool,
      args,
      context: input.context,
    }, signal);
  } catch (error) {
    return immediate(toolCall, errorToToolResult(error, "beforeToolCall failed: "), tool);
  }
  if (signal.aborted) {
    return immediate(
      toolCall,
      createErrorToolResult(abortedBeforeStartMessage(toolCall.name)),
      tool,
    );
  }
  if (!decision) return { kind: "prepared", toolCall, tool, args };
  if (decision.block) {
    return immediate(
      toolCall,
      createErrorToolResult(decision.reason || `Tool ${tool.name} was blocked`),
      tool,
    );
  }
  if (!decision.args || decision.args === args) return { kind: "prepared", toolCall, tool, args };
  const rewritten = validateToolArguments(tool.name, tool.parameters, decision.args);
  if (!rewritten.ok) {
    const by = ` (arguments rewritten by ${decision.rewrittenBy ?? "beforeToolCall"})`;
    return immediate(
      toolCall,
      createErrorToolResult(
        describeInvalidArguments(tool.name, tool.parameters, decision.args, by),
      ),
      tool,
    );
  }
  return { kind: "prepared", toolCall, tool, args: rewritten.value };
}
