/**
 * The one way every failure becomes a result the model can read.
 *
 * @module
 */

import { ToolError, type ToolResult } from "./tool.ts";

/**
 * Builds the result of a failed call: the message as text content, with optional details.
 *
 * @param message What went wrong, in words the model can act on.
 * @param details Structured data for the host (never sent to the model).
 * @returns A result to pair with `isError: true`.
 *
 * @example An unknown tool
 * ```ts
 * import { createErrorToolResult } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(createErrorToolResult("Tool banana not found"), {
 *   content: [{ type: "text", text: "Tool banana not found" }],
 *   details: {},
 * });
 * ```
 */
export function createErrorToolResult(message: string, details: unknown = {}): ToolResult {
  return { content: [{ type: "text", text: message }], details };
}

/**
 * Turns whatever a tool or hook threw into an error result: the error's message (or its
 * string form) as text, and a {@linkcode ToolError}'s details.
 *
 * @param error What was thrown.
 * @param prefix Optional words before the message (e.g. which plugin's hook failed).
 * @returns An error result.
 *
 * @example A thrown Error
 * ```ts
 * import { errorToToolResult } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const result = errorToToolResult(new Error("disk full"));
 * equal(result.content[0].type === "text" && result.content[0].text, "disk full");
 * ```
 */
export function errorToToolResult(error: unknown, prefix = ""): ToolResult {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const details = error instanceof ToolError ? error.details : {};
  return createErrorToolResult(prefix + message, details ?? {});
}
