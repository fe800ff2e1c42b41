/**
 * Effects from grants: what a sandboxed tool can do to the world follows from what its
 * plugin was granted, whatever the tool declares. Policies (`readOnly`, `rules`) read
 * the effective effects.
 *
 * @module
 */

import type { ToolEffect } from "../../core/tool.ts";
import type { PluginPermissions } from "../permissions.ts";

function given(grant: PluginPermissions["read"]): boolean {
  return grant === true || (Array.isArray(grant) && grant.length > 0);
}

/**
 * The effects a plugin's grants allow its tools: `read` → `read`; `write` → `write`;
 * `run` or `ffi` → `exec`; `net` or `import` → `net`.
 *
 * @param grants The grants its sandbox runs with.
 * @returns The effects, in the order `read`, `write`, `exec`, `net`.
 *
 * @example A write grant
 * ```ts
 * import { grantedEffects } from "./granted_effects.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(grantedEffects({ write: ["/tmp/out"], net: ["example.com"] }), ["write", "net"]);
 * ```
 */
export function grantedEffects(grants: PluginPermissions): ToolEffect[] {
  const effects: ToolEffect[] = [];
  if (given(grants.read)) effects.push("read");
  if (given(grants.write)) effects.push("write");
  if (given(grants.run) || given(grants.ffi)) effects.push("exec");
  if (given(grants.net) || given(grants.import)) effects.push("net");
  return effects;
}

/**
 * A sandboxed tool's effective effects: what it declares, plus what its grants allow.
 *
 * @param declared The tool's declared effects.
 * @param grants The grants its plugin's sandbox runs with.
 * @returns The union, declared ones first.
 *
 * @example A tool that says it only reads, from a plugin that may write
 * ```ts
 * import { effectiveEffects } from "./granted_effects.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(effectiveEffects(["read"], { write: true }), ["read", "write"]);
 * ```
 */
export function effectiveEffects(
  declared: readonly ToolEffect[] | undefined,
  grants: PluginPermissions,
): ToolEffect[] {
  return [...new Set([...(declared ?? []), ...grantedEffects(grants)])];
}
