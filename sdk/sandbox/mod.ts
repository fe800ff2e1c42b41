/**
 * Deno permissions as the outer sandbox: load a plugin by specifier into its own Deno
 * process (under bubblewrap where available) with exactly the permissions it declares,
 * or inspect what it asks for before it runs.
 *
 * @example Inspect, then load sandboxed
 * ```ts
 * import { inspectPlugin, loadPlugin } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/p.js`, 'export default { name: "p", tools: [] };');
 * equal((await inspectPlugin(`${dir}/p.js`, { stderr: "capture" })).name, "p");
 * const plugin = await loadPlugin(`${dir}/p.js`, { sandbox: true, onWarning: () => {} });
 * equal(plugin.name, "p");
 * await plugin.dispose?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

export { loadPlugin, type LoadPluginOptions } from "./load_plugin.ts";
export { type InspectedTool, inspectPlugin, type PluginInspection } from "./inspect_plugin.ts";
export {
  type Isolation,
  NO_GROUP_KILL_WARNING,
  NOT_CONFINED_WARNING,
  type SandboxOptions,
} from "./prepare_sandbox.ts";
export { describeGrants, permissionFlags, resolveGrants } from "./permission_flags.ts";
export { assertWithinCeiling, missingPermissions } from "./permission_ceiling.ts";
export { escapingRunGrants, type RunGrantFinding, runOnRequestGrants } from "./grant_warnings.ts";
export { escapingFfiGrants } from "./ffi_grants.ts";
export {
  describeHooks,
  HOOK_ABILITIES,
  type HookAbility,
  hookCapabilities,
  type HookCapability,
  type HookScope,
} from "./hook_grant.ts";
export type { ProxiedHook } from "./protocol.ts";
export { effectiveEffects, grantedEffects } from "./granted_effects.ts";
export { bwrapAvailable, bwrapCapsTmpfs } from "./bwrap.ts";
export { npmBundlesBuilt } from "./npm_bundle.ts";
