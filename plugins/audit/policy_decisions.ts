/**
 * A side channel from policy plugins to `audit`: which plugin blocked a call. The loop's
 * events carry the block's text but not its author, so the policy plugins note it here,
 * keyed by the call's `ToolCall` object (unique per call, shared by hooks and messages).
 *
 * @module
 */

import type { ToolCall } from "@tack/agent";

const KEY = Symbol.for("tack.plugins.policyDecisions");
const registry: WeakMap<ToolCall, string> =
  ((globalThis as Record<symbol, unknown>)[KEY] as WeakMap<ToolCall, string> | undefined) ??
    ((globalThis as Record<symbol, unknown>)[KEY] = new WeakMap<ToolCall, string>());

/**
 * Notes that a plugin blocked a call, for `audit` to report as `blockedBy`.
 *
 * @param toolCall The call, as the hook received it.
 * @param plugin The blocking plugin's name.
 *
 * @example
 * ```ts
 * import { blockedByOf, noteBlock } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * const call = { type: "toolCall" as const, id: "1", name: "bash", arguments: {} };
 * noteBlock(call, "rules");
 * equal(blockedByOf(call), "rules");
 * ```
 */
export function noteBlock(toolCall: ToolCall, plugin: string): void {
  if (!registry.has(toolCall)) registry.set(toolCall, plugin);
}

/**
 * The plugin noted as having blocked a call, if any.
 *
 * @param toolCall The call.
 * @returns The plugin's name, or `undefined`.
 *
 * @example
 * ```ts
 * import { blockedByOf } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * equal(blockedByOf({ type: "toolCall", id: "2", name: "ls", arguments: {} }), undefined);
 * ```
 */
export function blockedByOf(toolCall: ToolCall): string | undefined {
  return registry.get(toolCall);
}
