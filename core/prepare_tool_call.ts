/**
 * The four gates a call passes before it may run: the tool exists, `prepareArguments`,
 * schema validation, the hooks (`beforeToolCall`, validation again if it rewrote the
 * arguments, then `verifyToolCall` on the final arguments).
 *
 * @module
 */

import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import type {
  AgentContext,
  BeforeToolCallHook,
  DeferToolCall,
  VerifyToolCallHook,
} from "./hooks.ts";
import type { AssistantMessage, ToolCall } from "./messages.ts";
import type { AgentTool, ToolResult } from "./tool.ts";
import type { MaybePromise } from "./maybe_promise.ts";
import { boundHook } from "./bound_hook.ts";
import { ownerLabel } from "./owner_label.ts";
import { type LoopConfig, timeoutsFor, type ToolIndex } from "./loop_config.ts";
import { validateToolArguments } from "./validate_tool_arguments.ts";
import { copyArguments, copyForHooks } from "./copy_arguments.ts";
import { thrownText } from "./thrown_text.ts";

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
  /** Who rewrote the arguments, in order, when any hook did. */
  rewrittenBy?: readonly string[];
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
  /** Who blocked the call, when a hook did. */
  blockedBy?: string;
  /** Who rewrote its arguments, when the rewrite is what failed. */
  rewrittenBy?: readonly string[];
}

/** A call a hook deferred: it waits for a person's decision and does not run now. */
export interface DeferredToolCall {
  /** Tag: the call waits for a decision. */
  kind: "deferred";
  /** The call as the model sent it. */
  toolCall: ToolCall;
  /** The tool that would run it. */
  tool: AgentTool;
  /** The final arguments (after every hook): exactly what runs if it is approved. */
  args: Record<string, unknown>;
  /** Why a person must decide. */
  reason: string;
  /** Who deferred it (a plugin's name, or `createAgent`). */
  deferredBy?: string;
  /** What a sticky "always" decision covers, beyond the tool's name. */
  key?: string;
}

/** What preparing a call gives: run it, here is its result, or wait for a decision. */
export type ToolCallPreparation = PreparedToolCall | ImmediateToolCall | DeferredToolCall;

