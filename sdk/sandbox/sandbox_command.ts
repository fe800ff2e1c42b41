/**
 * The command line of a sandbox process: `deno run` with exactly the plugin's grants,
 * wrapped in bubblewrap (or `unshare -n`) where the OS offers it.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import type { PluginPermissions } from "../permissions.ts";
import {
  bwrapArgs,
  bwrapAvailable,
  bwrapCapsTmpfs,
  type CacheSeed,
  unshareNetAvailable,
} from "./bwrap.ts";
import { fillingCommand } from "./code_cache_seed.ts";
import type { PluginLimits } from "../plugin_limits.ts";
import { hostPath, isExecutableFile } from "./host_may.ts";
import { heapLimitFlag, osLimitPrefix } from "./memory_limit.ts";
import type { ModuleGraph } from "./module_graph.ts";
import { permissionFlags } from "./permission_flags.ts";
import type { RunnerConfig } from "./serve_plugin.ts";
import type { ProcessCommand } from "./sandbox_process.ts";

/** The OS layer around a sandbox: bubblewrap, only an empty network namespace, or none. */
export type OsLayer = "bwrap" | "unshare" | "none";

/** The runner module the child's entry imports first. */
export const RUNNER_URL: URL = new URL("./runner.ts", import.meta.url);

/**
 * Tack's own source folders, mounted read-only so the runner (and a plugin's imports of
 * Tack) load under bubblewrap. Empty when Tack itself is remote (then it is in the cache).
 */
export const TACK_SOURCE_DIRS: readonly string[] = RUNNER_URL.protocol === "file:"
  ? ["../../core", "../../sdk", "../../plugins"].map((dir) =>
    fromFileUrl(new URL(dir, import.meta.url))
  )
  : [];

/** Tack's root `mod.ts`, allowed in a plugin's graph (it re-exports the SDK). */
export const TACK_ROOT_MODULE: string | undefined = RUNNER_URL.protocol === "file:"
  ? fromFileUrl(new URL("../../mod.ts", import.meta.url))
  : undefined;

/** The runner module a worker's entry imports first. */
const WORKER_RUNNER_URL: URL = new URL("./worker_runner.ts", import.meta.url);

/**
 * The source of a child's entry module: the runner first (it redirects `console`), then
 * the plugin, both imported statically (Deno gates computed dynamic imports by `read`,
 * static ones not), then serving.
 *
 * @param pluginUrl The plugin module's URL.
 * @param worker Whether the entry starts a worker (else a process).
 * @returns The module's source.
 *
 * @example The entry of a plugin
 * ```ts
 * import { entrySource } from "./sandbox_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(entrySource("file:///p.ts", false).includes('import * as plugin from "file:///p.ts";'), true);
 * ```
 */
export function entrySource(pluginUrl: string, worker: boolean): string {
  const runner = worker ? WORKER_RUNNER_URL.href : RUNNER_URL.href;
  const serve = worker ? "serveWorker" : "serveStdio";
  return [
    `import { ${serve} } from ${JSON.stringify(runner)};`,
    `import * as plugin from ${JSON.stringify(pluginUrl)};`,
    `await ${serve}(plugin);`,
    "",
  ].join("\n");
}

/**
 * Picks the strongest OS layer available.
 *
 * @param confine `false` turns the OS layer off (flags only).
 * @param net Whether the plugin is granted `net` (then `unshare -n` is no use).
 * @returns The layer to use.
 *
 * @example Turned off
 * ```ts
 * import { chooseOsLayer } from "./sandbox_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await chooseOsLayer(false, false), "none");
 * ```
 */
export async function chooseOsLayer(confine: boolean, net: boolean): Promise<OsLayer> {
  if (!confine) return "none";
  if (await bwrapAvailable()) return "bwrap";
  if (!net && await unshareNetAvailable()) return "unshare";
  return "none";
}

