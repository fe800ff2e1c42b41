/**
 * `loadPlugin`: a plugin module by specifier, in-process or sandboxed in its own Deno
 * process with exactly its declared permissions.
 *
 * @module
 */

import { canKillGroups } from "../process_group.ts";
import { loadFailureHint, moduleForCommand } from "./load_failure_hint.ts";
import { resolve } from "node:path";
import type { Plugin } from "../define_plugin.ts";
import type { PluginPermissions } from "../permissions.ts";
import { DEFAULT_LIMITS, type PluginLimits, resolveLimits } from "../plugin_limits.ts";
import { describeRunGrants, RUN_ON_REQUEST_WARNING, runGrantFindings } from "./grant_warnings.ts";
import { escapingGrants } from "./escaping_grants.ts";
import { escapingFfiGrants, FFI_ESCAPE_NOTE } from "./ffi_grants.ts";
import { denoCacheDir } from "./deno_dir.ts";
import { broadHooksWarning, hookCapabilities, type HookScope, hookScopeOf } from "./hook_grant.ts";
import { manifestProblem } from "./manifest_problem.ts";
import { dataFilesWarning, ungrantedDataFiles } from "./data_files.ts";
import { printable } from "./strip_control_sequences.ts";
import { symlinkedGrantProblem } from "./symlinked_grants.ts";
import { writeGrantProblem } from "./write_grants.ts";
import { canonicalManifest, manifestHash, pinManifest } from "./manifest_pin.ts";
import { assertWithinCeiling } from "./permission_ceiling.ts";
import { describeGrants, NO_GRANTS, resolveGrants } from "./permission_flags.ts";
import {
  moduleUrl,
  NO_GROUP_KILL_WARNING,
  NOT_CONFINED_WARNING,
  type PreparedSandbox,
  prepareSandbox,
  type SandboxOptions,
} from "./prepare_sandbox.ts";
import type { PluginManifest } from "./protocol.ts";
import { runnablePaths } from "./sandbox_command.ts";
import { SandboxConnection } from "./sandbox_connection.ts";
import { importInProcess } from "./import_in_process.ts";
import { sandboxedPlugin } from "./sandbox_plugin.ts";

/** What `loadPlugin` takes besides the specifier. */
export interface LoadPluginOptions extends SandboxOptions {
  /** Run the plugin's code (module top level, tools, hooks) in its own sandbox. */
  sandbox?: boolean;
  /** The grants, replacing the plugin's declared ones (never more than the host has). */
  permissions?: PluginPermissions;
  /** Memory and message size caps, replacing the plugin's declared ones (default 512 MB, 16 MB). */
  limits?: PluginLimits;
  /**
   * Let a plugin have `run` access to a shell, an interpreter, a launcher or deno (judged by
   * what the grant runs: its real path), or any `ffi` grant (native code runs outside
   * Deno's flags), each of which escapes any sandbox.
   */
  allowRunEscape?: boolean;
  /** Receives load warnings (default `console.warn`). */
  onWarning?: (message: string) => void;
  /**
   * Over which tools the plugin's hooks act: `"own"` (default: its own tools' calls and
   * results only) or `"all"` (every call and the whole transcript; warned about at load).
   */
  hooks?: HookScope;
  /** How long each of its hook calls may take (default 30 000 ms), whatever the agent's `hookTimeoutMs`. */
  hookTimeoutMs?: number;
  /** The most a tool's declared `timeoutMs` may be (default 120 000 ms); anything but a finite positive number is ignored (the default applies). */
  maxToolTimeoutMs?: number;
  /**
   * The manifest hash `inspectPlugin` reported (`sha256-…`): a plugin whose manifest
   * (tools, schemas, hooks, declared permissions) differs is refused.
   */
  manifestHash?: string;
}

