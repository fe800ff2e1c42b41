/**
 * The mark of a tool whose code runs in a sandbox, carried by the tool itself (a copy made
 * by spreading it keeps it), so the agent caps its timeout however the tool reaches it: a
 * plugin, the agent's own tools, `setTools`, another plugin's `setTools`, `prepareTurn`.
 *
 * @module
 */

import type { AgentTool } from "../core/tool.ts";

const SANDBOXED: unique symbol = Symbol("tack.sandboxed");

/**
 * Marks a tool as sandboxed (`loadPlugin` does, for every tool of a sandboxed plugin).
 *
 * @param tool The tool, changed in place.
 * @returns The same tool.
 *
 * @example A copy keeps the mark
 * ```ts
 * import { isSandboxedTool, markSandboxed } from "./sandboxed_tool.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = markSandboxed({ name: "t", description: "", parameters: {}, execute: () => ({ content: [] }) });
 * equal(isSandboxedTool({ ...tool, timeoutMs: 1 }), true);
 * ```
 */
export function markSandboxed<T extends AgentTool>(tool: T): T {
  Object.defineProperty(tool, SANDBOXED, { value: true, enumerable: true });
  return tool;
}

/**
 * Whether a tool (or a copy of it) was marked sandboxed.
 *
 * @param tool The tool.
 * @returns `true` for a sandboxed plugin's tool.
 *
 * @example An ordinary tool
 * ```ts
 * import { isSandboxedTool } from "./sandboxed_tool.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isSandboxedTool({ name: "t", description: "", parameters: {}, execute: () => ({ content: [] }) }), false);
 * ```
 */
export function isSandboxedTool(tool: AgentTool): boolean {
  return (tool as { [SANDBOXED]?: boolean })[SANDBOXED] === true;
}
