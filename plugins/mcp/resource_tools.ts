/**
 * An MCP server's resources as two tools the model can call: list them, read one.
 *
 * @module
 */

import { type AgentTool, defineTool, ToolError } from "@tack/agent";
import { Type } from "typebox";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ReadResourceResult,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection.ts";
import { describeFailure } from "./describe_failure.ts";
import type { McpCallDetails } from "./to_tack_tool.ts";
import { mapResult } from "./map_result.ts";
import { toolName } from "./tool_name.ts";
import { clipText, MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS } from "./clip_text.ts";

/** How the resource tools are named and bounded. */
export interface ServerToolOptions {
  /** Put before each tool's name with a `_`. */
  prefix: string;
  /** Tack names already given; the new names are added. */
  taken: Set<string>;
  /** Each request's timeout; default none (the agent's governs). */
  timeoutMs?: number;
}

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string };

/** Whether a MIME type is text the model can read. */
function isText(mimeType: string | undefined): boolean {
  return mimeType !== undefined &&
    (/^text\//.test(mimeType) || /[/+](json|xml|yaml|javascript)$/.test(mimeType));
}

/** A blob whose MIME type says text, decoded (UTF-8); anything else as it is. */
function asText(contents: Contents): Contents {
  if (typeof contents.blob !== "string" || !isText(contents.mimeType)) return contents;
  // A plain loop: Uint8Array.from with a callback per character held the host ~1.1 s for 7 MB.
  const binary = atob(contents.blob);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const { blob: _blob, ...rest } = contents;
  return { ...rest, text: new TextDecoder().decode(bytes) };
}

/** One listed resource or template, its name and description cut as a tool's are. */
function line(uri: string, name: string, mimeType?: string, description?: string): string {
  const type = mimeType ? ` (${mimeType})` : "";
  const about = description ? ` — ${clipText(description, MAX_DESCRIPTION_CHARS)}` : "";
  return `- ${uri}: ${clipText(name, MAX_TITLE_CHARS)}${type}${about}`;
}

/**
 * Fails a resource or prompt request with an error result naming the server and the
 * request, in the server's words.
 *
 * @param server The server's name.
 * @param request The request and its subject (`resources/read demo://x`).
 * @param error What the SDK threw.
 * @param timeoutMs The request's timeout, if set.
 * @param details More details (the URI, the prompt).
 * @returns Never; it throws the {@linkcode ToolError}.
 */
export function failRequest(
  server: string,
  request: string,
  error: unknown,
  timeoutMs?: number,
  details: Omit<McpCallDetails, "server" | "tool"> = {},
): never {
  const code = (error as { code?: unknown }).code;
  const what = request.split(" ")[0];
  const base = { server, tool: what, ...details };
  throw new ToolError(describeFailure(server, request, error, timeoutMs, "request"), {
    details: typeof code === "number" ? { ...base, code } : base,
    cause: error,
  });
}

/**
 * Makes `<prefix>_list_resources` (the server's resources and resource templates, one per
 * line) and `<prefix>_read_resource` (one resource by URI: text as text, images as
 * images, other blobs described). Both are `read` tools; failures are error results
 * with the server's words.
 *
 * @param connection The server's connection.
 * @param options The name prefix, the names taken, the timeout.
 * @returns The two tools.
 *
 * @example Listing and reading a resource of server-everything
 * ```ts
 * import { McpConnection, resourceTools } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new McpConnection("everything", {
 *   command: "deno",
 *   args: ["run", "-A", "--quiet", "--cached-only", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
 *   stderr: "ignore",
 * });
 * const [, read] = resourceTools(connection, { prefix: "everything", taken: new Set() });
 * const result = await read.execute({ uri: "demo://resource/dynamic/text/1" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text.includes("Resource 1"), true);
 * await connection.close();
 * ```
 */
export function resourceTools(
  connection: McpConnection,
  options: ServerToolOptions,
): AgentTool<Record<string, unknown>, McpCallDetails>[] {
  const { server } = connection;
  const { timeoutMs } = options;
  const readName = toolName(options.prefix, "read_resource", options.taken);
  const list = defineTool({
    name: toolName(options.prefix, "list_resources", options.taken),
    label: `List resources of ${server}`,
    description: `List the resources (URIs with names and types) and resource templates of ` +
      `MCP server "${server}"; read one with ${readName}.`,
    parameters: Type.Object({}),
    effects: ["read"],
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    async execute(_params, { signal }) {
      const request = { signal, timeoutMs };
      let templates: ResourceTemplate[] = [];
      let lines: string[];
      try {
        const resources = await connection.listResources(request);
        lines = resources.map((r) => line(r.uri, r.title ?? r.name, r.mimeType, r.description));
        templates = await connection.listResourceTemplates(request).catch((error) => {
          // Templates are optional even for a server that has resources.
          if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
          throw error;
        });
      } catch (error) {
        failRequest(server, "resources/list", error, timeoutMs);
      }
      if (templates.length > 0) {
        lines.push(
          "Templates (put values in the {braces} to make a URI):",
          ...templates.map((t) =>
            line(t.uriTemplate, t.title ?? t.name, t.mimeType, t.description)
          ),
        );
      }
      const text = lines.length === 0
        ? `MCP server "${server}" lists no resources`
        : `Resources of MCP server "${server}":\n${lines.join("\n")}`;
      return { content: [{ type: "text", text }], details: { server, tool: "resources/list" } };
    },
  });
  const read = defineTool({
    name: readName,
    label: `Read a resource of ${server}`,
    description: `Read one resource of MCP server "${server}" by its URI (as listed, or ` +
      `made from a template).`,
    parameters: Type.Object({ uri: Type.String({ description: "The resource's URI" }) }),
    effects: ["read"],
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    async execute({ uri }, { signal }) {
      let contents: ReadResourceResult["contents"];
      try {
        contents = (await connection.readResource(uri, { signal, timeoutMs })).contents;
      } catch (error) {
        failRequest(server, `resources/read ${uri}`, error, timeoutMs, { uri });
      }
      const { content } = mapResult({
        content: contents.map((resource: Contents) => ({
          type: "resource",
          resource: asText(resource),
        })) as CallToolResult["content"],
      });
      if (content.length === 0) {
        content.push({ type: "text", text: `Resource ${uri} of MCP server "${server}" is empty` });
      }
      return { content, details: { server, tool: "resources/read", uri } };
    },
  });
  return [list, read] as AgentTool<Record<string, unknown>, McpCallDetails>[];
}