/** What {@linkcode sandboxCommand} builds from. */
export interface SandboxCommandInput {
  label: string;
  grants: Required<PluginPermissions>;
  graph: ModuleGraph;
  importMapPath: string;
  /** A read-only copy of the lockfile the graph was cached with, if there is one. */
  lockPath?: string;
  /** The entry module that imports the runner and the plugin. */
  entryPath: string;
  config: RunnerConfig;
  layer: OsLayer;
  denoDir: string;
  /**
   * The child's own Deno cache folder: a capped tmpfs at `denoDir`, under the graph's cache
   * entries, but for its `gen/file` (the transpiled graph), kept on the host between starts.
   * Bubblewrap only.
   */
  cacheDir?: string;
  /** With `cacheDir`: a seed of code caches to mount in it (`fill`: this run fills it). */
  seed?: CacheSeed;
  stderr?: "forward" | "capture";
  /** Memory and message size caps (none when left out). */
  limits?: Required<PluginLimits>;
}

function grantedEnv(env: PluginPermissions["env"]): Record<string, string> {
  if (env === true) return Deno.env.toObject();
  const out: Record<string, string> = {};
  if (Array.isArray(env)) {
    for (const name of env) {
      const value = Deno.env.get(name);
      if (value !== undefined) out[name] = value;
    }
  }
  return out;
}

function paths(grant: PluginPermissions["read"]): string[] {
  return Array.isArray(grant) ? [...grant] : [];
}

/**
 * The `run` grants that are paths to executable regular files: only those are mounted
 * (a `run` grant must not make a data file visible to the plugin's imports).
 *
 * @param grant The `run` grant.
 * @returns The paths to mount.
 *
 * @example A data file named in `run` is not mounted
 * ```ts
 * import { runnablePaths } from "./sandbox_command.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/creds.json`, "{}");
 * deepEqual(runnablePaths(["git", `${dir}/creds.json`]), []);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function runnablePaths(grant: PluginPermissions["run"]): string[] {
  return paths(grant).filter((entry) => entry.startsWith("/") && isExecutableFile(entry));
}

/**
 * Builds the sandbox process's command line and environment.
 *
 * @param input The grants, the cached graph, the runner's config and the OS layer.
 * @returns The command for {@linkcode spawnProcess}.
 *
 * @example Flags only
 * ```ts
 * import { sandboxCommand } from "./sandbox_command.ts";
 * import { resolveGrants } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * const command = sandboxCommand({
 *   label: "demo", grants: resolveGrants({}, "/"), layer: "none", denoDir: "/cache",
 *   graph: { root: "file:///p.ts", localFiles: ["/p.ts"], dynamicFiles: [], dataFiles: [], cacheFiles: [], npmPackages: [], remoteHosts: [], importMap: { imports: {}, scopes: {} } },
 *   importMapPath: "/tmp/map.json", entryPath: "/tmp/entry.ts", config: { specifier: "file:///p.ts", read: [], confined: false },
 * });
 * equal(command.command, Deno.execPath());
 * equal(command.args.includes("--deny-net"), true);
 * ```
 */
