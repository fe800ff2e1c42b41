/**
 * MCP tool results as Tack content: text and images pass through (at most
 * {@linkcode MAX_RESULT_IMAGES} images a result), everything else becomes a short text the
 * model can read.
 *
 * @module
 */

import type { ImageContent, TextContent } from "@tack/agent";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { argumentDepthProblem } from "../../core/argument_depth.ts";

/** What {@linkcode mapResult} gives: the content for the model, and whether it failed. */
export interface MappedResult {
  /** Text and images for the model. */
  content: (TextContent | ImageContent)[];
  /** The server's `isError`. */
  isError: boolean;
  /** The server's `structuredContent`, if any, for `details`. */
  structuredContent?: Record<string, unknown>;
}

/**
 * The most images one result shows the model: the result budget counts text only, and a server
 * sent 150,000 tiny images in one result, every one of them sent again with each later model
 * call.
 */
export const MAX_RESULT_IMAGES = 20;

/**
 * Content with at most {@linkcode MAX_RESULT_IMAGES} images: the first are kept, the rest left
 * out, with a note at the end saying how many.
 *
 * @param content Mapped content.
 * @returns `content` itself when it has few enough images; else a copy without the rest.
 *
 * @example 25 images
 * ```ts
 * import { capImages } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const pixel = { type: "image" as const, data: "AA==", mimeType: "image/png" };
 * const capped = capImages(Array.from({ length: 25 }, () => pixel));
 * equal(capped.length, 21);
 * equal(capped[20].type === "text" && capped[20].text, "[5 more images left out: a result shows at most 20]");
 * ```
 */
export function capImages(
  content: (TextContent | ImageContent)[],
): (TextContent | ImageContent)[] {
  let images = 0;
  const kept = content.filter((part) => part.type !== "image" || ++images <= MAX_RESULT_IMAGES);
  if (images <= MAX_RESULT_IMAGES) return content;
  const left = images - MAX_RESULT_IMAGES;
  kept.push({
    type: "text",
    text: `[${left} more image${
      left === 1 ? "" : "s"
    } left out: a result shows at most ${MAX_RESULT_IMAGES}]`,
  });
  return kept;
}

function bytesOf(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(base64.length * 3 / 4) - padding);
}

function mapBlock(block: ContentBlock): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return {
        type: "text",
        text: `[audio (${block.mimeType}, ${bytesOf(block.data)} bytes) not shown]`,
      };
    case "resource_link":
      return { type: "text", text: `[resource ${block.name}: ${block.uri}]` };
    case "resource": {
      const { resource } = block;
      if ("text" in resource && typeof resource.text === "string") {
        return { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` };
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      const mimeType = resource.mimeType ?? "application/octet-stream";
      if (mimeType.startsWith("image/")) return { type: "image", data: blob, mimeType };
      return {
        type: "text",
        text: `[resource ${resource.uri} (${mimeType}, ${bytesOf(blob)} bytes) not shown]`,
      };
    }
    default:
      return {
        type: "text",
        text: `[content of type ${JSON.stringify((block as { type: unknown }).type)} not shown]`,
      };
  }
}

/**
 * Maps an MCP `tools/call` result to Tack content. Text and images pass through; an
 * embedded text resource becomes its text under a `[resource <uri>]` line; audio, binary
 * resources and resource links become a one-line note. Past {@linkcode MAX_RESULT_IMAGES}
 * images, the rest are left out with a note (see {@linkcode capImages}). A result with no content but
 * `structuredContent` shows that as JSON.
 *
 * @param result What the server answered.
 * @returns The content, the server's `isError`, and its structured content.
 *
 * @example Text and an image
 * ```ts
 * import { mapResult } from "@tack/agent/plugins/mcp";
 * import { deepEqual } from "node:assert/strict";
 *
 * const mapped = mapResult({
 *   content: [{ type: "text", text: "hi" }, { type: "image", data: "AA==", mimeType: "image/png" }],
 * });
 * deepEqual(mapped.content, [
 *   { type: "text", text: "hi" },
 *   { type: "image", data: "AA==", mimeType: "image/png" },
 * ]);
 * ```
 */
export function mapResult(result: CallToolResult): MappedResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const content = capImages(blocks.map(mapBlock));
  let structured = result.structuredContent;
  // Kept in the result's details, which events, `--json` and session files write whole: a
  // server's 200,000 levels overflowed the stack of every JSON.stringify after it.
  const tooDeep = structured === undefined ? undefined : argumentDepthProblem(structured);
  if (tooDeep !== undefined) {
    content.push({
      type: "text",
      text: `(its structuredContent was left out: ${tooDeep.replace(/^they nest/, "it nests")})`,
    });
    structured = undefined;
  }
  if (content.length === 0 && structured !== undefined) {
    content.push({ type: "text", text: JSON.stringify(structured) });
  }
  return {
    content,
    isError: result.isError === true,
    ...(structured !== undefined ? { structuredContent: structured } : {}),
  };
}

/**
 * The text of a result, for an error message: its text parts joined by newlines.
 *
 * @param content Mapped content.
 * @returns The joined text (empty when there is none).
 *
 * @example Joining text parts
 * ```ts
 * import { textOf } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * equal(textOf([{ type: "text", text: "a" }, { type: "text", text: "b" }]), "a\nb");
 * ```
 */
export function textOf(content: readonly (TextContent | ImageContent)[]): string {
  return content.flatMap((part) => part.type === "text" ? [part.text] : []).join("\n");
}
