/**
 * A policy hook: refuse to greet names on a block list.
 *
 * @module
 */

import type { BeforeToolCallHook } from "@tack/agent/plugin";

/**
 * The reason a blocked call gets (the model sees it as the tool's error result).
 *
 * @param name The refused name.
 * @returns The text.
 */
export function blockedMessage(name: string): string {
  return `Not allowed to greet "${name}": the name is on the plugin's block list`;
}

/**
 * Creates a `beforeToolCall` hook that blocks `greet` calls whose `name` is on the list
 * (compared case-insensitively, ignoring surrounding spaces).
 *
 * Contract: never throws; returns `{ block: true, reason }` for a listed name and
 * `undefined` (let the call run) for everything else, other tools included.
 *
 * @param names The names to refuse.
 * @returns The hook.
 *
 * @example Blocking one name
 * ```ts
 * import { blockNames } from "./block_names.ts";
 * import { equal } from "node:assert/strict";
 *
 * const hook = blockNames(["Voldemort"]);
 * equal(typeof hook, "function");
 * ```
 */
export function blockNames(names: readonly string[]): BeforeToolCallHook {
  const blocked = new Set(names.map((name) => name.trim().toLowerCase()));
  return function blockNamesHook({ tool, args }) {
    if (tool.name !== "greet" || blocked.size === 0) return undefined;
    const name = String(args.name ?? "");
    if (!blocked.has(name.trim().toLowerCase())) return undefined;
    return { block: true, reason: blockedMessage(name) };
  };
}
