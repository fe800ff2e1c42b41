/**
 * The agent's tools by owner (each plugin, and the agent itself), so each owner can replace
 * its own tools at runtime without touching the others'.
 *
 * @module
 */

import type { AgentTool } from "../core/tool.ts";
import { invalidSchemaReason } from "../core/validate_tool_arguments.ts";
import { toolWithLayout } from "./tool_layout.ts";
import { invalidEffectsReason } from "./invalid_effects.ts";

/** Who registered a set of tools: a plugin's name, or `undefined` for the agent's own. */
export type ToolOwner = string | undefined;

function label(owner: ToolOwner): string {
  return owner === undefined ? "createAgent({ tools })" : `plugin "${owner}"`;
}

/** The tool tagged with its plugin: a copy for plain objects, a child object for class instances (their methods stay reachable). */
function ownedBy(tool: AgentTool, owner: string): AgentTool {
  const proto = Object.getPrototypeOf(tool);
  if (proto === Object.prototype || proto === null) return toolWithLayout(tool, { plugin: owner });
  // A child of the instance, with the methods the loop calls bound to the instance itself
  // (so private fields and `this` keep working).
  const owned: PropertyDescriptorMap = {
    plugin: { value: owner, enumerable: true },
    execute: { value: tool.execute.bind(tool), enumerable: true },
  };
  if (tool.prepareArguments) {
    owned.prepareArguments = { value: tool.prepareArguments.bind(tool), enumerable: true };
  }
  if (tool.validateArguments) {
    owned.validateArguments = { value: tool.validateArguments.bind(tool), enumerable: true };
  }
  return Object.create(tool, owned);
}

/**
 * The tools of one agent, kept per owner in a fixed order (plugins in the order given, then
 * the agent's own). Every change is checked whole: a tool name registered by two owners, or
 * a schema that cannot compile, or `effects` that are not an array of known effects (`read`,
 * `write`, `exec`, `net`), is refused and nothing changes.
 *
 * @example A plugin replaces its tools
 * ```ts
 * import { ToolRegistry } from "@tack/agent";
 * import { deepEqual, throws } from "node:assert/strict";
 *
 * const tool = (name: string) => ({
 *   name, description: "", parameters: { type: "object" }, execute: () => ({ content: [] }),
 * });
 * const registry = new ToolRegistry([{ owner: "mcp", tools: [tool("a")] }, { owner: undefined, tools: [tool("b")] }]);
 * registry.set("mcp", [tool("a"), tool("c")]);
 * deepEqual(registry.tools.map((t) => t.name), ["a", "c", "b"]);
 * throws(() => registry.set("mcp", [tool("b")]), /registered twice/);
 * ```
 */
export class ToolRegistry {
  #sets = new Map<ToolOwner, readonly AgentTool[]>();
  #tools: readonly AgentTool[] = [];
  #listeners: ((tools: readonly AgentTool[]) => void)[] = [];
  #prepare: (tool: AgentTool, owner: ToolOwner) => AgentTool;

  /**
   * Registers the initial sets.
   *
   * @param sets Each owner with its tools, in order.
   * @param prepare Applied to each tool as it is registered, after the checks (the agent
   * caps a sandboxed tool's timeout and wraps tools for tracing here).
   * @throws {Error} When a tool name is registered twice, a schema is invalid or a tool's
   * effects are not an array of known effects.
   */
  constructor(
    sets: readonly { owner: ToolOwner; tools: readonly AgentTool[] }[],
    prepare?: (tool: AgentTool, owner: ToolOwner) => AgentTool,
  ) {
    this.#prepare = prepare ?? ((tool) => tool);
    const initial = new Map<ToolOwner, readonly AgentTool[]>();
    for (const { owner, tools } of sets) initial.set(owner, tools);
    if (!initial.has(undefined)) initial.set(undefined, []);
    this.#tools = this.#assemble(initial, "Cannot create agent");
    this.#sets = initial;
  }

  /** Every tool, plugins' first, each tagged with its plugin. */
  get tools(): readonly AgentTool[] {
    return this.#tools;
  }

  /**
   * Replaces one owner's tools.
   *
   * @param owner A plugin's name, or `undefined` for the agent's own tools.
   * @param tools The new tools.
   * @throws {Error} When a name clashes with another owner's tool, a schema is invalid or a
   * tool's effects are not an array of known effects (nothing changes then).
   */
  set(owner: ToolOwner, tools: readonly AgentTool[]): void {
    if (!this.#sets.has(owner)) {
      throw new Error(`Cannot set tools: ${label(owner)} is not one of the agent's plugins`);
    }
    const next = new Map(this.#sets);
    next.set(owner, tools);
    const action = owner === undefined ? "Cannot set tools" : `Cannot set tools of ${label(owner)}`;
    this.#tools = this.#assemble(next, action);
    this.#sets = next;
    for (const listener of this.#listeners) listener(this.#tools);
  }

  /**
   * Calls `listener` with the new tool list after every change.
   *
   * @param listener Receives every tool after a change.
   */
  onChange(listener: (tools: readonly AgentTool[]) => void): void {
    this.#listeners.push(listener);
  }

  #assemble(sets: ReadonlyMap<ToolOwner, readonly AgentTool[]>, action: string): AgentTool[] {
    const owners = new Map<string, ToolOwner>();
    const tools: AgentTool[] = [];
    for (const [owner, own] of sets) {
      for (const tool of own) {
        if (owners.has(tool.name)) {
          throw new Error(
            `${action}: tool "${tool.name}" is registered twice, by ${
              label(owners.get(tool.name))
            } and by ${label(owner)}`,
          );
        }
        const problem = invalidSchemaReason(tool.parameters);
        if (problem !== undefined) {
          throw new Error(
            `${action}: tool "${tool.name}" (from ${
              label(owner)
            }) has an invalid parameter schema: ${problem}`,
          );
        }
        // Policies read them (`read_only` filters them): anything but an array of known
        // effects would make each of them fail, or pass, in ways no one chose.
        const badEffects = invalidEffectsReason(tool.effects);
        if (badEffects !== undefined) {
          throw new Error(
            `${action}: tool "${tool.name}" (from ${
              label(owner)
            }) has invalid effects: ${badEffects}`,
          );
        }
        owners.set(tool.name, owner);
        const owned = owner !== undefined && tool.plugin !== owner ? ownedBy(tool, owner) : tool;
        tools.push(this.#prepare(owned, owner));
      }
    }
    return tools;
  }
}
