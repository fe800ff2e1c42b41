/**
 * One MCP server as the plugin sees it: its tools, resources and prompts, over a
 * {@linkcode ServerLink} (connected on demand, reconnected after it dies, restarted when it
 * stops answering).
 *
 * @module
 */

import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  cacheToolMetadata,
  checkedTools,
  type ListToolsOptions,
  LooseListToolsResultSchema,
} from "./checked_tools.ts";
import { MAX_LISTED_ITEMS, MAX_LISTED_TOOLS } from "./list_pages.ts";
import type { CallOptions } from "./options.ts";
import { ServerLink } from "./server_link.ts";

export type { CallOptions } from "./options.ts";
export type { ListToolsOptions } from "./checked_tools.ts";

/**
 * A connection to one MCP server. It connects on first use and again after the server
 * closed the connection (a stdio server that exited, an HTTP server that went away, a
 * transport failure); after a call timed out or was aborted it pings the server and
 * restarts it when the ping goes unanswered.
 *
 * @example Listing a server's tools and calling one
 * ```ts
 * import { McpConnection } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new McpConnection("fixture", {
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * const tools = await connection.listTools();
 * equal(tools[0].name, "echo");
 * const result = await connection.callTool("echo", { text: "hi" });
 * equal(result.content[0].type === "text" && result.content[0].text, "echo: hi");
 * await connection.close();
 * ```
 */
export class McpConnection extends ServerLink {
  /**
   * Lists every tool the server offers, following pagination; the whole listing may take
   * the connect timeout (from `since`, connecting included, when given). A tool that does not
   * fit MCP's schema (an `inputSchema` whose type is not `object`, no name) is left out, and
   * `onInvalid` told why.
   *
   * @param options Who hears of the tools left out; when the listing's time started.
   * @returns The server's tools.
   * @throws {Error} When connecting or listing fails, or the listing is not done in time
   * (`Cannot list the tools of MCP server "<name>": it did not list them all within <ms> ms`).
   */
  listTools(options: ListToolsOptions = {}): Promise<Tool[]> {
    return this.pages("tools", MAX_LISTED_TOOLS, async (client, params, request) => {
      // Each tool checked alone: one the SDK's schema refuses is left out, not the listing.
      const page = await client.request(
        { method: "tools/list", params },
        LooseListToolsResultSchema,
        request,
      );
      const tools = checkedTools(page.tools, options.onInvalid);
      cacheToolMetadata(client, tools);
      return { items: tools, next: page.nextCursor };
    }, { since: options.since });
  }

  /**
   * Lists the server's resources (concrete URIs), following pagination.
   *
   * @param options Signal and timeout (default the connect timeout).
   * @returns Its resources.
   * @throws {Error} When connecting fails or the server has no resources (`McpError`).
   */
  listResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.pages("resources", MAX_LISTED_ITEMS, async (client, params, request) => {
      const page = await client.listResources(params, request);
      return { items: page.resources, next: page.nextCursor };
    }, options);
  }

  /**
   * Lists the server's resource templates (URI templates such as `demo://text/{id}`),
   * following pagination.
   *
   * @param options Signal and timeout (default the connect timeout).
   * @returns Its templates.
   * @throws {Error} When connecting fails or the server has no resources (`McpError`).
   */
  listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.pages("resource templates", MAX_LISTED_ITEMS, async (client, params, request) => {
      const page = await client.listResourceTemplates(params, request);
      return { items: page.resourceTemplates, next: page.nextCursor };
    }, options);
  }

  /**
   * Reads one resource.
   *
   * @param uri Its URI (listed, or made from a template).
   * @param options Signal and timeout (default none).
   * @returns Its contents (text or base64 blobs).
   * @throws {Error} `McpError` when the server rejects the URI; as for `callTool`.
   */
  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.request(options, (client, request) => client.readResource({ uri }, request));
  }

  /**
   * Lists the server's prompts, following pagination.
   *
   * @param options Signal and timeout (default the connect timeout).
   * @returns Its prompts with their arguments.
   * @throws {Error} When connecting fails or the server has no prompts (`McpError`).
   */
  listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.pages("prompts", MAX_LISTED_ITEMS, async (client, params, request) => {
      const page = await client.listPrompts(params, request);
      return { items: page.prompts, next: page.nextCursor };
    }, options);
  }

  /**
   * Gets one prompt, filled in with its arguments.
   *
   * @param name The prompt's name.
   * @param args Its arguments (all strings, as MCP has them).
   * @param options Signal and timeout (default none).
   * @returns Its messages.
   * @throws {Error} `McpError` when the server rejects the name or the arguments.
   */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.request(
      options,
      (client, request) => client.getPrompt({ name, arguments: args }, request),
    );
  }

  /**
   * Calls a tool, connecting (or reconnecting) first if needed. An aborted `signal`
   * cancels the request on the server (`notifications/cancelled`); after a timeout or
   * an abort the server is pinged and restarted if it does not answer.
   *
   * @param name The tool's name on the server.
   * @param args Its arguments.
   * @param options Signal, timeout and progress callback.
   * @returns The server's result (which may have `isError: true`).
   * @throws {Error} Whatever the SDK raises: `McpError` for protocol errors, timeouts
   * and a closed connection, an `AbortError` when `signal` aborts; an
   * `InvalidResponseError` when the server's answer is not valid JSON-RPC or its result does
   * not fit MCP's schema.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return await this.request(options, (client, request, token) =>
      client.callTool(
        { name, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) },
        undefined,
        request,
      )) as CallToolResult;
  }
}
