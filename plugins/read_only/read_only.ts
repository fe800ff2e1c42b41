/**
 * `readOnly()`: blocks every call to a tool that writes or executes.
 *
 * @module
 */

import { definePlugin, type Plugin, type ToolEffect } from "@tack/agent";

/** Options of {@linkcode readOnly}. */
export interface ReadOnlyOptions {
  /**
   * Tools that declare no `effects` (your own tools, many MCP tools): `"allow"` (the
   * default) lets them run, `"block"` blocks them too, for a strict read-only mode.
   */
  undeclared?: "allow" | "block";
}

const BLOCKED: readonly ToolEffect[] = ["write", "exec"];

/**
 * The text of a read-only block.
 *
 * @param toolName The blocked tool.
 * @param effects The effects it declares (empty: none declared).
 * @returns The block text.
 *
 * @example
 * ```ts
 * import { readOnlyMessage } from "@tack/agent/plugins/read_only";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   readOnlyMessage("write", ["write"]),
 *   'Blocked by plugin "read-only": write has effect write, and read-only mode blocks write and exec',
 * );
 * ```
 */
export function readOnlyMessage(toolName: string, effects: readonly ToolEffect[]): string {
  if (effects.length === 0) {
    return `Blocked by plugin "read-only": ${toolName} declares no effects, and read-only mode ` +
      `blocks tools with undeclared effects`;
  }
  return `Blocked by plugin "read-only": ${toolName} has effect ${
    effects.join(" and ")
  }, and read-only mode blocks write and exec`;
}

/**
 * A policy plugin that blocks every call to a tool declaring a `write` or `exec` effect
 * (`fs` `write`/`edit`, `shell` `bash`). Tools that declare nothing run unless
 * `undeclared: "block"`.
 *
 * @param options What to do with tools that declare no effects.
 * @returns The plugin, named `"read-only"`.
 * @throws {TypeError} When `undeclared` is neither `"allow"` nor `"block"`.
 *
 * @example A write is blocked
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { readOnly } from "@tack/agent/plugins/read_only";
 * import { equal } from "node:assert/strict";
 *
 * const write = defineTool({
 *   name: "write", description: "Writes a file", effects: ["write"],
 *   parameters: { type: "object" } as const,
 *   execute: () => ({ content: [{ type: "text", text: "written" }] }),
 * });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("write", {})], [text("ok")]]),
 *   tools: [write],
 *   plugins: [readOnly()],
 * });
 * const [, , result] = await agent.prompt("write it");
 * equal(result.role === "toolResult" && result.isError, true);
 * ```
 */
export function readOnly(options: ReadOnlyOptions = {}): Plugin {
  const undeclared = options.undeclared ?? "allow";
  if (undeclared !== "allow" && undeclared !== "block") {
    throw new TypeError(
      `Cannot create read-only plugin: undeclared must be "allow" or "block", got ${
        JSON.stringify(undeclared)
      }`,
    );
  }
  return definePlugin({
    name: "read-only",
    description: "Blocks tools with write or exec effects",
    permissions: {},
    beforeToolCall: function readOnlyBeforeToolCall({ tool }) {
      const effects = tool.effects ?? [];
      const hit = effects.filter((effect) => BLOCKED.includes(effect));
      if (hit.length > 0 || (effects.length === 0 && undeclared === "block")) {
        return { block: true, reason: readOnlyMessage(tool.name, hit) };
      }
      return undefined;
    },
  });
}