/** Everything preparation reads; nothing in it is written. */
export interface PrepareToolCallInput {
  /** The call to prepare. */
  toolCall: ToolCall;
  /** The message that asked for it. */
  assistantMessage: AssistantMessage;
  /** The tools of this turn by name (the run's, or those `prepareTurn` chose). */
  tools: ToolIndex;
  /** What the hooks see: the transcript, and this turn's system prompt and tools. */
  context: AgentContext;
  /** The composed `beforeToolCall` hook, if any. */
  beforeToolCall?: BeforeToolCallHook;
  /** The composed `verifyToolCall` hook, if any: the last, block-only check. */
  verifyToolCall?: VerifyToolCallHook;
  /** The agent's `toolTimeoutMs` and `hookTimeoutMs`, which bound the hooks (see `timeoutsFor`). */
  timeouts?: Pick<LoopConfig, "toolTimeoutMs" | "hookTimeoutMs">;
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

/**
 * The error text of a call whose hooks did not answer in time.
 *
 * @param toolName The tool that did not run (or whose result was withheld).
 * @param stage `beforeToolCall`, `verifyToolCall` or `afterToolCall`.
 * @param timeoutMs The limit.
 * @returns The message for its error result.
 */
export function hookTimedOutMessage(toolName: string, stage: string, timeoutMs: number): string {
  return stage === "afterToolCall"
    ? `Tool ${toolName}: its afterToolCall hooks timed out after ${timeoutMs} ms; the result was withheld`
    : `Tool ${toolName} was not run: its ${stage} hooks timed out after ${timeoutMs} ms`;
}

function notFoundMessage(name: string, tools: ToolIndex): string {
  const names = [...tools.keys()];
  // The contract's "Tool <name> not found", readable when a server lost the call's name.
  const what = name.trim() === ""
    ? `Tool ${JSON.stringify(name)} not found (the call came with no tool name).`
    : `Tool ${name} not found.`;
  return names.length === 0
    ? `${what} No tools are available.`
    : `${what} Available tools: ${names.join(", ")}`;
}

/**
 * Runs a call through the four gates. Pure: reads its input, writes nothing, never throws.
 * Synchronous when there is neither a `beforeToolCall` nor a `verifyToolCall` hook.
 *
 * @param input The call, the tools, the context and the hooks.
 * @returns `{ kind: "prepared", args }`, `{ kind: "immediate", result }` or
 * `{ kind: "deferred", args, reason }` (now, or a promise of it).
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
  // The transcript keeps what the model sent: what follows works on a copy.
  let raw: Record<string, unknown>;
  try {
    raw = copyArguments(toolCall.arguments);
  } catch (error) {
    // A custom model's arguments that throw when read (a getter, a proxy).
    return immediate(
      toolCall,
      errorToToolResult(error, `Invalid arguments for tool "${tool.name}": cannot read them: `),
      tool,
    );
  }
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
  const validated = validateToolArguments(tool.name, tool.parameters, raw, tool.validateArguments);
  if (!validated.ok) return immediate(toolCall, createErrorToolResult(validated.message), tool);
  if (!input.beforeToolCall && !input.verifyToolCall) {
    return { kind: "prepared", toolCall, tool, args: validated.value };
  }
  return passHooksSafely(input, tool, validated.value);
}

function blocked(
  toolCall: ToolCall,
  tool: AgentTool,
  decision: { reason?: string; blockedBy?: string },
): ImmediateToolCall {
  const call = immediate(
    toolCall,
    createErrorToolResult(decision.reason || `Tool ${tool.name} was blocked`),
    tool,
  );
  if (decision.blockedBy !== undefined) call.blockedBy = decision.blockedBy;
  return call;
}

function deferred(
  toolCall: ToolCall,
  tool: AgentTool,
  args: Record<string, unknown>,
  deferral: DeferToolCall,
): DeferredToolCall {
  const call: DeferredToolCall = {
    kind: "deferred",
    toolCall,
    tool,
    args,
    reason: deferral.reason || `Tool ${tool.name} needs a person's approval`,
  };
  if (deferral.deferredBy !== undefined) call.deferredBy = deferral.deferredBy;
  if (deferral.key !== undefined) call.key = deferral.key;
  return call;
}

/** A structured clone of a hook's rewrite, or why it cannot be copied (a function, a proxy). */
function cloneRewrite(
  toolName: string,
  note: string,
  args: Record<string, unknown>,
): Record<string, unknown> | string {
  try {
    return structuredClone(args);
  } catch (error) {
    return `Invalid arguments for tool "${toolName}"${note}: they cannot be copied: ${
      thrownText(error)
    }`;
  }
}

/** {@linkcode passHooks}, with a hook's answer that throws when read made the call's error. */
async function passHooksSafely(
  input: PrepareToolCallInput,
  tool: AgentTool,
  validated: Record<string, unknown>,
): Promise<ToolCallPreparation> {
  try {
    return await passHooks(input, tool, validated);
  } catch (error) {
    // An answer whose `block`, `defer`, `args` or `rewrittenBy` throws (a getter, a proxy).
    const prefix = `Cannot read the hooks' answer for tool "${tool.name}": `;
    return immediate(input.toolCall, errorToToolResult(error, prefix), tool);
  }
}

async function passHooks(
  input: PrepareToolCallInput,
  tool: AgentTool,
  validated: Record<string, unknown>,
): Promise<ToolCallPreparation> {
  const { toolCall, signal } = input;
  // What runs: the validated arguments, or a new object a hook returned, validated again.
  // Hooks look at a frozen copy (`seen`), so the transcript keeps what the model sent.
  let args = validated;
  let seen = copyForHooks(args);
  let rewrittenBy: readonly string[] | undefined;
  let deferral: DeferToolCall | undefined;
  const hookContext = () => ({
    assistantMessage: input.assistantMessage,
    toolCall,
    tool,
    args: seen,
    context: input.context,
  });
  const aborted = () =>
    immediate(toolCall, createErrorToolResult(abortedBeforeStartMessage(toolCall.name)), tool);

  const limit = timeoutsFor(tool, input.timeouts ?? {}).hookMs;
  const stalled = (stage: string) =>
    immediate(toolCall, createErrorToolResult(hookTimedOutMessage(tool.name, stage, limit)), tool);

  if (input.beforeToolCall) {
    const before = input.beforeToolCall;
    // Its signal aborts when the loop stops waiting: a composed chain asks no later hook.
    const outcome = await boundHook((hooks) => before(hookContext(), hooks), signal, limit);
    if (outcome.kind === "error") {
      return immediate(toolCall, errorToToolResult(outcome.error, "beforeToolCall failed: "), tool);
    }
    if (outcome.kind === "timeout") return stalled("beforeToolCall");
    if (outcome.kind === "abort" || signal.aborted) return aborted();
    const decision = outcome.value;
    if (decision?.block) return blocked(toolCall, tool, decision);
    if (decision?.defer) {
      const { reason, key, deferredBy } = decision;
      deferral = { defer: true, reason, key, deferredBy };
    }
    if (decision?.args && decision.args !== seen) {
      const by = decision.rewrittenBy?.length
        ? decision.rewrittenBy.map(ownerLabel).join(", ")
        : "beforeToolCall";
      const note = ` (arguments rewritten by ${by})`;
      // What is validated and runs is a copy no hook holds, down to a class instance or a
      // Date: the hook that returned the object (or anyone it shared it with) changing it
      // after verifyToolCall looked must not change what runs. A cycle stays one.
      const copy = cloneRewrite(tool.name, note, decision.args);
      const rewritten = typeof copy === "string"
        ? { ok: false as const, message: copy }
        : validateToolArguments(tool.name, tool.parameters, copy, tool.validateArguments, note);
      if (!rewritten.ok) {
        const call = immediate(toolCall, createErrorToolResult(rewritten.message), tool);
        if (decision.rewrittenBy) call.rewrittenBy = decision.rewrittenBy;
        return call;
      }
      args = rewritten.value;
      rewrittenBy = decision.rewrittenBy ?? [];
    }
  }
  if (input.verifyToolCall) {
    if (args !== validated) seen = copyForHooks(args); // the rewritten arguments
    const verify = input.verifyToolCall;
    const context = deferral ? { ...hookContext(), deferred: deferral } : hookContext();
    const outcome = await boundHook((hooks) => verify(context, hooks), signal, limit);
    if (outcome.kind === "error") {
      return immediate(toolCall, errorToToolResult(outcome.error, "verifyToolCall failed: "), tool);
    }
    if (outcome.kind === "timeout") return stalled("verifyToolCall");
    if (outcome.kind === "abort" || signal.aborted) return aborted();
    const verdict = outcome.value;
    if (verdict?.block) return blocked(toolCall, tool, verdict);
    if (verdict?.defer) deferral ??= verdict;
  }
  if (deferral) return deferred(toolCall, tool, args, deferral);
  const prepared: PreparedToolCall = { kind: "prepared", toolCall, tool, args };
  if (rewrittenBy) prepared.rewrittenBy = rewrittenBy;
  return prepared;
}