async function start(
  specifier: string,
  prepared: PreparedSandbox,
  grants: Required<PluginPermissions>,
  limits: Required<PluginLimits>,
  startTimeoutMs: number | undefined,
  pinned: () => string | undefined,
): Promise<{ connection: SandboxConnection; manifest: PluginManifest }> {
  const connection = new SandboxConnection(
    specifier,
    pinManifest(prepared.spawnFor(grants, limits), pinned),
    startTimeoutMs,
  );
  try {
    const manifest = await connection.start();
    connection.label = manifest.name;
    return { connection, manifest };
  } catch (error) {
    await connection.dispose();
    const reason = (error as Error).message.replace(
      /^Cannot start sandbox of plugin "[^"]*": /,
      "",
    );
    const hint = grants === NO_GRANTS && /Permission denied|Requires \w+ access/.test(reason)
      ? " (its manifest is read in a sandbox with no permissions: pass what its module's top level needs as `permissions`)"
      : loadFailureHint(reason, moduleForCommand(prepared.url));
    throw new Error(`Cannot load plugin ${JSON.stringify(specifier)}: ${reason}${hint}`);
  }
}

/** The limits set above the defaults, as `memoryMb 4096 (default 512)`. */
function raisedLimits(limits: Required<PluginLimits>): string[] {
  return (Object.keys(DEFAULT_LIMITS) as (keyof PluginLimits)[])
    .filter((key) => limits[key] > DEFAULT_LIMITS[key])
    .map((key) => `${key} ${limits[key]} (default ${DEFAULT_LIMITS[key]})`);
}

function sameLimits(a: Required<PluginLimits>, b: Required<PluginLimits>): boolean {
  return a.memoryMb === b.memoryMb && a.frameMb === b.frameMb;
}

function grantsNothing(grants: Required<PluginPermissions>): boolean {
  return describeGrants(grants) === "nothing";
}

