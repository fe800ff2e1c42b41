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
import {
  isStandardSchema,
  standardJsonSchema,
  type StandardOutput,
  type StandardSchemaV1,
  standardValidator,
} from "./standard_schema.ts";
import { toolWithLayout } from "./tool_layout.ts";
import { timeoutProblem } from "../core/loop_config.ts";

/** The pattern tool names must match (what OpenAI-compatible APIs accept). */
export const TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool's parameters: TypeBox, plain JSON Schema, or a Standard Schema with a JSON Schema conversion. */
export type ToolParameters = JsonSchema | StandardSchemaV1;

/**
 * The type `execute` receives for a parameter schema: a Standard Schema's output type, or
 * the static type of a TypeBox / JSON Schema.
 */
export type ParamsOf<S extends ToolParameters> = S extends StandardSchemaV1 ? StandardOutput<S>
  : SchemaType<S>;

/** What `defineTool` takes; `execute` gets `params` typed from `parameters`. */
export interface ToolDefinition<S extends ToolParameters, D = unknown> {
  /** Matches {@linkcode TOOL_NAME_PATTERN}. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * A TypeBox schema, a plain JSON Schema (`as const` for typed params), or a Standard
   * Schema with a JSON Schema conversion (Zod 4, ArkType, Valibot through
   * `toStandardJsonSchema`).
   */
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
    params: ParamsOf<S>,
    context: ToolExecuteContext<D>,
  ): Promise<ToolResult<D>> | ToolResult<D>;
}

/** A tool made by {@linkcode defineTool}. */
export type Tool<S extends ToolParameters = JsonSchema, D = unknown> = AgentTool<ParamsOf<S>, D>;

/**
 * Defines a tool. A Standard Schema (Zod 4, Valibot, ArkType) is converted to JSON Schema
 * here (what the model is sent) and validates the arguments itself; `params` are then its
 * output type, and invalid arguments read like any other (tool name, failing path,
 * expectation).
 *
 * The schema is compiled where the tool is registered (`createAgent`, `setTools`,
 * `loadPlugin`), or when a `prepareTurn` hook chooses it unregistered, once, so a broken
 * schema fails there, naming the tool and its plugin, and never at the first call (only
 * `runLoop` used alone checks at the call). Not here: a sandboxed plugin's child process
 * would load the validator (TypeBox's compiler and the RE2 engine, ~10 ms of every sandbox
 * start) only to repeat what its host checks anyway.
 *
 * @param definition Name, description, parameter schema, options and `execute`.
 * @returns The tool, ready for `createAgent({ tools })` or a plugin's `tools`.
 * @throws {TypeError} When the name does not match {@linkcode TOOL_NAME_PATTERN}, `execute`
 * is not a function, `parameters` is not a schema object, or a Standard Schema has no JSON
 * Schema conversion.
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
 *
 * @example A Zod schema
 * ```ts
 * import { defineTool } from "@tack/agent";
 * import { z } from "zod";
 * import { equal } from "node:assert/strict";
 *
 * const forecast = defineTool({
 *   name: "forecast",
 *   description: "Forecast for a city",
 *   parameters: z.object({ city: z.string(), days: z.number().int().min(1).default(1) }),
 *   execute: ({ city, days }) => ({ content: [{ type: "text", text: `${city}: ${days} days` }] }),
 * });
 * equal(forecast.validateArguments?.({ city: "Oslo" }).ok, true);
 * ```
 */
export function defineTool<S extends ToolParameters, D = unknown>(
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
  const badTimeout = timeoutProblem(definition.timeoutMs);
  if (badTimeout !== undefined) {
    throw new RangeError(`Cannot define tool "${name}": timeoutMs ${badTimeout}`);
  }
  const schemaObject = typeof parameters === "object" && parameters !== null &&
    !Array.isArray(parameters);
  if (!schemaObject && !isStandardSchema(parameters)) {
    // Only its shape: the schema is compiled where the tool is registered.
    throw new TypeError(
      `Cannot define tool "${name}": parameters must be a schema (TypeBox, JSON Schema or a Standard Schema), not ${
        parameters === null ? "null" : Array.isArray(parameters) ? "an array" : typeof parameters
      }`,
    );
  }
  if (isStandardSchema(parameters)) {
    // The Standard Schema validates; its JSON Schema is what the model sees and coercion reads.
    const jsonSchema = standardJsonSchema(parameters, name);
    return Object.freeze(toolWithLayout(definition as unknown as AgentTool, {
      description: definition.description ?? "",
      parameters: jsonSchema,
      validateArguments: standardValidator(parameters),
    })) as unknown as Tool<S, D>;
  }
  return Object.freeze(
    toolWithLayout(definition as unknown as AgentTool, {
      description: definition.description ?? "",
    }),
  ) as unknown as Tool<S, D>;
}
