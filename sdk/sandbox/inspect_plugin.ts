/**
 * `inspectPlugin`: what a plugin registers and asks for, read before it runs with any
 * permission (like a browser extension's permission prompt).
 *
 * @module
 */

import { resolve } from "node:path";
import type { ToolEffect, ToolExecutionMode } from "../../core/tool.ts";
import type { PluginPermissions } from "../permissions.ts";
import { type PluginLimits, resolveLimits } from "../plugin_limits.ts";
import { describeRunGrants, RUN_ON_REQUEST_WARNING, runGrantFindings } from "./grant_warnings.ts";
import { escapingGrants } from "./escaping_grants.ts";
import { denoCacheDir } from "./deno_dir.ts";
import { effectiveEffects } from "./granted_effects.ts";
import {
  hookCapabilities,
  type HookCapability,
  type HookScope,
  hookScopeOf,
} from "./hook_grant.ts";
import { manifestHash } from "./manifest_pin.ts";
import { missingPermissions } from "./permission_ceiling.ts";
import { symlinkedGrantProblem } from "./symlinked_grants.ts";
import { manifestProblem } from "./manifest_problem.ts";
import { dataFilesWarning, ungrantedDataFiles } from "./data_files.ts";
import { describeGrants, resolveGrants } from "./permission_flags.ts";
import { NOT_CONFINED_WARNING, prepareSandbox, type SandboxOptions } from "./prepare_sandbox.ts";
import { SandboxConnection } from "./sandbox_connection.ts";

/** One tool, as `inspect` shows it. */
export interface InspectedTool {
  /** The name the model calls it by. */
  name: string;
  /** What it tells the model it does. */
  description: string;
  /** What it may do to the world: what it declares, plus what its declared grants allow. */
  effects?: ToolEffect[];
  /** `"sequential"` when it makes its batch sequential. */
  executionMode?: ToolExecutionMode;
}

/** What a plugin is and asks for. */
export interface PluginInspection {
  /** The plugin's name. */
  name: string;
  /** Its version, if it gives one. */
  version?: string;
  /** Its description, if it gives one. */
  description?: string;
  /** The tools it registers. */
  tools: InspectedTool[];
  /**
   * Its hooks: each stage, what it may do there, and over which tools (`"own"` unless
   * inspected with `hooks: "all"`, the grant `loadPlugin` would be given).
   */
  hooks: HookCapability[];
  /** The permissions it declares, paths resolved against the root. */
  permissions: PluginPermissions;
  /** The memory and message size caps it would run with (its declared ones, or the defaults). */
  limits?: Required<PluginLimits>;
  /**
   * The hash of its manifest (`sha256-…`): pass it to `loadPlugin({ manifestHash })` (or
   * `"manifestHash"` in `tack.jsonc`) and a plugin that presents anything else is refused.
   */
  manifestHash: string;
  /** Whether an OS layer would confine its module loading. */
  confined: boolean;
  /** Local data files (JSON, text, bytes: any module not JavaScript, TypeScript or Wasm) it imports statically: it reads them at load without a read grant. */
  dataFiles?: string[];
  /** What to worry about: grants above the host's, escaping `run`, any `ffi`, `run` of a program that runs others, no OS layer. */
  warnings: string[];
}

