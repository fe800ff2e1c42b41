/**
 * A server's tool listing checked tool by tool: the SDK checks a page whole, so one tool that
 * does not fit MCP's schema failed the listing, and with it the load, with a dump of the
 * schema's issues. Here that tool is left out and its reason told in one line.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PaginatedResultSchema, type Tool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { issuesText } from "./invalid_response.ts";

/** How {@linkcode McpConnection.listTools} lists. */
export interface ListToolsOptions {
  /**
   * Called for each listed tool that does not fit MCP's schema, which is left out: its name
   * (`#<index>` on its page when it has none) and why, in one line.
   */
  onInvalid?: (tool: string, why: string) => void;
  /**
   * When the listing's time (the connect timeout) started, a `performance.now()` time: waiting
   * for the connection (a restart) then counts toward it, as for a refresh, which has one
   * deadline. By default the time starts once connected, and connecting has a timeout of its own.
   */
  since?: number;
}

/** A `tools/list` page whose tools are checked later, one by one. */
export const LooseListToolsResultSchema = PaginatedResultSchema.extend({
  tools: z.array(z.unknown()),
});

/**
 * The tools of a page that fit MCP's schema, in order; the others are left out, each told
 * to `onInvalid`.
 *
 * @param listed The page's tools, unchecked.
 * @param onInvalid Hears of each tool left out.
 * @returns The tools that fit.
 *
 * @example A tool whose input schema is not an object
 * ```ts
 * import { checkedTools } from "./checked_tools.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const left: string[] = [];
 * const tools = checkedTools([
 *   { name: "good", inputSchema: { type: "object" } },
 *   { name: "bad", inputSchema: { type: "array" } },
 * ], (name, why) => left.push(`${name}: ${why}`));
 * deepEqual(tools.map((tool) => tool.name), ["good"]);
 * deepEqual(left, ['bad: inputSchema.type: Invalid input: expected "object"']);
 * ```
 */
export function checkedTools(
  listed: readonly unknown[],
  onInvalid?: (tool: string, why: string) => void,
): Tool[] {
  const tools: Tool[] = [];
  for (const [index, raw] of listed.entries()) {
    const checked = ToolSchema.safeParse(raw);
    if (checked.success) {
      tools.push(checked.data);
      continue;
    }
    const name = (raw as { name?: unknown } | null)?.name;
    onInvalid?.(
      typeof name === "string" ? name.slice(0, 200) : `#${index}`,
      issuesText(checked.error),
    );
  }
  return tools;
}

/**
 * Gives the SDK's client the tools listed, as its own `listTools` does (it checks a tool's
 * structured results against its `outputSchema` with them); a client without the method is
 * left as it is.
 *
 * @param client The client.
 * @param tools The tools of the page.
 */
export function cacheToolMetadata(client: Client, tools: Tool[]): void {
  (client as unknown as { cacheToolMetadata?: (tools: Tool[]) => void }).cacheToolMetadata
    ?.call(client, tools);
}
