/**
 * Turning people's decisions about an open batch into what the loop runs: approved calls
 * as prepared (exactly the pending arguments), rejected ones and calls that were executing
 * as error results. Also closing a batch nobody will decide.
 *
 * @module
 */

import { abortedWhilePendingMessage, type PendingToolCall } from "../core/interruption.ts";
import { createErrorToolResult } from "../core/create_error_tool_result.ts";
import type { ToolIndex } from "../core/loop_config.ts";
import type { ToolCall, ToolResultMessage } from "../core/messages.ts";
import { abortedBeforeStartMessage, type ToolCallPreparation } from "../core/prepare_tool_call.ts";
import { validateToolArguments } from "../core/validate_tool_arguments.ts";
import {
  type Decision,
  mayHaveCompletedMessage,
  type PendingApproval,
  rejectedMessage,
  type StickyDecision,
} from "./agent_state.ts";
import { hashArguments } from "./hash_arguments.ts";

function errorResult(toolCall: ToolCall, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: createErrorToolResult(text).content,
    isError: true,
    timestamp: Date.now(),
  };
}

function immediate(toolCall: ToolCall, text: string): ToolCallPreparation {
  return { kind: "immediate", toolCall, result: createErrorToolResult(text), isError: true };
}

function approved(toolCall: ToolCall, pending: PendingApproval, tools: ToolIndex) {
  const tool = tools.get(pending.toolName);
  if (!tool) return immediate(toolCall, `Tool ${pending.toolName} not found`);
  const validated = validateToolArguments(tool.name, tool.parameters, pending.args);
  if (!validated.ok) return immediate(toolCall, validated.message);
  const prepared: ToolCallPreparation = {
    kind: "prepared",
    toolCall,
    tool,
    args: validated.value,
  };
  return prepared;
}

/**
 * What is wrong with a set of decisions for the calls that wait, if anything: a decision
 * for a call that does not wait, two for one call, or a waiting call with none. Resuming
 * needs exactly one decision per waiting call.
 *
 * @param pending The calls that wait.
 * @param decisions The decisions.
 * @returns The problem (`call c9 is not waiting for a decision`, `call c2 has two
 * decisions`, `no decision for call c2 (deploy)`), or `undefined` when they fit.
 *
 * @example
 * ```ts
 * import { decisionsProblem } from "./resolve_decisions.ts";
 * import { equal } from "node:assert/strict";
 *
 * const pending = [{ toolCallId: "c1", toolName: "rm", args: {}, reason: "", argsHash: "" }];
 * equal(decisionsProblem(pending, []), "no decision for call c1 (rm)");
 * const no = { toolCallId: "c1", approve: false } as const;
 * equal(decisionsProblem(pending, [no, no]), "call c1 has two decisions");
 * equal(decisionsProblem(pending, [no]), undefined);
 * ```
 */
export function decisionsProblem(
  pending: readonly PendingToolCall[],
  decisions: readonly Decision[],
): string | undefined {
  const waiting = new Set(pending.map((call) => call.toolCallId));
  const decided = new Set<string>();
  for (const { toolCallId } of decisions) {
    if (!waiting.has(toolCallId)) return `call ${toolCallId} is not waiting for a decision`;
    if (decided.has(toolCallId)) return `call ${toolCallId} has two decisions`;
    decided.add(toolCallId);
  }
  const missing = pending.filter((call) => !decided.has(call.toolCallId));
  if (missing.length === 0) return undefined;
  const calls = missing.map((call) => `${call.toolCallId} (${call.toolName})`).join(", ");
  return `no decision for call${missing.length === 1 ? "" : "s"} ${calls}`;
}

/** The batch a run stopped in. */
export interface OpenBatch {
  /** Its calls without a result, in call order. */
  open: readonly ToolCall[];
  /** Those waiting for a decision. */
  pending: readonly PendingApproval[];
  /** Those that were executing when the state was taken. */
  running: readonly string[];
}

