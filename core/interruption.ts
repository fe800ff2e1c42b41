/**
 * An interrupted batch: the results of the calls that finished, and the calls that wait
 * for a person's decision. Plain JSON, so a run can stop in one process and go on in
 * another.
 *
 * @module
 */

import type { ToolResultMessage } from "./messages.ts";
import type { DeferredToolCall } from "./prepare_tool_call.ts";

/** A deferred call as the run keeps it: what it is, with which arguments, who asks and why. */
export interface PendingToolCall {
  /** The call's id (from the assistant message). */
  toolCallId: string;
  /** The tool. */
  toolName: string;
  /** The final arguments: exactly what runs if the call is approved. */
  args: Record<string, unknown>;
  /** Why a person must decide. */
  reason: string;
  /** Who asks (a plugin's name, or `createAgent`). */
  deferredBy?: string;
  /** What a sticky "always" decision covers, beyond the tool's name. */
  key?: string;
}

/** The batch a run stopped in. */
export interface Interruption {
  /** Results of the batch's calls that finished, in call order; they are never re-run. */
  results: ToolResultMessage[];
  /** The calls that wait for a decision, in call order. */
  pending: PendingToolCall[];
  /**
   * The names of the tools its turn offered, when `prepareTurn` chose them: on resume the
   * batch's calls are prepared against the run's tools of these names, as in that turn (a
   * tool hidden then is not found then either).
   */
  tools?: string[];
}

/**
 * The plain-JSON record of a deferred call.
 *
 * @param call The deferred call.
 * @returns Its pending record.
 *
 * @example
 * ```ts
 * import { toPendingToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const tool = { name: "rm", description: "", parameters: {}, execute: () => ({ content: [] }) };
 * const toolCall = { type: "toolCall" as const, id: "c1", name: "rm", arguments: {} };
 * const pending = toPendingToolCall({ kind: "deferred", toolCall, tool, args: {}, reason: "asks" });
 * equal(pending.toolCallId, "c1");
 * ```
 */
export function toPendingToolCall(call: DeferredToolCall): PendingToolCall {
  const pending: PendingToolCall = {
    toolCallId: call.toolCall.id,
    toolName: call.tool.name,
    args: call.args,
    reason: call.reason,
  };
  if (call.deferredBy !== undefined) pending.deferredBy = call.deferredBy;
  if (call.key !== undefined) pending.key = call.key;
  return pending;
}

/**
 * The error text of a deferred call whose run was aborted before anyone decided.
 *
 * @param toolName The tool that did not run.
 * @returns The message for its error result.
 *
 * @example
 * ```ts
 * import { abortedWhilePendingMessage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   abortedWhilePendingMessage("rm"),
 *   "Tool rm was not run: the run was aborted while the call waited for approval",
 * );
 * ```
 */
export function abortedWhilePendingMessage(toolName: string): string {
  return `Tool ${toolName} was not run: the run was aborted while the call waited for approval`;
}
