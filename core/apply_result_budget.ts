/**
 * The result budget: an oversized result keeps its head and tail, and the model reads
 * how much was left out of the middle.
 *
 * @module
 */

import type { ResultTruncation } from "./messages.ts";
import type { ToolResult } from "./tool.ts";

/** A result after the budget, with what was kept back if anything was. */
export interface BudgetedResult {
  /** The result the model sees. */
  result: ToolResult;
  /** What was kept back, when the result went over the budget. */
  truncation?: ResultTruncation;
}

const NEWLINE_SLACK = 0.2;

function cut(text: string, maxChars: number): { kept: string; keptChars: number } {
  const headLen = Math.ceil(maxChars / 2);
  const tailLen = maxChars - headLen;
  let head = text.slice(0, headLen);
  const lastNewline = head.lastIndexOf("\n");
  if (lastNewline >= headLen * (1 - NEWLINE_SLACK)) head = head.slice(0, lastNewline + 1);
  let tailStart = text.length - tailLen;
  const nextNewline = text.indexOf("\n", tailStart);
  if (nextNewline !== -1 && nextNewline < tailStart + tailLen * NEWLINE_SLACK) {
    tailStart = nextNewline + 1;
  }
  const tail = tailLen > 0 ? text.slice(tailStart) : "";
  const elided = text.length - head.length - tail.length;
  const note = `\n[… ${elided} characters elided from the middle of this result (kept ${
    head.length + tail.length
  } of ${text.length}). Ask for a narrower range to see them …]\n`;
  return { kept: head + note + tail, keptChars: head.length + tail.length };
}

/**
 * Applies a character budget to a result's text. Within budget, the result is returned
 * unchanged (no copy). Over it, the text blocks are joined, the middle is cut, and the
 * untruncated content is returned in `truncation.fullContent` for the host.
 *
 * @param result The result as the tool (and hooks) produced it.
 * @param maxChars The budget; `Infinity` disables it.
 * @returns The result the model sees, and the truncation record if any.
 *
 * @example Cutting a long log
 * ```ts
 * import { applyResultBudget } from "@tack/agent";
 * import { equal, ok } from "node:assert/strict";
 *
 * const long = { content: [{ type: "text" as const, text: "x".repeat(1000) }] };
 * const { result, truncation } = applyResultBudget(long, 100);
 * equal(truncation?.originalChars, 1000);
 * ok(result.content[0].type === "text" && result.content[0].text.includes("900 characters elided"));
 * ```
 */
export function applyResultBudget(result: ToolResult, maxChars: number): BudgetedResult {
  const content = result.content;
  let total = 0;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block.type === "text") total += block.text.length;
  }
  if (total <= maxChars) return { result };
  const texts: string[] = [];
  const others: ToolResult["content"] = [];
  for (const block of content) block.type === "text" ? texts.push(block.text) : others.push(block);
  const { kept, keptChars } = cut(texts.join("\n"), Math.max(0, Math.floor(maxChars)));
  return {
    result: { ...result, content: [{ type: "text", text: kept }, ...others] },
    truncation: { originalChars: total, keptChars, fullContent: content },
  };
}
