/**
 * Timing lines for session files: when each run, turn, model call and tool call started
 * and ended, written between the messages so `tack trace` can draw real durations.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { Message } from "../core/messages.ts";
import { type ToolOutcome, toolOutcome } from "../sdk/telemetry/tool_outcome.ts";

/** One timing line. `at` is milliseconds since the epoch, with fractions. */
export type TraceRecord =
  | {
    event: "agent_start" | "turn_start" | "model_start" | "model_end" | "turn_end" | "agent_end";
    at: number;
  }
  | { event: "tool_start"; at: number; toolCallId: string; toolName: string }
  | {
    event: "tool_end";
    at: number;
    toolCallId: string;
    outcome: ToolOutcome;
    blockedBy?: string;
    rewrittenBy?: readonly string[];
    /** The arguments it ran with, when a hook rewrote them. */
    args?: Record<string, unknown>;
  };

/** A line of a session file: a message, or a timing record. */
export type SessionLine = Message | TraceRecord;

const EVENTS = new Set([
  "agent_start",
  "turn_start",
  "model_start",
  "model_end",
  "turn_end",
  "agent_end",
  "tool_start",
  "tool_end",
]);

/** The latest time a timing record may hold (the year 2286, in epoch milliseconds). */
const MAX_EPOCH_MS = 1e13;

/**
 * Whether a parsed session line is a timing record (not a message).
 *
 * @param value A parsed line.
 * @returns `true` for a timing record.
 *
 * @example
 * ```ts
 * import { isTraceRecord } from "./trace_record.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isTraceRecord({ event: "turn_start", at: 1 }), true);
 * equal(isTraceRecord({ role: "user", content: "hi" }), false);
 * ```
 */
export function isTraceRecord(value: unknown): value is TraceRecord {
  if (typeof value !== "object" || value === null) return false;
  const { event, at } = value as { event?: unknown; at?: unknown };
  // Epoch milliseconds: a time no clock gives (1e400 reads as Infinity; ±1.7e308 apart make
  // an infinite span) would have the timeline's ticks count forever.
  return typeof event === "string" && EVENTS.has(event) && typeof at === "number" && at >= 0 &&
    at < MAX_EPOCH_MS;
}

/** The current time, in epoch milliseconds with sub-millisecond precision. */
function nowMs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 100) / 100;
}

/**
 * The session lines an event becomes: a finished message, a timing record, both (a
 * model call's end), or none.
 *
 * @param event The event.
 * @param at When it happened (default now).
 * @returns The lines, in order.
 *
 * @example A tool call's end
 * ```ts
 * import { sessionLinesOf } from "./trace_record.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(sessionLinesOf({
 *   type: "tool_execution_end", toolCallId: "c1", toolName: "bash",
 *   result: { content: [] }, isError: true, blockedBy: "confirm",
 * }, 5), [{ event: "tool_end", at: 5, toolCallId: "c1", outcome: "blocked", blockedBy: "confirm" }]);
 * ```
 */
export function sessionLinesOf(event: AgentEvent, at: number = nowMs()): SessionLine[] {
  switch (event.type) {
    case "agent_start":
    case "turn_start":
    case "turn_end":
    case "agent_end":
      return [{ event: event.type, at }];
    case "message_start":
      return event.message.role === "assistant" ? [{ event: "model_start", at }] : [];
    case "message_end":
      return event.message.role === "assistant"
        ? [{ event: "model_end", at }, event.message]
        : [event.message];
    case "tool_execution_start":
      return [{ event: "tool_start", at, toolCallId: event.toolCallId, toolName: event.toolName }];
    case "tool_execution_end": {
      const record: TraceRecord = {
        event: "tool_end",
        at,
        toolCallId: event.toolCallId,
        outcome: toolOutcome(event),
      };
      if (event.blockedBy !== undefined) record.blockedBy = event.blockedBy;
      if (event.rewrittenBy?.length) {
        record.rewrittenBy = event.rewrittenBy;
        if (event.args) record.args = event.args;
      }
      return [record];
    }
    default:
      return [];
  }
}
