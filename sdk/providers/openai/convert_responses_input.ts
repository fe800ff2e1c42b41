/**
 * Tack messages to Responses API input items.
 *
 * @module
 */

import type OpenAI from "@openai/openai";
import type { ImageContent } from "../../../core/messages.ts";
import type { ModelRequest } from "../../../core/model.ts";
import { dataUrl, RESULT_IMAGES_TEXT, resultBatch, toolResultText } from "./convert_messages.ts";
import { normalizeHistory } from "./normalize_history.ts";

/** A Responses API input item, as the `openai` client types it. */
export type ResponsesInputItem = OpenAI.Responses.ResponseInputItem;

function inputImage(image: ImageContent): OpenAI.Responses.ResponseInputImage {
  return { type: "input_image", image_url: dataUrl(image), detail: "auto" };
}

/**
 * Converts a transcript to Responses API input: user messages with `input_text` and
 * `input_image` parts, assistant text as assistant messages, tool calls as
 * `function_call` items and results as `function_call_output` items (their images follow
 * in a user message). The system prompt goes in `instructions`, not here. Reasoning is
 * not replayed.
 *
 * @param request The transcript (its system prompt is not used).
 * @returns The input items for `responses.create`.
 *
 * @example A question and a tool call
 * ```ts
 * import { toResponsesInput } from "@tack/agent/sdk/providers/openai";
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const input = toResponsesInput({
 *   systemPrompt: "",
 *   tools: [],
 *   messages: [
 *     { role: "user", content: "Weather?", timestamp: 0 },
 *     {
 *       role: "assistant", stopReason: "toolUse", usage: emptyUsage(), provider: "openai",
 *       model: "m", timestamp: 0,
 *       content: [{ type: "toolCall", id: "c1", name: "weather", arguments: {} }],
 *     },
 *   ],
 * });
 * equal(input.length, 3); // the unanswered call gets a "No result provided" output
 * ```
 */
export function toResponsesInput(request: ModelRequest): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
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
            ? { type: "input_text" as const, text: block.text }
            : inputImage(block)
        ),
      });
    } else if (message.role === "assistant") {
      let text = "";
      const flushText = () => {
        if (text.trim() !== "") out.push({ role: "assistant", content: text });
        text = "";
      };
      for (const block of message.content) {
        if (block.type === "text") text += block.text;
        else if (block.type === "toolCall") {
          flushText();
          out.push({
            type: "function_call",
            call_id: block.id,
            name: block.name,
            arguments: JSON.stringify(block.arguments),
          });
        }
      }
      flushText();
    } else {
      const { results, images, last } = resultBatch(history, i);
      for (const result of results) {
        out.push({
          type: "function_call_output",
          call_id: result.toolCallId,
          output: toolResultText(result),
        });
      }
      i = last;
      if (images.length > 0) {
        out.push({
          role: "user",
          content: [{ type: "input_text", text: RESULT_IMAGES_TEXT }, ...images.map(inputImage)],
        });
      }
    }
  }
  return out;
}
