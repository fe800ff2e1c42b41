/**
 * One MCP tool as a Tack tool: the server's JSON Schema, effects from its annotations,
 * results mapped, failures as error results.
 *
 * @module
 */

import {
  type AgentTool,
  type JsonSchema,
  type SchemaTally,
  type ToolEffect,
  ToolError,
  type ToolResult,
  untrustedSchemaProblem,
} from "@tack/agent";
import type { Progress, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection.ts";
import { describeFailure } from "./describe_failure.ts";
import { mapResult, textOf } from "./map_result.ts";
import { clipText, MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS } from "./clip_text.ts";
import { paceProgress } from "../../sdk/pace_progress.ts";

/** The `details` of an MCP tool's result (and of its error results). */
export interface McpCallDetails {
  /** The server's name. */
  server: string;
  /**
   * The tool's name on the server; for the resource and prompt tools, the request
   * (`resources/list`, `resources/read`, `prompts/list`, `prompts/get`).
   */
  tool: string;
  /** The resource read (`resources/read`). */
  uri?: string;
  /** The prompt got (`prompts/get`). */
  prompt?: string;
  /** The server's structured result, when it sent one. */
  structuredContent?: Record<string, unknown>;
  /** The JSON-RPC error code, when the call failed with one. */
  code?: number;
}

/** How a server tool is exposed. */
export interface TackToolOptions {
  /** Its Tack name (prefixed, sanitized, unique). */
  name: string;
  /** What policies see it do. */
  effects: readonly ToolEffect[];
  /** Its per-call timeout; default the agent's. */
  timeoutMs?: number;
  /**
   * The least time between two `tool_execution_update` events of one call, in ms (default
   * 100): the latest progress is kept until then, and delivered before the result.
   */
  progressIntervalMs?: number;
  /**
   * Shared by the tools of one listing, so that a server's schemas together stay within
   * `SCHEMA_LIMITS`' totals (values, patterns): past them, a tool's schema is not compiled and
   * it accepts any object. Each tool is counted alone when omitted.
   */
  schemaTally?: SchemaTally;
}

const ANY_OBJECT: JsonSchema = { type: "object" } as JsonSchema;
/** The longest schema quoted in a description (it is sent with every model call). */
const QUOTED_SCHEMA_CHARS = 8000;

/**
 * The server's input schema, or, when it is too big to compile quickly (past
 * `SCHEMA_LIMITS`, alone or with the listing's schemas before it in `tally`), recursive (checking a model's arguments against it could take
 * exponential time) or Tack cannot compile it (an invalid `pattern`, say), any object, with
 * the schema quoted in the description (up to 8,000 characters) so the model still sees
 * it. The server validates the arguments either way.
 */
function schemaOf(tool: Tool, tally?: SchemaTally): { parameters: JsonSchema; note: string } {
  const schema = tool.inputSchema as unknown as JsonSchema;
  if (untrustedSchemaProblem([{ name: tool.name, parameters: schema }], tally) === undefined) {
    return { parameters: schema, note: "" };
  }
  const text = JSON.stringify(tool.inputSchema);
  return {
    parameters: ANY_OBJECT,
    note: text.length <= QUOTED_SCHEMA_CHARS
      ? `\n\nParameters (JSON Schema): ${text}`
      : `\n\nParameters: a JSON Schema of ${text.length} characters, too long to show`,
  };
}

function progressText(progress: Progress): string {
  if (progress.message) return progress.message;
  return progress.total === undefined
    ? `progress ${progress.progress}`
    : `progress ${progress.progress}/${progress.total}`;
}

/**
 * Wraps an MCP tool as a Tack tool whose `execute` calls it through `connection`. Its
 * description is cut to `MAX_DESCRIPTION_CHARS` and its title (the label) to `MAX_TITLE_CHARS`,
 * with a note saying how much was cut: the model is sent them with every call. The
 * call's `signal` cancels the MCP request; the server's `isError` results and every
 * failure (server gone, timeout, protocol error) become error results whose text names
 * the server; progress notifications become `tool_execution_update` events: the first at
 * once, then at most one every `progressIntervalMs` (the latest), the last before the result.
 *
 * @param connection The server's connection.
 * @param tool The tool as the server listed it.
 * @param options Its Tack name, effects and timeout.
 * @returns The Tack tool.
 *
 * @example Exposing one listed tool under another name
 * ```ts
 * import { McpConnection, toTackTool } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const connection = new McpConnection("fixture", {
 *   command: "deno",
 *   args: ["run", "--quiet", "--cached-only", "tests/fixtures/mcp/stdio_server.ts"],
 * });
 * const [listed] = await connection.listTools();
 * const echo = toTackTool(connection, listed, { name: "say", effects: ["read"] });
 * const result = await echo.execute({ text: "hi" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.details?.tool, "echo");
 * await connection.close();
 * ```
 */
export function toTackTool(
  connection: McpConnection,
  tool: Tool,
  options: TackToolOptions,
): AgentTool<Record<string, unknown>, McpCallDetails> {
  const server = connection.server;
  const title = tool.title ?? tool.annotations?.title;
  const label = title === undefined ? undefined : clipText(title, MAX_TITLE_CHARS);
  const { parameters, note } = schemaOf(tool, options.schemaTally);
  const description = tool.description === undefined
    ? undefined
    : clipText(tool.description, MAX_DESCRIPTION_CHARS);
  return {
    name: options.name,
    description: (description ?? label ?? `MCP tool ${tool.name} of server ${server}`) + note,
    parameters,
    ...(label ? { label } : {}),
    effects: options.effects,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    async execute(params, { signal, update }): Promise<ToolResult<McpCallDetails>> {
      const base: McpCallDetails = { server, tool: tool.name };
      const progress = update &&
        paceProgress(
          (progress: Progress) =>
            update({ content: [{ type: "text", text: progressText(progress) }] }),
          options.progressIntervalMs,
        );
      let result;
      try {
        result = await connection.callTool(tool.name, params, {
          signal,
          timeoutMs: options.timeoutMs,
          onprogress: progress?.push,
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new ToolError(describeFailure(server, tool.name, error, options.timeoutMs), {
          details: typeof code === "number" ? { ...base, code } : base,
          cause: error,
        });
      } finally {
        progress?.flush();
      }
      const mapped = mapResult(result);
      const details: McpCallDetails = mapped.structuredContent
        ? { ...base, structuredContent: mapped.structuredContent }
        : base;
      if (mapped.isError) {
        const text = textOf(mapped.content) ||
          `MCP tool "${tool.name}" on server "${server}" failed without a message`;
        throw new ToolError(text, { details });
      }
      return { content: mapped.content, details };
    },
  };
}