export function sandboxCommand(input: SandboxCommandInput): ProcessCommand {
  const { grants, layer } = input;
  const remoteRunner = RUNNER_URL.protocol === "file:" ? [] : [RUNNER_URL.host];
  const deno = [
    Deno.execPath(),
    "run",
    "--no-prompt",
    "--no-config",
    // The lock the host cached the graph with, frozen: the child resolves exactly what the
    // host fetched, and a package missing from it is an error, never a re-resolution.
    ...(input.lockPath === undefined ? ["--no-lock"] : [`--lock=${input.lockPath}`, "--frozen"]),
    // Without an `import` grant nothing new can be fetched: the host cached the graph.
    ...(grants.import === false ? ["--cached-only"] : []),
    `--import-map=${input.importMapPath}`,
    ...(input.limits === undefined ? [] : [heapLimitFlag(input.limits.memoryMb)]),
    ...permissionFlags(grants, [...input.graph.remoteHosts, ...remoteRunner]),
    input.entryPath,
    JSON.stringify(input.config),
  ];
  const env = {
    ...grantedEnv(grants.env),
    // Deno resolves commands through PATH before it checks `run` (without it, a denied
    // spawn reads "entity not found"); the plugin cannot read PATH without `env`.
    PATH: hostPath(),
    DENO_DIR: input.denoDir,
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
  };
  const base = {
    env,
    label: input.label,
    stderr: input.stderr,
    memoryMb: input.limits?.memoryMb,
    frameMb: input.limits?.frameMb,
  };
  // The OS memory limit wraps everything (rlimits pass through bwrap and unshare).
  const os = input.limits === undefined ? [] : osLimitPrefix(input.limits.memoryMb);
  const run = (command: string, args: string[]): ProcessCommand =>
    os.length === 0
      ? { ...base, command, args }
      : { ...base, command: os[0], args: [...os.slice(1), command, ...args] };
  if (layer === "unshare") return run("unshare", ["-n", ...deno]);
  if (layer === "none") return run(deno[0], deno.slice(1));
  const args = bwrapArgs({
    // File by file: the deno binary, the graph's modules (the plugin's and the runner's),
    // the cache entries they need (never the whole cache), the generated entry, import
    // map and lock, and the grants. Nothing else of the host's disk.
    readOnly: [
      Deno.execPath(),
      ...input.graph.cacheFiles,
      ...mountedModules(input.graph.localFiles),
      input.importMapPath,
      ...(input.lockPath === undefined ? [] : [input.lockPath]),
      input.entryPath,
      ...paths(grants.read),
      ...paths(grants.ffi),
      ...runnablePaths(grants.run),
    ],
    readWrite: paths(grants.write),
    shareNet: grants.net !== false,
    // The sandbox's /tmp, where granted programs write without Deno asking: at most the
    // plugin's memory limit, where this bubblewrap can cap it (known: the layer is chosen).
    ...(input.limits !== undefined && bwrapCapsTmpfs()
      ? { tmpBytes: input.limits.memoryMb * 1024 * 1024 }
      : {}),
    ...(input.cacheDir === undefined ? {} : {
      underlay: {
        source: input.cacheDir,
        target: input.denoDir,
        seed: input.seed,
        emitReadOnly: reachesFiles(grants),
      },
    }),
  });
  const filling = input.cacheDir !== undefined && input.seed?.fill === true;
  return run("bwrap", [...args, ...(filling ? fillingCommand(deno) : deno)]);
}

/**
 * Whether grants let a plugin reach files beyond its graph: read them (`read`), or create
 * them (`write`, a program it runs, a library it loads). Deno keeps the emit of every
 * TypeScript file it imports in its cache folder, on the host's disk and there for every later
 * load of the plugin, whatever it is granted then.
 *
 * @param grants The plugin's grants.
 * @returns `true` unless `read`, `write`, `run` and `ffi` are all denied.
 *
 * @example
 * ```ts
 * import { reachesFiles } from "./sandbox_command.ts";
 * import { resolveGrants } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(reachesFiles(resolveGrants({ net: ["api.example.com"] }, "/")), false);
 * equal(reachesFiles(resolveGrants({ read: ["/data"] }, "/")), true);
 * ```
 */
export function reachesFiles(grants: Required<PluginPermissions>): boolean {
  const granted = (grant: boolean | readonly string[]) =>
    grant === true || (Array.isArray(grant) && grant.length > 0);
  return [grants.read, grants.write, grants.run, grants.ffi].some(granted);
}

/**
 * The module files to mount: Tack's own source folders whole (Tack's public code and
 * nothing else lives there; one mount instead of one per module, ~0.4 ms each), every
 * other file (the plugin's) one by one.
 */
function mountedModules(files: readonly string[]): string[] {
  const inTack = (file: string) => TACK_SOURCE_DIRS.some((dir) => file.startsWith(dir + "/"));
  const folders = TACK_SOURCE_DIRS.filter((dir) =>
    files.some((file) => file.startsWith(dir + "/"))
  );
  return [...folders, ...files.filter((file) => !inTack(file))];
}

/**
 * The folder a plugin's own module files must stay in: its entry module's folder.
 *
 * @param url The plugin's module URL.
 * @returns The folder's path, or `undefined` for a remote module.
 *
 * @example A plugin folder
 * ```ts
 * import { pluginFolder } from "./sandbox_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(pluginFolder("file:///home/me/weather/mod.ts"), "/home/me/weather");
 * ```
 */
export function pluginFolder(url: string): string | undefined {
  return url.startsWith("file:") ? dirname(fromFileUrl(url)) : undefined;
}
