/**
 * What a plugin needs and nothing more: {@linkcode definePlugin}, {@linkcode defineTool},
 * TypeBox's `Type`, the error helpers, and every type of the core and the SDK. Import it
 * as `@tack/agent/plugin`.
 *
 * It is `@tack/agent` without the agent, the loop, the providers, the sandbox loader and
 * telemetry: a sandboxed plugin's child loads every module its plugin imports, so a plugin
 * importing this starts faster (55 against 77 ms in bench/sandbox_bench.ts's cold-start rows). Whatever
 * it exports is the same object `@tack/agent` exports.
 *
 * @example A plugin with one tool
 * ```ts
 * import { definePlugin, defineTool, Type } from "./plugin_api.ts";
 * import { equal } from "node:assert/strict";
 *
 * const plugin = definePlugin({
 *   name: "weather",
 *   tools: [defineTool({
 *     name: "forecast",
 *     description: "Tomorrow's weather in a city",
 *     parameters: Type.Object({ city: Type.String() }),
 *     execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 *   })],
 * });
 * equal(plugin.tools?.[0].name, "forecast");
 * ```
 *
 * @module
 */

export type * from "../core/mod.ts";
export { ToolError } from "../core/tool.ts";
export {
  createErrorToolResult,
  errorToToolResult,
  permissionDenial,
  permissionDeniedMessage,
} from "../core/create_error_tool_result.ts";
export {
  defineTool,
  type ParamsOf,
  type Tool,
  TOOL_NAME_PATTERN,
  type ToolDefinition,
  type ToolParameters,
} from "./define_tool.ts";
export {
  definePlugin,
  type Plugin,
  pluginNameProblem,
  RESERVED_PLUGIN_NAMES,
} from "./define_plugin.ts";
export type { PluginHost } from "./plugin_host.ts";
export { PERMISSION_NAMES, type PermissionGrant, type PluginPermissions } from "./permissions.ts";
export { DEFAULT_LIMITS, type PluginLimits } from "./plugin_limits.ts";
export type { StandardSchemaV1 } from "./standard_schema.ts";
export { Type } from "./typebox.ts";