/**
 * Loads a plugin module's default export (a `Plugin` or a factory of one).
 *
 * Without `sandbox`, the module is imported into the host. With `sandbox: true` the
 * host never evaluates it: a child process (under bubblewrap where available) loads it
 * with no permissions to read its manifest, then runs with the plugin's declared
 * permissions (or `options.permissions`). Tools and hooks are proxied; a denial inside
 * them is an error result `Permission denied: …` the model reads.
 *
 * @param specifier A path (relative to the cwd), `file:`, `jsr:`, `npm:` or `https:` specifier.
 * @param options Sandbox, grants, isolation, root, factory options.
 * @returns The plugin; `dispose()` stops its sandbox.
 * @throws {Error} `Cannot load plugin "<specifier>": …` when the module fails to load, asks
 * for more than the host has (listing asked and missing), asks for an escaping `run`
 * grant or any `ffi` grant without `allowRunEscape`, or imports local files outside its folder.
 *
 * @example A sandboxed plugin with no permissions
 * ```ts
 * import { loadPlugin } from "./load_plugin.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/hello.js`, `export default {
 *   name: "hello",
 *   tools: [{ name: "hi", description: "Says hi", parameters: { type: "object" },
 *     execute: () => ({ content: [{ type: "text", text: "hi" }] }) }],
 * };`);
 * const plugin = await loadPlugin(`${dir}/hello.js`, { sandbox: true, onWarning: () => {} });
 * const result = await plugin.tools![0].execute({}, { toolCallId: "1", signal: new AbortController().signal });
 * equal(result.content[0].type === "text" && result.content[0].text, "hi");
 * await plugin.dispose?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadPlugin(
  specifier: string,
  options: LoadPluginOptions = {},
): Promise<Plugin> {
  const root = resolve(options.root ?? Deno.cwd());
  if (!options.sandbox) {
    return await importInProcess(
      moduleUrl(specifier, Deno.cwd()),
      options.options,
      options.startTimeoutMs,
    );
  }
  const refuse = (reason: string) =>
    new Error(`Cannot load plugin ${JSON.stringify(specifier)}: ${reason}`);
  let scope: HookScope;
  try {
    scope = hookScopeOf(options.hooks);
  } catch (error) {
    throw refuse((error as Error).message.replace(/^Cannot grant hooks: /, "its hooks grant: "));
  }
  // The default prints to a terminal: a warning quoting what a plugin chose (a file's name)
  // carries none of its escapes.
  const warn = options.onWarning ??
    ((message: string) => console.warn(`Tack: ${printable(message)}`));
  const given = options.permissions === undefined
    ? undefined
    : resolveGrants(options.permissions, root);
  // The cache the sandbox mounts (found by `deno info` when the environment does not say):
  // the one a write grant must not reach.
  const hostCache = await denoCacheDir().catch(() => undefined);
  const check = (grants: Required<PluginPermissions>) => {
    const run = runGrantFindings(grants);
    const [escape] = escapingGrants(grants, run.escaping, hostCache, true);
    if (escape !== undefined && !options.allowRunEscape) {
      throw refuse(`${escape}; pass allowRunEscape: true if you mean it`);
    }
    assertWithinCeiling(specifier, grants);
    return run;
  };
  if (given !== undefined) check(given);
  const limitsFor = (declared: PluginLimits | undefined) => {
    try {
      return resolveLimits(declared, options.limits);
    } catch (error) {
      throw new Error(
        `Cannot load plugin ${JSON.stringify(specifier)}: ${
          (error as Error).message.replace(/^Cannot apply limits: /, "")
        }`,
      );
    }
  };
  const firstLimits = limitsFor(undefined);
  const readGrant = Array.isArray(given?.read) ? given.read : [];
  const prepared = await prepareSandbox(specifier, options, readGrant);
  // A worker shares the host's process: limits do not apply, and never cost a restart.
  const capped = options.isolation !== "worker";
  let pinned: string | undefined;
  const launch = async (grants: Required<PluginPermissions>, limits: Required<PluginLimits>) => {
    const problem = prepared.confined ? writeGrantProblem(grants) : undefined;
    if (problem !== undefined) throw refuse(problem);
    return await start(specifier, prepared, grants, limits, options.startTimeoutMs, () => pinned);
  };
  let live: Awaited<ReturnType<typeof start>> | undefined;
  // What a manifest decides, before its plugin runs with anything: refused (names, schemas,
  // the pinned hash, grants it may not have), or the grants and limits it runs with.
  const decide = async (manifest: PluginManifest) => {
    const name = manifest.name;
    const problem = manifestProblem(manifest);
    if (problem !== undefined) {
      throw refuse(`plugin ${JSON.stringify(name)} is refused: ${problem}`);
    }
    const hash = await manifestHash(manifest);
    if (options.manifestHash !== undefined && options.manifestHash !== hash) {
      throw refuse(
        `plugin ${
          JSON.stringify(name)
        }: its manifest (tools, schemas, hooks, permissions) differs from the one inspected (${options.manifestHash}, now ${hash}); it is refused`,
      );
    }
    const limits = capped ? limitsFor(manifest.limits) : firstLimits;
    let grants: Required<PluginPermissions>;
    try {
      grants = given ?? resolveGrants(manifest.permissions, root);
      // What it declares must be what it gets: a path through a symlink names another place.
      const linked = given === undefined ? symlinkedGrantProblem(grants, [root]) : undefined;
      if (linked !== undefined) throw new Error(linked);
    } catch (error) {
      throw refuse(
        `plugin ${JSON.stringify(name)} declares permissions that cannot be granted: ${
          (error as Error).message.replace(/^Cannot grant /, "")
        }`,
      );
    }
    return { name, grants, limits, run: check(grants) };
  };
  try {
    let decided: Awaited<ReturnType<typeof decide>> | undefined;
    // The same version reported its manifest before: start it with what that manifest is
    // granted, once, holding it to that manifest. Anything amiss (a refusal, a different
    // manifest, a crash) and it starts the long way below, which says what is wrong.
    const known = prepared.knownManifest;
    if (known !== undefined) {
      try {
        decided = await decide(known);
        pinned = canonicalManifest(known);
        live = await launch(decided.grants, decided.limits);
      } catch {
        decided = undefined;
        pinned = undefined;
        await live?.connection.dispose();
        live = undefined;
      }
    }
    if (live === undefined) {
      live = await launch(given ?? NO_GRANTS, firstLimits);
      // The manifest is fixed now: every later start (with grants, after a fault) must
      // report the same one, and it must be the one inspected when a hash was pinned.
      decided = await decide(live.manifest);
      pinned = canonicalManifest(live.manifest);
      // Only a manifest read with no permissions is what a load without them would read: one
      // read with given permissions may declare what it could see with them.
      if (given === undefined) await prepared.rememberManifest(live.manifest);
      // Its grants and limits are known now: restart it with them unless it already runs so.
      const sameGrants = given !== undefined || grantsNothing(decided.grants);
      if (!sameGrants || !sameLimits(decided.limits, firstLimits)) {
        await live.connection.dispose();
        live = undefined;
        live = await launch(decided.grants, decided.limits);
      }
    }
    const { name, grants, limits, run } = decided!;
    if (!prepared.confined) warn(`plugin "${name}": ${NOT_CONFINED_WARNING}`);
    if (capped && Deno.build.os !== "windows" && !canKillGroups()) {
      warn(`plugin "${name}": ${NO_GROUP_KILL_WARNING}`);
    }
    const raised = raisedLimits(capped && options.limits === undefined ? limits : DEFAULT_LIMITS);
    if (raised.length > 0) {
      warn(
        `plugin "${name}": declares limits above the defaults (${
          raised.join(", ")
        }); pass limits to loadPlugin (or "limits" in tack.jsonc) to hold it to less`,
      );
    }
    if (run.escaping.length > 0) {
      warn(
        `plugin "${name}": has run access to ${
          describeRunGrants(run.escaping, false)
        } and can escape its sandbox`,
      );
    }
    const ffi = escapingFfiGrants(grants);
    if (ffi.length > 0) {
      warn(
        `plugin "${name}": has ffi access to ${
          describeRunGrants(ffi, false)
        } and can escape its sandbox (${FFI_ESCAPE_NOTE})`,
      );
    }
    if (run.runOnRequest.length > 0) {
      warn(
        `plugin "${name}": has run access to ${
          describeRunGrants(run.runOnRequest, false)
        }, ${RUN_ON_REQUEST_WARNING}`,
      );
    }
    if (prepared.confined && Array.isArray(grants.run)) {
      const runnable = new Set(runnablePaths(grants.run));
      for (const path of grants.run.filter((e) => e.startsWith("/") && !runnable.has(e))) {
        warn(
          `plugin "${name}": its run grant ${
            JSON.stringify(path)
          } is not an executable file, so it is not mounted (a run grant never makes a file readable): running it will fail`,
        );
      }
    }
    const ungranted = ungrantedDataFiles(prepared.dataFiles, grants.read);
    if (ungranted.length > 0) warn(`plugin "${name}": ${dataFilesWarning(ungranted)}`);
    const capabilities = hookCapabilities(live.manifest.hooks, scope);
    const broad = broadHooksWarning(name, capabilities);
    if (broad !== undefined) warn(broad);
    const plugin = {
      ...sandboxedPlugin(live.manifest, live.connection, grants, {
        hooks: scope,
        hookTimeoutMs: options.hookTimeoutMs,
        maxToolTimeoutMs: options.maxToolTimeoutMs,
      }),
      limits: capped ? limits : undefined,
    };
    const stop = plugin.dispose!;
    return {
      ...plugin,
      dispose: async () => {
        await stop();
        await prepared.cleanup();
      },
    };
  } catch (error) {
    await live?.connection.dispose();
    await prepared.cleanup();
    throw error;
  }
}
