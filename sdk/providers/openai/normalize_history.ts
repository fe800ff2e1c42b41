/**
 * The transcript as an OpenAI API accepts it: no half-finished turns, and every tool
 * call answered.
 *
 * @module
 */

import type { Message, ToolResultMessage } from "../../../core/messages.ts";

/** The text sent for a tool call that never got a result (the transcript was cut short). */
export const MISSING_RESULT_TEXT = "No result provided";

/**
 * Prepares a transcript for replay. An assistant turn that ended in an error or was
 * aborted keeps only its text (its tool calls never ran and its reasoning was cut off),
 * and is left out when it has none. A tool call with no result before the next turn
 * gets an error result saying so, since the API rejects unanswered calls.
 *
 * @param messages The transcript.
 * @returns The messages to convert (the input's own objects where nothing changed).
 *
 * @example An aborted turn with nothing to show is left out
 * ```ts
 * import { normalizeHistory } from "@tack/agent/sdk/providers/openai";
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const history = normalizeHistory([
 *   { role: "user", content: "hi", timestamp: 0 },
 *   {
 *     role: "assistant", content: [], stopReason: "aborted", usage: emptyUsage(),
 *     provider: "openai", model: "m", timestamp: 0,
 *   },
 * ]);
 * equal(history.length, 1);
 * ```
 */
export function normalizeHistory(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let pending: { id: string; name: string }[] = [];
  const answered = new Set<string>();
  const settle = () => {
    for (const call of pending) {
      if (answered.has(call.id)) continue;
      const missing: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: MISSING_RESULT_TEXT }],
        isError: true,
        timestamp: 0,
      };
      out.push(missing);
    }
    pending = [];
    answered.clear();
  };
  for (const message of messages) {
    if (message.role === "toolResult") {
      if (!pending.some((call) => call.id === message.toolCallId)) continue; // orphaned result
      answered.add(message.toolCallId);
      out.push(message);
      continue;
    }
    settle();
    if (message.role === "user") {
      out.push(message);
      continue;
    }
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      const content = message.content.filter((b) => b.type === "text" && b.text.trim() !== "");
      if (content.length > 0) out.push({ ...message, content });
      continue;
    }
    for (const block of message.content) {
      if (block.type === "toolCall") pending.push({ id: block.id, name: block.name });
    }
    out.push(message);
  }
  settle();
  return out;
}
