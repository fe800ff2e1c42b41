/**
 * What a plugin gets from each agent it joins.
 *
 * @module
 */

import type { AgentTool } from "../core/tool.ts";

/**
 * The agent's side of a plugin, given to `Plugin.attach` once per agent the plugin joins.
 * A plugin whose tools change at runtime (an MCP server's `tools/list_changed`) keeps the
 * hosts it was given and calls `setTools` on each.
 */
export interface PluginHost {
  /**
   * Replaces the plugin's tools in this agent. They apply from the agent's next model
   * call (a batch in progress keeps the tools it started with).
   *
   * @param tools The plugin's tools from now on.
   * @throws {Error} When a name clashes with another plugin's (or the agent's) tool, or a
   * schema is invalid; nothing changes then.
   */
  setTools(tools: readonly AgentTool[]): void;
}
