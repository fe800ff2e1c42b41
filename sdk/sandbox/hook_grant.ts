/**
 * Hooks as capabilities: what each hook stage of a plugin may do, and over which tools.
 * A sandboxed plugin's hooks act on its own tools only unless the user grants `"all"`.
 *
 * @module
 */

import type { ProxiedHook } from "./protocol.ts";

/**
 * Over which calls a sandboxed plugin's hooks act: `"own"` (its own tools' calls and
 * results, nothing of the rest of the run) or `"all"` (every call, the whole transcript).
 */
export type HookScope = "own" | "all";

/** What a hook stage lets its plugin do. */
export type HookAbility =
  | "observe"
  | "block"
  | "rewrite arguments"
  | "override results"
  | "stop the run";

/** One hook stage of a plugin, as `inspect` shows it and `loadPlugin` grants it. */
export interface HookCapability {
  /** The stage (`beforeToolCall`, `afterToolCall`, …). */
  stage: ProxiedHook;
  /** What it may do there. */
  abilities: HookAbility[];
  /** Over which tools. */
  scope: HookScope;
}

/** What each stage may do, fixed by the loop's hook contract. */
export const HOOK_ABILITIES: Readonly<Record<ProxiedHook, readonly HookAbility[]>> = {
  beforeToolCall: ["observe", "block", "rewrite arguments"],
  verifyToolCall: ["observe", "block"],
  afterToolCall: ["observe", "override results"],
  shouldStopAfterTurn: ["observe", "stop the run"],
  onEvent: ["observe"],
};

/**
 * The capabilities of a plugin's hook stages under a scope.
 *
 * @param stages The stages the plugin registers (its manifest's `hooks`).
 * @param scope The scope granted.
 * @returns One capability per stage.
 *
 * @example A policy hook over its own tools
 * ```ts
 * import { hookCapabilities } from "./hook_grant.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(hookCapabilities(["beforeToolCall"], "own"), [
 *   { stage: "beforeToolCall", abilities: ["observe", "block", "rewrite arguments"], scope: "own" },
 * ]);
 * ```
 */
export function hookCapabilities(
  stages: readonly ProxiedHook[],
  scope: HookScope,
): HookCapability[] {
  return stages.map((stage) => ({ stage, abilities: [...HOOK_ABILITIES[stage]], scope }));
}

/**
 * One line per capability, for warnings and `tack plugins inspect`.
 *
 * @param capabilities The plugin's hook capabilities.
 * @returns E.g. `beforeToolCall: observe, block, rewrite arguments (its own tools only)`.
 *
 * @example Every tool
 * ```ts
 * import { describeHooks, hookCapabilities } from "./hook_grant.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(describeHooks(hookCapabilities(["afterToolCall"], "all")), [
 *   "afterToolCall: observe, override results (every tool's calls, and the whole transcript)",
 * ]);
 * ```
 */
export function describeHooks(capabilities: readonly HookCapability[]): string[] {
  return capabilities.map(({ stage, abilities, scope }) =>
    `${stage}: ${abilities.join(", ")} (${
      scope === "all" ? "every tool's calls, and the whole transcript" : "its own tools only"
    })`
  );
}

/**
 * The warning shown before a plugin's hooks are granted every tool, like a permission.
 *
 * @param plugin The plugin's name.
 * @param capabilities Its hook capabilities (scope `"all"`).
 * @returns The warning, or `undefined` when it has no hooks.
 *
 * @example A plugin granted every tool
 * ```ts
 * import { broadHooksWarning, hookCapabilities } from "./hook_grant.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   broadHooksWarning("p", hookCapabilities(["beforeToolCall"], "all")),
 *   'plugin "p": its hooks are granted every tool (hooks: "all"): beforeToolCall: observe, ' +
 *     "block, rewrite arguments (every tool's calls, and the whole transcript)",
 * );
 * ```
 */
export function broadHooksWarning(
  plugin: string,
  capabilities: readonly HookCapability[],
): string | undefined {
  if (capabilities.length === 0 || capabilities.every((c) => c.scope !== "all")) return undefined;
  return `plugin ${JSON.stringify(plugin)}: its hooks are granted every tool (hooks: "all"): ${
    describeHooks(capabilities.filter((c) => c.scope === "all")).join("; ")
  }`;
}

/**
 * Checks a `hooks` grant given by a caller or a config file.
 *
 * @param value The grant as given.
 * @returns The scope (`"own"` when absent).
 * @throws {TypeError} `Cannot grant hooks: …` for anything but `"own"` or `"all"`.
 *
 * @example Absent means own
 * ```ts
 * import { hookScopeOf } from "./hook_grant.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(hookScopeOf(undefined), "own");
 * ```
 */
export function hookScopeOf(value: unknown): HookScope {
  if (value === undefined || value === "own") return "own";
  if (value === "all") return "all";
  throw new TypeError(
    `Cannot grant hooks: expected "own" or "all", got ${JSON.stringify(value)}`,
  );
}
