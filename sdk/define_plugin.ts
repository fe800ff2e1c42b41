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
import type { PluginLimits } from "./plugin_limits.ts";
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
  /** What its sandbox may use (memory, message size); the user may replace them. */
  readonly limits?: PluginLimits;
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
   * How long each of this plugin's tool-call hooks may take (default: the agent's
   * `hookTimeoutMs`, else the call's timeout). `Infinity` for a hook that waits for a
   * person (a confirmation prompt): the run's abort still ends the wait, and every other
   * plugin's hooks stay bounded. Ignored for a sandboxed plugin (the host bounds its hooks).
   */
  readonly hookTimeoutMs?: number;
  /**
   * Set by `loadPlugin` for a sandboxed plugin: its limits are the host's, so `createAgent`
   * caps its tools' `timeoutMs` at the agent's `toolTimeoutMs`.
   */
  readonly sandboxed?: boolean;
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
 * Names the host uses for itself in hook attribution and error texts (`createAgent` is
 * how the agent's own hooks are named): no plugin may take them.
 */
export const RESERVED_PLUGIN_NAMES: readonly string[] = ["createAgent"];

/** What a sandboxed plugin's name must match: no quotes, spaces or control characters. */
export const SANDBOXED_PLUGIN_NAME_PATTERN: RegExp = /^[a-zA-Z0-9@][a-zA-Z0-9@._/-]{0,99}$/;

/**
 * Why a plugin name cannot be used, if it cannot: empty, or one of the host's own labels.
 *
 * @param name The name.
 * @returns The problem, or `undefined` when the name is fine.
 *
 * @example The agent's own label
 * ```ts
 * import { pluginNameProblem } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(pluginNameProblem("createAgent"), '"createAgent" is the host\'s own label (the agent\'s own hooks)');
 * equal(pluginNameProblem("weather"), undefined);
 * ```
 */
export function pluginNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name.trim() === "") return "it needs a non-empty name";
  if (RESERVED_PLUGIN_NAMES.some((reserved) => reserved.toLowerCase() === name.toLowerCase())) {
    return `${JSON.stringify(name)} is the host's own label (the agent's own hooks)`;
  }
  return undefined;
}

/**
 * Defines a plugin, checking its name.
 *
 * @param plugin The plugin's name, tools, hooks and permissions.
 * @returns The same plugin, typed.
 * @throws {TypeError} When the name is empty, not a string, or one of the host's own labels.
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
  const problem = pluginNameProblem(plugin?.name);
  if (problem !== undefined) throw new TypeError(`Cannot define plugin: ${problem}`);
  return plugin;
}
