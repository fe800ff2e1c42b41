/**
 * `--json`: one JSON {@linkcode AgentEvent} a line, for scripts. Every event is kept;
 * `message_update` drops the partial message it carries (the finished message comes
 * with `message_end`), so a long answer does not cost quadratic output.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { AssistantMessageEvent } from "../core/assistant_message_event.ts";

/** A streaming step as `--json` prints it: its type and what it adds, without `partial`. */
export type CompactAssistantEvent =
  | { type: "start" | "text_start" | "thinking_start" | "toolcall_start"; contentIndex?: number }
  | {
    type: "text_delta" | "thinking_delta" | "toolcall_delta";
    contentIndex: number;
    delta: string;
  }
  | { type: "text_end" | "thinking_end"; contentIndex: number }
  | { type: "toolcall_end"; contentIndex: number; toolCall: unknown }
  | { type: "done" | "error"; reason: string };

/**
 * The compact form of a streaming step.
 *
 * @param event The step as the model streamed it.
 * @returns Its type, content index and delta (or tool call, or stop reason).
 *
 * @example A text delta
 * ```ts
 * import { compactAssistantEvent } from "./json_output.ts";
 * import { emptyUsage } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const partial = {
 *   role: "assistant" as const, content: [], stopReason: "stop" as const, usage: emptyUsage(),
 *   provider: "p", model: "m", timestamp: 0,
 * };
 * deepEqual(
 *   compactAssistantEvent({ type: "text_delta", contentIndex: 0, delta: "Hi", partial }),
 *   { type: "text_delta", contentIndex: 0, delta: "Hi" },
 * );
 * ```
 */
export function compactAssistantEvent(event: AssistantMessageEvent): CompactAssistantEvent {
  switch (event.type) {
    case "start":
      return { type: "start" };
    case "text_start":
    case "thinking_start":
    case "toolcall_start":
      return { type: event.type, contentIndex: event.contentIndex };
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: event.contentIndex, delta: event.delta };
    case "text_end":
    case "thinking_end":
      return { type: event.type, contentIndex: event.contentIndex };
    case "toolcall_end":
      return { type: event.type, contentIndex: event.contentIndex, toolCall: event.toolCall };
    case "done":
    case "error":
      return { type: event.type, reason: event.reason };
  }
}

/**
 * One event as a line of JSON (no trailing newline).
 *
 * @param event The event.
 * @returns Its JSON; `message_update` is reduced to `{ type, assistantMessageEvent }`.
 *
 * @example A tool's start
 * ```ts
 * import { jsonLine } from "./json_output.ts";
 * import { equal } from "node:assert/strict";
 *
 * const line = jsonLine({ type: "tool_execution_start", toolCallId: "c1", toolName: "ls", args: {} });
 * equal(line, '{"type":"tool_execution_start","toolCallId":"c1","toolName":"ls","args":{}}');
 * ```
 */
export function jsonLine(event: AgentEvent): string {
  if (event.type === "message_update") {
    return JSON.stringify({
      type: event.type,
      assistantMessageEvent: compactAssistantEvent(event.assistantMessageEvent),
    });
  }
  try {
    return JSON.stringify(event);
  } catch (error) {
    // Something in it cannot be written (nested past the stack, a BigInt): the event still
    // gets its line, so a reader sees every event in order.
    return JSON.stringify({ type: event.type, unwritable: String(error) });
  }
}

/**
 * A listener that writes each event as a line to `write` (stdout in the CLI).
 *
 * @param write Receives each line, newline included.
 * @returns The listener, for `agent.subscribe`.
 *
 * @example Collecting lines
 * ```ts
 * import { jsonOutput } from "./json_output.ts";
 * import { equal } from "node:assert/strict";
 *
 * const lines: string[] = [];
 * jsonOutput((line) => lines.push(line))({ type: "agent_start" });
 * equal(lines[0], '{"type":"agent_start"}\n');
 * ```
 */
export function jsonOutput(write: (line: string) => void): (event: AgentEvent) => void {
  return function writeJsonEvent(event) {
    write(jsonLine(event) + "\n");
  };
}
