/**
 * The marks a sandboxed plugin leaves for the agent, carried by the objects themselves (a copy
 * made by spreading one keeps them): which plugin's sandbox a tool runs in, so the agent caps
 * its timeout however the tool reaches it (a plugin, the agent's own tools, `setTools`,
 * another plugin's `setTools`, `prepareTurn`); and which tool names a plugin's own-scope hooks
 * take as theirs, so no other tool of that name is registered next to them.
 *
 * @module
 */

import type { AgentTool } from "../core/tool.ts";

const SANDBOXED: unique symbol = Symbol("tack.sandboxed");
const OWN_TOOLS: unique symbol = Symbol("tack.ownTools");

/**
 * Marks a tool as run in a plugin's sandbox (`loadPlugin` does, for every tool of a
 * sandboxed plugin).
 *
 * @param tool The tool, changed in place.
 * @param plugin The sandboxed plugin's name.
 * @returns The same tool.
 *
 * @example A copy keeps the mark
 * ```ts
 * import { isSandboxedTool, markSandboxed, sandboxOf } from "./sandboxed_tool.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = markSandboxed({ name: "t", description: "", parameters: {}, execute: () => ({ content: [] }) }, "p");
 * equal(isSandboxedTool({ ...tool, timeoutMs: 1 }), true);
 * equal(sandboxOf({ ...tool }), "p");
 * ```
 */
export function markSandboxed<T extends AgentTool>(tool: T, plugin: string): T {
  Object.defineProperty(tool, SANDBOXED, { value: plugin, enumerable: true });
  return tool;
}

/**
 * The sandboxed plugin a tool (or a copy of it) runs in.
 *
 * @param tool The tool.
 * @returns The plugin's name, or `undefined` for a tool that is not sandboxed.
 *
 * @example An ordinary tool
 * ```ts
 * import { sandboxOf } from "./sandboxed_tool.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(sandboxOf({ name: "t", description: "", parameters: {}, execute: () => ({ content: [] }) }), undefined);
 * ```
 */
export function sandboxOf(tool: AgentTool): string | undefined {
  const plugin = (tool as { [SANDBOXED]?: unknown })[SANDBOXED];
  return typeof plugin === "string" ? plugin : undefined;
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
  return sandboxOf(tool) !== undefined;
}

/**
 * Records the tool names a plugin's hooks take as their own (`loadPlugin` does for a sandboxed
 * plugin whose hooks are scoped `"own"`: they match calls by tool name).
 *
 * @param plugin The plugin object, changed in place.
 * @param names Its manifest's tool names.
 * @returns The same plugin.
 *
 * @example Claims survive a copy
 * ```ts
 * import { claimOwnTools, ownToolClaims } from "./sandboxed_tool.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const plugin = claimOwnTools({ name: "p" }, ["read"]);
 * deepEqual(ownToolClaims({ ...plugin, tools: [] }), ["read"]);
 * ```
 */
export function claimOwnTools<T extends object>(plugin: T, names: readonly string[]): T {
  Object.defineProperty(plugin, OWN_TOOLS, { value: [...names], enumerable: true });
  return plugin;
}

/**
 * The tool names a plugin's hooks take as their own, if it claimed any.
 *
 * @param plugin The plugin.
 * @returns The names (empty when it claims none).
 *
 * @example No claims
 * ```ts
 * import { ownToolClaims } from "./sandboxed_tool.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(ownToolClaims({ name: "p" }), []);
 * ```
 */
export function ownToolClaims(plugin: object): readonly string[] {
  const names = (plugin as { [OWN_TOOLS]?: unknown })[OWN_TOOLS];
  return Array.isArray(names) ? names : [];
}
