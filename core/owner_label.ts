/**
 * How error texts name the owner of a hook: a plugin, or the agent's own hook.
 *
 * @module
 */

/**
 * Names a hook's owner in error texts.
 *
 * @param owner A plugin's name, or `createAgent` for the hooks passed to `createAgent`.
 * @returns `plugin "x"`, or `the agent's own hook`.
 *
 * @example
 * ```ts
 * import { ownerLabel } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(ownerLabel("rules"), 'plugin "rules"');
 * equal(ownerLabel("createAgent"), "the agent's own hook");
 * ```
 */
export function ownerLabel(owner: string): string {
  return owner === "createAgent" ? "the agent's own hook" : `plugin "${owner}"`;
}
