/**
 * Checks the final message a model hands back before the loop reads it: a custom model or
 * an edited cassette can give anything, and the loop must end the turn with an error, never
 * throw while reading it.
 *
 * @module
 */

/**
 * Why `message` cannot be the final assistant message of a turn, or `undefined` when it
 * can: an object with role `"assistant"`, a `content` array of objects each with a string
 * `type`, and tool calls with a string `id` and `name`.
 *
 * @param message What the model's stream ended with.
 * @returns The first problem found.
 *
 * @example
 * ```ts
 * import { malformedAssistantMessage } from "./check_assistant_message.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(malformedAssistantMessage({ role: "assistant", content: [{ type: "text", text: "hi" }] }), undefined);
 * equal(malformedAssistantMessage({ role: "assistant", content: 7 }), "its content is not an array");
 * ```
 */
export function malformedAssistantMessage(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return "it is not an object";
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== "assistant") {
    return `its role is ${JSON.stringify(role) ?? "missing"}, not "assistant"`;
  }
  if (!Array.isArray(content)) return "its content is not an array";
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as { type?: unknown; id?: unknown; name?: unknown } | null;
    if (typeof block !== "object" || block === null || typeof block.type !== "string") {
      return `content[${i}] has no type`;
    }
    if (
      block.type === "toolCall" && (typeof block.id !== "string" || typeof block.name !== "string")
    ) {
      return `content[${i}] is a tool call without a string id and name`;
    }
  }
  return undefined;
}