/**
 * Inspects a plugin: its module runs once in a sandbox with no permissions at all, only
 * to report its manifest; then the sandbox is stopped.
 *
 * @param specifier A path (relative to the cwd), `file:`, `jsr:`, `npm:` or `https:` specifier.
 * @param options Root, isolation, OS layer, factory options.
 * @returns Its name, tools, hooks (and their scope), declared permissions, manifest hash,
 * confinement and warnings.
 * @throws {Error} `Cannot load plugin "<specifier>": …` when the module fails to load
 * without permissions.
 *
 * @example A plugin that asks for network access
 * ```ts
 * import { inspectPlugin } from "./inspect_plugin.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/weather.js`, `export default {
 *   name: "weather", permissions: { net: ["api.example.com"] },
 *   tools: [{ name: "get_weather", description: "Weather", parameters: { type: "object" },
 *     effects: ["net"], execute: () => ({ content: [] }) }],
 * };`);
 * const report = await inspectPlugin(`${dir}/weather.js`, { stderr: "capture" });
 * equal(report.name, "weather");
 * deepEqual(report.permissions, { net: ["api.example.com"] });
 * deepEqual(report.tools[0].effects, ["net"]);
 * deepEqual(report.hooks, []);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function inspectPlugin(
  specifier: string,
  options: SandboxOptions & { hooks?: HookScope } = {},
): Promise<PluginInspection> {
  const scope = hookScopeOf(options.hooks);
  const root = resolve(options.root ?? Deno.cwd());
  const prepared = await prepareSandbox(specifier, options);
  const connection = new SandboxConnection(
    specifier,
    prepared.spawnFor(resolveGrants({}, root)),
    options.startTimeoutMs,
  );
  try {
    let manifest;
    try {
      manifest = await connection.start();
    } catch (error) {
      throw new Error(
        `Cannot load plugin ${JSON.stringify(specifier)}: ${
          (error as Error).message.replace(/^Cannot start sandbox of plugin "[^"]*": /, "")
        }`,
      );
    }
    const problem = manifestProblem(manifest);
    if (problem !== undefined) {
      throw new Error(
        `Cannot load plugin ${JSON.stringify(specifier)}: plugin ${
          JSON.stringify(manifest.name)
        } is refused: ${problem}`,
      );
    }
    let grants;
    try {
      grants = resolveGrants(manifest.permissions, root);
    } catch (error) {
      throw new Error(
        `Cannot load plugin ${JSON.stringify(specifier)}: plugin ${
          JSON.stringify(manifest.name)
        } declares permissions that cannot be granted: ${
          (error as Error).message.replace(/^Cannot grant /, "")
        }`,
      );
    }
    // Read with no permissions, as loadPlugin reads it: a load after this starts once.
    await prepared.rememberManifest(manifest);
    const permissions: PluginPermissions = {};
    for (const [name, grant] of Object.entries(grants)) {
      if (grant !== false) permissions[name as keyof PluginPermissions] = grant;
    }
    const warnings: string[] = [];
    const linked = symlinkedGrantProblem(grants, [root]);
    if (linked !== undefined) warnings.push(`it asks for ${linked}: loading it will be refused`);
    const missing = missingPermissions(grants);
    if (Object.keys(missing).length > 0) {
      warnings.push(
        `it asks for more than this process has (missing ${
          describeGrants(missing)
        }): loading it will be refused`,
      );
    }
    const run = runGrantFindings(grants);
    const hostCache = await denoCacheDir().catch(() => undefined);
    warnings.push(...escapingGrants(grants, run.escaping, hostCache, false));
    if (run.runOnRequest.length > 0) {
      warnings.push(
        `it asks for run access to ${
          describeRunGrants(run.runOnRequest, false)
        }, ${RUN_ON_REQUEST_WARNING}`,
      );
    }
    if (!prepared.confined) warnings.push(NOT_CONFINED_WARNING);
    const ungranted = ungrantedDataFiles(prepared.dataFiles, grants.read);
    if (ungranted.length > 0) warnings.push(`it ${dataFilesWarning(ungranted)}`);
    const hooks = hookCapabilities(manifest.hooks, scope);
    if (scope === "all" && hooks.length > 0) {
      warnings.push(
        `its hooks would act on every tool's calls and see the whole transcript (hooks: "all")`,
      );
    }
    return {
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      tools: manifest.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        effects: effectiveEffects(tool.effects, grants),
        executionMode: tool.executionMode,
      })),
      hooks,
      permissions,
      limits: resolveLimits(manifest.limits, undefined),
      manifestHash: await manifestHash(manifest),
      confined: prepared.confined,
      ...(prepared.dataFiles.length > 0 ? { dataFiles: prepared.dataFiles } : {}),
      warnings,
    };
  } finally {
    await connection.dispose();
    await prepared.cleanup();
  }
}
