/**
 * The MCP plugin: the tools of Model Context Protocol servers (stdio or streamable
 * HTTP) as Tack tools.
 *
 * @example One stdio server
 * ```ts
 * import mcp from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const plugin = await mcp({
 *   name: "fixture",
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * equal(plugin.tools.some((tool: { name: string }) => tool.name === "fixture_echo"), true);
 * await plugin.dispose();
 * ```
 *
 * @module
 */

import { mcp } from "./mcp.ts";

export { mcp, type McpPlugin } from "./mcp.ts";
export { type CallOptions, type ListToolsOptions, McpConnection } from "./connection.ts";
export { ServerLink } from "./server_link.ts";
export type { ListPage } from "./list_pages.ts";
export { INHERITED_ENV, StdioTransport, type StdioTransportOptions } from "./stdio_transport.ts";
export { describeFailure, errorText } from "./describe_failure.ts";
export {
  capImages,
  type MappedResult,
  mapResult,
  MAX_RESULT_IMAGES,
  textOf,
} from "./map_result.ts";
export type {
  McpHttpServer,
  McpLimits,
  McpMultiServerOptions,
  McpOptions,
  McpReporting,
  McpServerConfig,
  McpSingleServerOptions,
  McpStdioServer,
  McpToolOptions,
} from "./options.ts";
export { type McpToolHints, toolEffects } from "./tool_effects.ts";
export { toolName } from "./tool_name.ts";
export { failRequest, resourceTools, type ServerToolOptions } from "./resource_tools.ts";
export { promptTools } from "./prompt_tools.ts";
export { type McpCallDetails, type TackToolOptions, toTackTool } from "./to_tack_tool.ts";

export default mcp;
