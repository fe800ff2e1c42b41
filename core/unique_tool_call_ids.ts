/**
 * One id per tool call in a message, since results, events, approvals and traces are all
 * matched to their call by id.
 *
 * @module
 */

import type { AssistantMessage } from "./messages.ts";

/**
 * The message with every tool call's id unique within it and not empty. A call with no id
 * gets `call_<n>`; a call with an id an earlier call of the message has gets `<id>_<n>`;
 * `n` is the first number from 1 (from 2 for a repeated id) that no call of the message
 * has. The OpenAI provider already sends unique ids; a custom model or a script may not.
 *
 * @param message A model's final message.
 * @returns The message itself when its ids are unique (the usual case), else a copy with
 *   the repeated and empty ids replaced.
 *
 * @example Two calls that came with one id
 * ```ts
 * import { withUniqueToolCallIds } from "./unique_tool_call_ids.ts";
 * import { type AssistantMessage, emptyUsage } from "./messages.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const call = (id: string) => ({ type: "toolCall" as const, id, name: "ls", arguments: {} });
 * const message: AssistantMessage = {
 *   role: "assistant", content: [call("a"), call("a"), call("")], stopReason: "toolUse",
 *   usage: emptyUsage(), provider: "custom", model: "m", timestamp: 0,
 * };
 * const unique = withUniqueToolCallIds(message);
 * deepEqual(unique.content.map((block) => block.type === "toolCall" && block.id), [
 *   "a", "a_2", "call_1",
 * ]);
 * ```
 */
export function withUniqueToolCallIds(message: AssistantMessage): AssistantMessage {
  if (!hasRepeatedIds(message.content)) return message;
  const given = new Set<string>();
  for (const block of message.content) if (block.type === "toolCall") given.add(block.id);
  const taken = new Set<string>();
  // Where the search for each base's next free number goes on, so that many calls sharing
  // one id (or none) cost linear time, not quadratic.
  const next = new Map<string, number>();
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    if (block.id !== "" && !taken.has(block.id)) {
      taken.add(block.id);
      return block;
    }
    const base = block.id === "" ? "call" : block.id;
    let n = next.get(block.id) ?? (block.id === "" ? 1 : 2);
    while (taken.has(`${base}_${n}`) || given.has(`${base}_${n}`)) n++;
    next.set(block.id, n + 1);
    const id = `${base}_${n}`;
    taken.add(id);
    return { ...block, id };
  });
  return { ...message, content };
}

/**
 * Whether a tool call has no id or an earlier one's. Checked pair by pair, with no allocation,
 * for the few calls of a usual message (this runs every turn: a Set here made a 2,000-turn run
 * of 8 calls a turn ~20% slower, by hand); through a Set for a long one.
 */
function hasRepeatedIds(content: AssistantMessage["content"]): boolean {
  if (content.length > 32) {
    const seen = new Set<string>();
    for (const block of content) {
      if (block.type !== "toolCall") continue;
      if (block.id === "" || seen.has(block.id)) return true;
      seen.add(block.id);
    }
    return false;
  }
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block.type !== "toolCall") continue;
    if (block.id === "") return true;
    for (let j = 0; j < i; j++) {
      const earlier = content[j];
      if (earlier.type === "toolCall" && earlier.id === block.id) return true;
    }
  }
  return false;
}
