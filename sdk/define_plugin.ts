/**
 * `definePlugin`: tools, hooks and declared permissions under one name.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  PrepareTurnHook,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
} from "../core/hooks.ts";
import type { AgentTool } from "../core/tool.ts";
import type { PluginPermissions } from "./permissions.ts";
import type { PluginHost } from "./plugin_host.ts";

/**
 * A plugin: a named bundle of tools and hooks. The name appears in every error the
 * plugin causes (a failing hook, a duplicate tool, a denied permission).
 */
export interface Plugin {
  /** Unique among the agent's plugins. */
  readonly name: string;
  /** The plugin's version, for `inspect` and audits. */
  readonly version?: string;
  /** What the plugin does. */
  readonly description?: string;
  /** Tools the plugin registers. */
  readonly tools?: readonly AgentTool[];
  /** The Deno permissions its code needs (enforced when it is sandboxed). */
  readonly permissions?: PluginPermissions;
  /** Runs before each call; may block it or rewrite its arguments. */
  readonly beforeToolCall?: BeforeToolCallHook;
  /**
   * The last check before a call runs, after every `beforeToolCall` and re-validation, on
   * exactly the arguments `execute` will get; may only block (for approvals bound to
   * arguments).
   */
  readonly verifyToolCall?: VerifyToolCallHook;
  /** Runs after each executed call; may override the result field by field. */
  readonly afterToolCall?: AfterToolCallHook;
  /** Asked after each turn; `true` ends the run gracefully. */
  readonly shouldStopAfterTurn?: ShouldStopAfterTurnHook;
  /**
   * Before each model call: may choose the tools active for that call and its system
   * prompt (sees what the plugins before it chose).
   */
  readonly prepareTurn?: PrepareTurnHook;
  /**
   * Called once by each agent the plugin joins, with that agent's handle; keep it to
   * replace the plugin's tools at runtime (`host.setTools(tools)`).
   */
  attach?(host: PluginHost): void;
  /** Sees every event of every run. Contract: must not throw. */
  readonly onEvent?: (event: AgentEvent) => void;
  /** Releases what the plugin holds (processes, connections, files). */
  dispose?(): void | Promise<void>;
}

/**
 * Defines a plugin, checking its name.
 *
 * @param plugin The plugin's name, tools, hooks and permissions.
 * @returns The same plugin, typed.
 * @throws {TypeError} When the name is empty or not a string.
 *
 * @example A read-only policy
 * ```ts
 * import { definePlugin } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const readOnly = definePlugin({
 *   name: "read-only",
 *   beforeToolCall: ({ tool }) =>
 *     tool.name === "write" ? { block: true, reason: "read-only mode" } : undefined,
 * });
 * equal(readOnly.name, "read-only");
 * ```
 */
export function definePlugin<P extends Plugin>(plugin: P): P {
  if (typeof plugin?.name !== "string" || plugin.name.trim() === "") {
    throw new TypeError("Cannot define plugin: it needs a non-empty name");
  }
  return plugin;
}
