/**
 * One word for how a tool call ended, for traces and the timeline page.
 *
 * @module
 */

import type { ToolResult } from "../../core/tool.ts";

/** How a call ended: it ran and succeeded, failed, was blocked, timed out, or was aborted. */
export type ToolOutcome = "ok" | "error" | "blocked" | "timeout" | "aborted";

/** What {@linkcode toolOutcome} reads: the fields of a `tool_execution_end` event. */
export interface ToolEnd {
  /** The result. */
  result: ToolResult;
  /** Whether it is an error. */
  isError: boolean;
  /** Who blocked it, if a hook did. */
  blockedBy?: string;
}

function textOf(result: ToolResult): string {
  const first = result.content?.[0];
  return first?.type === "text" ? first.text : "";
}

/**
 * Classifies a finished call. Blocked when a hook blocked it; timed out or aborted by the
 * result's `details.reason` (set by the loop) or the loop's own texts for hook timeouts and
 * calls that never started; any other error is `error`.
 *
 * @param end The call's end: result, error flag, who blocked it.
 * @returns The outcome.
 *
 * @example A call a plugin blocked
 * ```ts
 * import { toolOutcome } from "@tack/agent/sdk/telemetry";
 * import { equal } from "node:assert/strict";
 *
 * equal(toolOutcome({ result: { content: [] }, isError: true, blockedBy: "confirm" }), "blocked");
 * equal(toolOutcome({ result: { content: [] }, isError: false }), "ok");
 * ```
 */
export function toolOutcome(end: ToolEnd): ToolOutcome {
  if (end.blockedBy !== undefined) return "blocked";
  if (!end.isError) return "ok";
  const reason = (end.result.details as { reason?: unknown } | undefined)?.reason;
  if (reason === "timeout") return "timeout";
  if (reason === "aborted") return "aborted";
  const text = textOf(end.result);
  if (/ hooks timed out after \d+ ms/.test(text)) return "timeout";
  if (/ was aborted while running$| the run was aborted before it started$/.test(text)) {
    return "aborted";
  }
  return "error";
}
