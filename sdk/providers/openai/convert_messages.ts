/**
 * Tack messages to Chat Completions messages.
 *
 * @module
 */

import type OpenAI from "@openai/openai";
import type {
  ImageContent,
  Message,
  TextContent,
  ToolResultMessage,
} from "../../../core/messages.ts";
import type { ModelRequest } from "../../../core/model.ts";
import { normalizeHistory } from "./normalize_history.ts";

/** A Chat Completions message, as the `openai` client types it. */
export type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** The text sent in place of a tool result that has only images (they follow it). */
export const IMAGE_RESULT_TEXT = "(see the attached image)";
/** The text of the user message that carries a batch's tool-result images. */
export const RESULT_IMAGES_TEXT = "Attached image(s) from tool result:";
/** The text sent for a tool result with no content at all. */
export const EMPTY_RESULT_TEXT = "(no output)";

/**
 * Builds an image's data URL.
 *
 * @param image The image (base64 data and MIME type).
 * @returns `data:<mime>;base64,<data>`.
 *
 * @example
 * ```ts
 * import { dataUrl } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(dataUrl({ type: "image", data: "AAAA", mimeType: "image/png" }), "data:image/png;base64,AAAA");
 * ```
 */
export function dataUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/**
 * The text of a tool result as the model reads it (text blocks joined by newlines).
 *
 * @param result The tool result.
 * @returns Its text, or a placeholder when it has none.
 *
 * @example
 * ```ts
 * import { toolResultText } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(toolResultText({
 *   role: "toolResult", toolCallId: "c1", toolName: "t", isError: false, timestamp: 0,
 *   content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
 * }), "a\nb");
 * ```
 */
export function toolResultText(result: ToolResultMessage): string {
  const text = result.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  if (text !== "") return text;
  return result.content.some((block) => block.type === "image")
    ? IMAGE_RESULT_TEXT
    : EMPTY_RESULT_TEXT;
}

/** A run of consecutive tool results, with the images they carry. */
export interface ResultBatch {
  /** The results, in order. */
  results: ToolResultMessage[];
  /** Their images, in order (the APIs' tool messages take text only). */
  images: ImageContent[];
  /** The index of the last result of the run. */
  last: number;
}

/**
 * Takes the run of tool results that starts at `start`: both APIs send one tool message
 * per result, then the results' images in one user message after the run.
 *
 * @param history The normalized transcript.
 * @param start The index of the first result of the run.
 * @returns The results, their images, and where the run ends.
 *
 * @example
 * ```ts
 * import { resultBatch } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const result = { role: "toolResult" as const, toolCallId: "c1", toolName: "t", isError: false,
 *   timestamp: 0, content: [{ type: "image" as const, data: "AA", mimeType: "image/png" }] };
 * const batch = resultBatch([result, { ...result, toolCallId: "c2" }], 0);
 * equal(batch.results.length, 2);
 * equal(batch.images.length, 2);
 * equal(batch.last, 1);
 * ```
 */
export function resultBatch(history: readonly Message[], start: number): ResultBatch {
  const results: ToolResultMessage[] = [];
  const images: ImageContent[] = [];
  let i = start;
  for (; i < history.length && history[i].role === "toolResult"; i++) {
    const result = history[i] as ToolResultMessage;
    results.push(result);
    for (const block of result.content) if (block.type === "image") images.push(block);
  }
  return { results, images, last: i - 1 };
}

/**
 * Converts a request to Chat Completions messages: the system prompt first, user
 * content with images as data URLs, assistant text and `tool_calls`, and each tool
 * result as a `role: "tool"` message with its `tool_call_id`. Tool messages carry text
 * only, so a batch's result images follow it in one user message. Thinking is not
 * replayed (the API has no field for it). See {@linkcode normalizeHistory} for what is
 * done with failed turns and unanswered calls.
 *
 * @param request The system prompt and transcript.
 * @returns The messages for `chat.completions.create`.
 *
 * @example A tool call and its result
 * ```ts
 * import { toChatMessages } from "@tack/agent/sdk/providers/openai";
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const messages = toChatMessages({
 *   systemPrompt: "Be brief.",
 *   tools: [],
 *   messages: [
 *     { role: "user", content: "Weather in Paris?", timestamp: 0 },
 *     {
 *       role: "assistant", stopReason: "toolUse", usage: emptyUsage(), provider: "openai",
 *       model: "m", timestamp: 0,
 *       content: [{ type: "toolCall", id: "c1", name: "weather", arguments: { city: "Paris" } }],
 *     },
 *     {
 *       role: "toolResult", toolCallId: "c1", toolName: "weather", isError: false,
 *       timestamp: 0, content: [{ type: "text", text: "Sunny" }],
 *     },
 *   ],
 * });
 * equal(messages.map((m) => m.role).join(","), "system,user,assistant,tool");
 * ```
 */
export function toChatMessages(request: ModelRequest): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (request.systemPrompt) out.push({ role: "system", content: request.systemPrompt });
  const history = normalizeHistory(request.messages);
  for (let i = 0; i < history.length; i++) {
    const message = history[i];
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      if (message.content.length === 0) continue;
      out.push({
        role: "user",
        content: message.content.map((block) =>
          block.type === "text"
            ? { type: "text" as const, text: block.text }
            : { type: "image_url" as const, image_url: { url: dataUrl(block) } }
        ),
      });
    } else if (message.role === "assistant") {
      const text = message.content
        .map((block) => block.type === "text" ? block.text : "")
        .join("");
      const calls = message.content.flatMap((block) =>
        block.type === "toolCall"
          ? [{
            id: block.id,
            type: "function" as const,
            function: { name: block.name, arguments: JSON.stringify(block.arguments) },
          }]
          : []
      );
      if (text.trim() === "" && calls.length === 0) continue;
      out.push({
        role: "assistant",
        content: text.trim() === "" ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    } else {
      const { results, images, last } = resultBatch(history, i);
      for (const result of results) {
        out.push({
          role: "tool",
          tool_call_id: result.toolCallId,
          content: toolResultText(result),
        });
      }
      i = last;
      if (images.length > 0) {
        out.push({
          role: "user",
          content: [
            { type: "text", text: RESULT_IMAGES_TEXT },
            ...images.map((image) => ({
              type: "image_url" as const,
              image_url: { url: dataUrl(image) },
            })),
          ],
        });
      }
    }
  }
  return out;
}
