/**
 * An MCP server's prompts as two tools the model can call: list them, get one.
 *
 * @module
 */

import { type AgentTool, defineTool, type ImageContent, type TextContent } from "@tack/agent";
import { Type } from "typebox";
import type { CallToolResult, GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection.ts";
import { capImages, mapResult } from "./map_result.ts";
import { failRequest, type ServerToolOptions } from "./resource_tools.ts";
import { toolName } from "./tool_name.ts";
import { clipText, MAX_DESCRIPTION_CHARS } from "./clip_text.ts";
import type { McpCallDetails } from "./to_tack_tool.ts";

/** One listed prompt, its descriptions cut as a tool's are. */
function promptLine(prompt: Prompt): string {
  const args = (prompt.arguments ?? []).map((
    arg: { name: string; required?: boolean; description?: string },
  ) =>
    `${arg.name}${arg.required ? "" : "?"}${
      arg.description ? ` (${clipText(arg.description, MAX_DESCRIPTION_CHARS)})` : ""
    }`
  );
  const about = prompt.description ?? prompt.title;
  return `- ${prompt.name}(${args.join(", ")})${
    about ? `: ${clipText(about, MAX_DESCRIPTION_CHARS)}` : ""
  }`;
}

/**
 * A prompt's messages as parts: each message's text after its role, images as they are (at most
 * `MAX_RESULT_IMAGES` in all, as in a tool's result).
 */
function promptContent(result: GetPromptResult): (TextContent | ImageContent)[] {
  const parts: (TextContent | ImageContent)[] = [];
  if (result.description) parts.push({ type: "text", text: result.description });
  for (const message of result.messages) {
    const [part] = mapResult({ content: [message.content] } as CallToolResult).content;
    parts.push(
      part.type === "text" ? { type: "text", text: `[${message.role}]\n${part.text}` } : {
        type: "text",
        text: `[${message.role}]`,
      },
      ...(part.type === "image" ? [part] : []),
    );
  }
  return capImages(parts);
}

/**
 * Makes `<prefix>_list_prompts` (the server's prompts with their arguments, `?` marking
 * the optional ones) and `<prefix>_get_prompt` (one prompt filled in: its messages, each
 * after its role). Both are `read` tools; failures are error results with the server's
 * words.
 *
 * @param connection The server's connection.
 * @param options The name prefix, the names taken, the timeout.
 * @returns The two tools.
 *
 * @example Getting a prompt of server-everything
 * ```ts
 * import { McpConnection, promptTools } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new McpConnection("everything", {
 *   command: "deno",
 *   args: ["run", "-A", "--quiet", "--cached-only", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
 *   stderr: "ignore",
 * });
 * const [, get] = promptTools(connection, { prefix: "everything", taken: new Set() });
 * const result = await get.execute({ name: "simple-prompt" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text.startsWith("[user]"), true);
 * await connection.close();
 * ```
 */
export function promptTools(
  connection: McpConnection,
  options: ServerToolOptions,
): AgentTool<Record<string, unknown>, McpCallDetails>[] {
  const { server } = connection;
  const { timeoutMs } = options;
  const getName = toolName(options.prefix, "get_prompt", options.taken);
  const list = defineTool({
    name: toolName(options.prefix, "list_prompts", options.taken),
    label: `List prompts of ${server}`,
    description: `List the prompts of MCP server "${server}" with their arguments (\`?\` ` +
      `marks an optional one); get one with ${getName}.`,
    parameters: Type.Object({}),
    effects: ["read"],
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    async execute(_params, { signal }) {
      let prompts: Prompt[];
      try {
        prompts = await connection.listPrompts({ signal, timeoutMs });
      } catch (error) {
        failRequest(server, "prompts/list", error, timeoutMs);
      }
      const text = prompts.length === 0
        ? `MCP server "${server}" lists no prompts`
        : `Prompts of MCP server "${server}":\n${prompts.map(promptLine).join("\n")}`;
      return { content: [{ type: "text", text }], details: { server, tool: "prompts/list" } };
    },
  });
  const get = defineTool({
    name: getName,
    label: `Get a prompt of ${server}`,
    description: `Get one prompt of MCP server "${server}", filled in with its arguments.`,
    parameters: Type.Object({
      name: Type.String({ description: "The prompt's name" }),
      arguments: Type.Optional(
        Type.Record(Type.String(), Type.String(), { description: "Its arguments, all strings" }),
      ),
    }),
    effects: ["read"],
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    async execute({ name, arguments: args }, { signal }) {
      let result: GetPromptResult;
      try {
        result = await connection.getPrompt(name, args ?? {}, { signal, timeoutMs });
      } catch (error) {
        failRequest(server, `prompts/get ${name}`, error, timeoutMs, { prompt: name });
      }
      return {
        content: promptContent(result),
        details: { server, tool: "prompts/get", prompt: name },
      };
    },
  });
  return [list, get] as AgentTool<Record<string, unknown>, McpCallDetails>[];
}