/**
 * Checks the decisions against the open batch and turns them into preparations by call
 * id, plus the new sticky decisions. Nothing runs here.
 *
 * @param batch The open batch.
 * @param decisions One per pending call.
 * @param tools The agent's tools.
 * @returns The preparations and the sticky decisions to add.
 * @throws {Error} `Cannot resume: …` when a decision names a call that is not pending, two
 * name one call, a pending call has none, or an approval's hash is not the pending
 * arguments'.
 *
 * @example A rejection becomes an error result
 * ```ts
 * import { resolveDecisions } from "./resolve_decisions.ts";
 * import { equal } from "node:assert/strict";
 *
 * const call = { type: "toolCall" as const, id: "c1", name: "rm", arguments: {} };
 * const pending = [{ toolCallId: "c1", toolName: "rm", args: {}, reason: "", argsHash: "" }];
 * const { resolved } = await resolveDecisions(
 *   { open: [call], pending, running: [] },
 *   [{ toolCallId: "c1", approve: false, reason: "no" }],
 *   new Map(),
 * );
 * equal(resolved.get("c1")?.kind, "immediate");
 * ```
 */
export async function resolveDecisions(
  batch: OpenBatch,
  decisions: readonly Decision[],
  tools: ToolIndex,
): Promise<{ resolved: Map<string, ToolCallPreparation>; sticky: StickyDecision[] }> {
  const problem = decisionsProblem(batch.pending, decisions);
  if (problem !== undefined) throw new Error(`Cannot resume: ${problem}`);
  const byId = new Map(decisions.map((decision) => [decision.toolCallId, decision]));
  const resolved = new Map<string, ToolCallPreparation>();
  const sticky: StickyDecision[] = [];
  for (const pending of batch.pending) {
    const decision = byId.get(pending.toolCallId)!;
    const where = `call ${pending.toolCallId} (${pending.toolName})`;
    const toolCall = batch.open.find((call) => call.id === pending.toolCallId);
    if (!toolCall || toolCall.name !== pending.toolName) {
      throw new Error(`Cannot resume: ${where} is not an open call of the last message`);
    }
    if (!decision.approve) {
      resolved.set(
        toolCall.id,
        immediate(toolCall, rejectedMessage(toolCall.name, decision.reason)),
      );
      continue;
    }
    const actual = await hashArguments(pending.args);
    if (decision.argsHash !== actual || pending.argsHash !== actual) {
      throw new Error(
        `Cannot resume: the approval of ${where} is for arguments with hash ` +
          `${decision.argsHash.slice(0, 12)}…, but the pending arguments hash to ` +
          `${actual.slice(0, 12)}…; show the person the pending arguments and ask again`,
      );
    }
    resolved.set(toolCall.id, approved(toolCall, pending, tools));
    if (decision.always) {
      const entry: StickyDecision = { toolName: pending.toolName };
      if (decision.always === "key" && pending.key !== undefined) entry.key = pending.key;
      sticky.push(entry);
    }
  }
  for (const id of batch.running) {
    const toolCall = batch.open.find((call) => call.id === id);
    if (toolCall && !resolved.has(id)) {
      resolved.set(id, immediate(toolCall, mayHaveCompletedMessage(toolCall.name)));
    }
  }
  return { resolved, sticky };
}

/**
 * The results that close a batch nobody will decide, in call order: finished calls keep
 * theirs; pending ones were aborted while waiting; executing ones may have completed; the
 * rest never started.
 *
 * @param calls Every call of the batch.
 * @param finished The results of the calls that finished.
 * @param batch Which calls are pending and which were executing.
 * @returns One result per call.
 *
 * @example
 * ```ts
 * import { closeBatch } from "./resolve_decisions.ts";
 * import { equal } from "node:assert/strict";
 *
 * const call = { type: "toolCall" as const, id: "c1", name: "rm", arguments: {} };
 * const [result] = closeBatch([call], [], { pending: [], running: [] });
 * equal(result.isError, true);
 * ```
 */
export function closeBatch(
  calls: readonly ToolCall[],
  finished: readonly ToolResultMessage[],
  batch: Pick<OpenBatch, "pending" | "running">,
): ToolResultMessage[] {
  const results = new Map(finished.map((r) => [r.toolCallId, r]));
  const pending = new Set(batch.pending.map((p) => p.toolCallId));
  const running = new Set(batch.running);
  return calls.map((call) =>
    results.get(call.id) ??
      errorResult(
        call,
        pending.has(call.id)
          ? abortedWhilePendingMessage(call.name)
          : running.has(call.id)
          ? mayHaveCompletedMessage(call.name)
          : abortedBeforeStartMessage(call.name),
      )
  );
}
