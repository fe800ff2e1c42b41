/**
 * Checks what tools and hooks hand back before it reaches the transcript: a malformed
 * block (a `text` that is not a string, say) becomes an error result, never a crash.
 *
 * @module
 */

/**
 * Why `content` is not a valid result content array, or `undefined` when it is.
 *
 * @param content What a tool or hook returned as `content`.
 * @returns The first problem found, naming the block (`content[1].text must be a string`).
 *
 * @example
 * ```ts
 * import { invalidContentReason } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(invalidContentReason([{ type: "text", text: "ok" }]), undefined);
 * equal(invalidContentReason([{ type: "text" }]), "content[0].text must be a string");
 * ```
 */
export function invalidContentReason(content: unknown): string | undefined {
  if (!Array.isArray(content)) return "expected { content: [...] }";
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as {
      type?: unknown;
      text?: unknown;
      data?: unknown;
      mimeType?: unknown;
    } | null;
    if (block?.type === "text") {
      if (typeof block.text !== "string") return `content[${i}].text must be a string`;
    } else if (block?.type === "image") {
      if (typeof block.data !== "string" || typeof block.mimeType !== "string") {
        return `content[${i}] must be an image with string data and mimeType`;
      }
    } else {
      return `content[${i}] must be a text or image block`;
    }
  }
  return undefined;
}
