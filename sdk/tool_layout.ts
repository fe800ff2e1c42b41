/**
 * One object layout for every tool the SDK makes.
 *
 * V8 optimizes the loop's reads of a tool (`name`, `execute`, `timeoutMs`, …) for the layouts
 * (hidden classes) it has seen. A tool copied with a spread gets a layout of its own for each
 * shape of definition: an agent's tools of several shapes make the loop's reads of them
 * polymorphic (how V8 works; not measured here), and a full GC that found none of a run's tools
 * alive threw that layout away with the code optimized for it, so the next run paid to optimize
 * again (core/keep_layout.ts; measured: docs/bench.md).
 * Built here, every tool has the same fields in the same order (absent ones `undefined`):
 * one layout, kept for the process's life.
 *
 * @module
 */

import type { AgentTool } from "../core/tool.ts";
import { keepLayout } from "../core/keep_layout.ts";

/**
 * A tool with the SDK's one layout: the fields of `AgentTool` in a fixed order, then any other
 * field `source` has (as a spread would copy them), with `changes` applied over `source`.
 *
 * @param source The tool or definition to copy.
 * @param changes Fields to set instead of `source`'s.
 * @returns A new plain object (not frozen).
 *
 * @example Two definitions of different shapes, one layout
 * ```ts
 * import { toolWithLayout } from "./tool_layout.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const execute = () => ({ content: [] });
 * const a = toolWithLayout({ name: "a", description: "", parameters: {}, execute });
 * const b = toolWithLayout({ execute, timeoutMs: 5, name: "b", parameters: {}, description: "" });
 * deepEqual(Object.keys(a), Object.keys(b));
 * equal(toolWithLayout(b, { plugin: "p" }).plugin, "p");
 * ```
 */
export function toolWithLayout(
  source: AgentTool,
  changes: Partial<AgentTool> = {},
): AgentTool {
  const pick = <K extends keyof AgentTool>(key: K): AgentTool[K] =>
    key in changes ? changes[key]! : source[key];
  const tool: AgentTool = {
    name: pick("name"),
    description: pick("description"),
    parameters: pick("parameters"),
    label: pick("label"),
    executionMode: pick("executionMode"),
    timeoutMs: pick("timeoutMs"),
    maxResultChars: pick("maxResultChars"),
    effects: pick("effects"),
    plugin: pick("plugin"),
    prepareArguments: pick("prepareArguments"),
    validateArguments: pick("validateArguments"),
    execute: pick("execute"),
  };
  // Fields beyond AgentTool's (a plugin's own metadata) are kept, as a spread keeps them.
  for (const key of Reflect.ownKeys(source)) {
    if (!Object.hasOwn(tool, key) && Object.prototype.propertyIsEnumerable.call(source, key)) {
      (tool as unknown as Record<PropertyKey, unknown>)[key] =
        (source as unknown as Record<PropertyKey, unknown>)[key];
    }
  }
  return tool;
}

// One tool of the layout, plain and frozen (defineTool freezes), kept for the process's life.
keepLayout(
  Object.freeze(
    toolWithLayout({ name: "", description: "", parameters: {}, execute: () => ({ content: [] }) }),
  ),
);
keepLayout(
  toolWithLayout({ name: "", description: "", parameters: {}, execute: () => ({ content: [] }) }),
);
