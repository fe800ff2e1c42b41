/**
 * A tool as a sandboxed hook sees it: the fields that describe it, as JSON (never its
 * `execute`, nor anything else a tool object may carry).
 *
 * @module
 */

import type { AgentTool } from "../../core/tool.ts";

/**
 * The description of a tool that crosses the protocol to a sandboxed hook.
 *
 * @param tool The tool.
 * @returns Its name, description, parameters, label, execution mode, effects and plugin.
 *
 * @example Only the describing fields
 * ```ts
 * import { toolSpec } from "./tool_spec.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const tool = {
 *   name: "t", description: "A tool", parameters: { type: "object" }, timeoutMs: 5,
 *   execute: () => ({ content: [] }),
 * };
 * deepEqual(JSON.parse(JSON.stringify(toolSpec(tool))), {
 *   name: "t", description: "A tool", parameters: { type: "object" },
 * });
 * ```
 */
export function toolSpec(tool: AgentTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    label: tool.label,
    executionMode: tool.executionMode,
    effects: tool.effects,
    plugin: tool.plugin,
  };
}
