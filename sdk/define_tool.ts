/**
 * `defineTool`: a tool with parameters typed from its schema.
 *
 * @module
 */

import type { JsonSchema, SchemaType } from "../core/schema.ts";
import type {
  AgentTool,
  ToolEffect,
  ToolExecuteContext,
  ToolExecutionMode,
  ToolResult,
} from "../core/tool.ts";
import { invalidSchemaReason } from "../core/validate_tool_arguments.ts";

/** The pattern tool names must match (what OpenAI-compatible APIs accept). */
export const TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** What `defineTool` takes; `execute` gets `params` typed from `parameters`. */
export interface ToolDefinition<S extends JsonSchema, D = unknown> {
  /** Matches {@linkcode TOOL_NAME_PATTERN}. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** A TypeBox schema or a plain JSON Schema (`as const` for typed params). */
  parameters: S;
  /** A human-readable name for UIs. */
  label?: string;
  /** Default `"parallel"`; `"sequential"` makes the whole batch it is in sequential. */
  executionMode?: ToolExecutionMode;
  /** Per-call timeout in ms; overrides the agent's `toolTimeoutMs`. */
  timeoutMs?: number;
  /** Character budget of a result; overrides the agent's `maxResultChars`. */
  maxResultChars?: number;
  /** What the tool does to the world, for policies. */
  effects?: readonly ToolEffect[];
  /** Shim for raw arguments, run before validation. */
  prepareArguments?: (raw: Record<string, unknown>) => Record<string, unknown>;
  /** Runs a call; throw on failure. */
  execute(
    params: SchemaType<S>,
    context: ToolExecuteContext<D>,
  ): Promise<ToolResult<D>> | ToolResult<D>;
}

/** A tool made by {@linkcode defineTool}. */
export type Tool<S extends JsonSchema = JsonSchema, D = unknown> = AgentTool<SchemaType<S>, D>;

/**
 * Defines a tool. The schema is compiled here, once, so a broken schema fails at
 * definition, not at the first call.
 *
 * @param definition Name, description, parameter schema, options and `execute`.
 * @returns The tool, ready for `createAgent({ tools })` or a plugin's `tools`.
 * @throws {TypeError} When the name does not match {@linkcode TOOL_NAME_PATTERN}, or the
 * schema cannot be compiled.
 *
 * @example A typed weather tool
 * ```ts
 * import { defineTool } from "@tack/agent";
 * import { Type } from "typebox";
 * import { equal } from "node:assert/strict";
 *
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   parameters: Type.Object({ city: Type.String() }),
 *   execute: ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
 * });
 * equal(weather.name, "get_weather");
 * ```
 */
export function defineTool<S extends JsonSchema, D = unknown>(
  definition: ToolDefinition<S, D>,
): Tool<S, D> {
  const { name, parameters } = definition;
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `Cannot define tool ${JSON.stringify(name)}: a name must match ${TOOL_NAME_PATTERN.source}`,
    );
  }
  if (typeof definition.execute !== "function") {
    throw new TypeError(`Cannot define tool "${name}": execute must be a function`);
  }
  const problem = invalidSchemaReason(parameters);
  if (problem !== undefined) {
    throw new TypeError(
      `Cannot define tool "${name}": its parameters are not a valid schema: ${problem}`,
    );
  }
  return Object.freeze({ ...definition, description: definition.description ?? "" }) as Tool<S, D>;
}
