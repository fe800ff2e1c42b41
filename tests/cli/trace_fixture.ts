/** A session with fixed times: parallel calls on lanes, and every outcome the page colours. */

import { emptyUsage } from "@tack/agent";
import type { SessionLine } from "../../cli/trace_record.ts";

const T = 1_700_000_000_000;

function assistant(
  calls: { id: string; name: string; args: Record<string, unknown> }[],
  text = "",
  input = 0,
  output = 0,
) {
  return {
    role: "assistant" as const,
    content: [
      ...(text ? [{ type: "text" as const, text }] : []),
      ...calls.map((c) => ({
        type: "toolCall" as const,
        id: c.id,
        name: c.name,
        arguments: c.args,
      })),
    ],
    stopReason: calls.length ? "toolUse" as const : "stop" as const,
    usage: { ...emptyUsage(), input, output },
    provider: "openai",
    model: "gpt-test",
    timestamp: T,
  };
}

function result(id: string, name: string, text: string, isError: boolean) {
  return {
    role: "toolResult" as const,
    toolCallId: id,
    toolName: name,
    content: [{ type: "text" as const, text }],
    isError,
    timestamp: T,
  };
}

/** Text a model might send to break out of the page. */
export const HOSTILE = `</script><img src=x onerror="window.__pwned=1">`;

/** Turn 1: read (ok), grep (error) and bash (blocked by confirm) at once; turn 2: slow (timeout) then stop (aborted); turn 3: the answer. */
export const SESSION: SessionLine[] = [
  { event: "agent_start", at: T },
  { event: "turn_start", at: T },
  { role: "user", content: "Fix the greeting", timestamp: T },
  { event: "model_start", at: T + 300 },
  { event: "model_end", at: T + 400 },
  assistant(
    [
      { id: "c1", name: "read", args: { path: "src/greet.ts" } },
      { id: "c2", name: "grep", args: { pattern: HOSTILE } },
      { id: "c3", name: "bash", args: { command: "rm -rf .git" } },
    ],
    "Let me look.",
    1200,
    40,
  ),
  { event: "tool_start", at: T + 410, toolCallId: "c1", toolName: "read" },
  { event: "tool_start", at: T + 420, toolCallId: "c2", toolName: "grep" },
  { event: "tool_start", at: T + 430, toolCallId: "c3", toolName: "bash" },
  { event: "tool_end", at: T + 440, toolCallId: "c3", outcome: "blocked", blockedBy: "confirm" },
  { event: "tool_end", at: T + 700, toolCallId: "c2", outcome: "error" },
  { event: "tool_end", at: T + 900, toolCallId: "c1", outcome: "ok" },
  result("c1", "read", "export function greet() {}", false),
  result("c2", "grep", `bad pattern ${HOSTILE}`, true),
  result("c3", "bash", 'Blocked by rule "no-rm-rf"', true),
  { event: "turn_end", at: T + 905 },
  { event: "turn_start", at: T + 905 },
  { event: "model_end", at: T + 1300 },
  assistant(
    [{ id: "c4", name: "slow", args: {} }, { id: "c5", name: "stop", args: {} }],
    "",
    1500,
    20,
  ),
  { event: "tool_start", at: T + 1310, toolCallId: "c4", toolName: "slow" },
  { event: "tool_end", at: T + 1810, toolCallId: "c4", outcome: "timeout" },
  { event: "tool_start", at: T + 1820, toolCallId: "c5", toolName: "stop" },
  { event: "tool_end", at: T + 1900, toolCallId: "c5", outcome: "aborted" },
  result("c4", "slow", "Tool slow timed out after 500 ms and was stopped", true),
  result("c5", "stop", "Tool stop was aborted while running", true),
  { event: "turn_end", at: T + 1900 },
  { event: "turn_start", at: T + 1900 },
  { event: "model_end", at: T + 2400 },
  assistant([], "Fixed the greeting.", 1700, 12),
  { event: "turn_end", at: T + 2400 },
  { event: "agent_end", at: T + 2400 },
];
