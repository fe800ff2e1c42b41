/**
 * Everything a sandbox needs before its first process starts: the module URL, the
 * cached graph (checked to stay inside the plugin's folder), the import map on disk,
 * and the OS layer. Shared by `loadPlugin` and `inspectPlugin`.
 *
 * @module
 */

import { childCacheDir } from "./child_cache.ts";
import { readySeed, seedFiles } from "./code_cache_seed.ts";
import { NO_GRANTS } from "./permission_flags.ts";
import { bwrapCapsTmpfs, CHILD_CACHE_BYTES } from "./bwrap.ts";
import { hostMay, hostRealPath } from "./host_may.ts";
import { loadFailureHint, moduleForCommand } from "./load_failure_hint.ts";
import { dirname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_LIMITS, type PluginLimits } from "../plugin_limits.ts";
import type { PluginPermissions } from "../permissions.ts";
import { pruneLock } from "./prune_lock.ts";
import { npmBundleFor, withNpmBundle } from "./npm_bundle.ts";
import { bundleIntact, keepChildCache } from "./restart_stores.ts";
import { denoCacheDir } from "./deno_dir.ts";
import { graphFingerprint, type ModuleGraph, prepareModuleGraph } from "./module_graph.ts";
import { knownManifest, manifestKey, rememberManifest } from "./known_manifests.ts";
import type { PluginManifest } from "./protocol.ts";
import {
  chooseOsLayer,
  entrySource,
  type OsLayer,
  pluginFolder,
  RUNNER_URL,
  sandboxCommand,
  TACK_ROOT_MODULE,
  TACK_SOURCE_DIRS,
} from "./sandbox_command.ts";
import type { SpawnChild } from "./sandbox_connection.ts";
import { spawnProcess } from "./sandbox_process.ts";
import { hostTempFolder, makeSandboxTempDir } from "./sandbox_temp_dir.ts";
import { spawnWorker } from "./worker_isolation.ts";
import { pathWithin } from "./path_within.ts";

/** How a sandbox is isolated: a `deno run` process (default) or a Worker (faster, weaker). */
export type Isolation = "process" | "worker";

/** The options `loadPlugin` and `inspectPlugin` share. */
export interface SandboxOptions {
  /** Default `"process"`. */
  isolation?: Isolation;
  /** The workspace root relative grant paths resolve against (default the cwd); relative specifiers resolve against the cwd. */
  root?: string;
  /** Passed to the module's default export when it is a factory. */
  options?: unknown;
  /** `false` turns the OS layer (bubblewrap, `unshare -n`) off: Deno flags only. Default `true`. */
  confine?: boolean;
  /** How long the module may take to load and report its manifest (default 30 000 ms), and each `deno info` or `deno cache` preparing it; loaded in process, to load and return its plugin (its top-level await and factory). */
  startTimeoutMs?: number;
  /** `"forward"` (default) prints the child's stderr prefixed with the plugin; `"capture"` keeps it for error texts only. */
  stderr?: "forward" | "capture";
}

/** A prepared sandbox: spawn children with any grants. */
export interface PreparedSandbox {
  /** The module's URL. */
  url: string;
  layer: OsLayer;
  /** Whether module loading is confined (an OS layer hides files outside the grants). */
  confined: boolean;
  /** The local data files (JSON, text, bytes) its graph imports statically: read at load, mounted for it, no read grant needed. */
  dataFiles: string[];
  /** Starts children that run with exactly `grants` and `limits` (default ones when left out; a process sandbox only). */
  spawnFor(grants: Required<PluginPermissions>, limits?: Required<PluginLimits>): SpawnChild;
  /**
   * The manifest this version of the plugin (its graph, Tack's runner, its options)
   * reported before, in this process or an earlier one, if it is known.
   */
  knownManifest?: PluginManifest;
  /** Remembers the manifest this version reported, for the next load. */
  rememberManifest(manifest: PluginManifest): Promise<void>;
  /** Removes the import map's temp folder. */
  cleanup(): Promise<void>;
}

/** The warning printed wherever no OS layer confines module loading. */
export const NOT_CONFINED_WARNING =
  'module loading is not confined: no OS sandbox layer (bubblewrap) is in use, so the plugin can import (so read) any local module, and any local file as JSON or text (import("/home/me/.env", { with: { type: "text" } })), by a literal specifier, whatever its read grant, and follow symlinks out of its read grant; Deno\'s flags still gate its file, network, env and run access';

/**
 * The warning printed where the host may not signal a sandbox's process group (Deno asks for
 * an unrestricted `--allow-run` to): only the sandbox's first process is killed then.
 */
export const NO_GROUP_KILL_WARNING =
  "the host may not signal process groups (Deno needs an unrestricted --allow-run for that), so a stop kills only the sandbox's first process: what the plugin starts outlives it, and a sandbox stopped while bubblewrap still sets it up may keep running";

/**
 * Turns a specifier into a module URL: paths resolve against `root`; `jsr:`, `npm:`,
 * `https:` and `file:` pass through.
 *
 * @param specifier A path or URL.
 * @param root The workspace root.
 * @returns The URL.
 *
 * @example Paths and URLs
 * ```ts
 * import { moduleUrl } from "./prepare_sandbox.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(moduleUrl("./weather.ts", "/home/me"), "file:///home/me/weather.ts");
 * equal(moduleUrl("jsr:@x/weather", "/home/me"), "jsr:@x/weather");
 * ```
 */
export function moduleUrl(specifier: string, root: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(specifier)) return specifier;
  return pathToFileURL(isAbsolute(specifier) ? specifier : resolve(root, specifier)).href;
}

/**
 * The host's lockfile as the child needs it: its resolutions, without the `workspace`
 * section that records the host config's own dependencies and links (the child runs with
 * `--no-config`, so a frozen check would find them "out of date").
 */
function childLock(text: string): string {
  const lock = JSON.parse(text);
  delete lock.workspace;
  return JSON.stringify(lock, null, 2);
}

function within(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => pathWithin(path, root));
}

/** Whether `file` is one of Tack's own modules (its source folders, its root `mod.ts`). */
function tackOwn(file: string): boolean {
  return within(file, TACK_SOURCE_DIRS) || file === TACK_ROOT_MODULE;
}

/** The path with its symlinks resolved; the path itself when the host may not read it (no prompt). */
function realPath(path: string): string {
  return hostRealPath(path) ?? path;
}

let runnerGraph: Promise<ModuleGraph> | undefined;

/**
 * The runner's own module graph (Tack's files the child loads before the plugin), asked once.
 * Tack's code is the host's own: a host that may not read Tack's config runs it without
 * Tack's lockfile rather than fail.
 */
function runnerModules(): Promise<ModuleGraph> {
  runnerGraph ??= prepareModuleGraph(
    RUNNER_URL.href,
    TACK_ROOT_MODULE === undefined ? Deno.cwd() : dirname(TACK_ROOT_MODULE),
    false,
  );
  runnerGraph.catch(() => (runnerGraph = undefined));
  return runnerGraph;
}

/**
 * The files a child may load: each module of the graph, checked by its real path (a
 * symlink is resolved before it is mounted, and one that leads outside the allowed
 * folders is refused, naming it), plus the real path itself where it differs. A module
 * the host may not read is refused too: the host cannot tell where it leads, and
 * bubblewrap, which follows it, would mount what it points at. Tack's own modules are
 * the host's code (its source folders are mounted whole, not file by file).
 */
function confinedFiles(
  files: readonly string[],
  allowed: readonly string[],
  label: string,
  folder: string,
): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (!tackOwn(file) && !hostMay({ name: "read", path: file })) {
      throw new Error(
        `${label}: the host may not read its module ${
          JSON.stringify(file)
        }, so it cannot tell whether it is a symlink out of its folder ${
          JSON.stringify(folder)
        }: add --allow-read=${folder} to the host's flags`,
      );
    }
    const real = realPath(file);
    if (real !== file && !within(real, allowed)) {
      throw new Error(
        `${label}: its module ${JSON.stringify(file)} is a symlink to ${
          JSON.stringify(real)
        }, outside its folder ${JSON.stringify(folder)}`,
      );
    }
    out.push(file);
    if (real !== file) out.push(real);
  }
  return out;
}

/**
 * Prepares a sandbox: caches the module graph with the host's permissions, refuses local
 * modules outside the plugin's folder (and its read grant), writes the child's import map.
 *
 * @param specifier The plugin module (as given, for messages).
 * @param options Isolation, root and OS layer.
 * @param readGrant Absolute paths the plugin may read, if known (they may hold modules).
 * @returns The prepared sandbox.
 * @throws {Error} `Cannot load plugin "<specifier>": …` when the graph cannot be cached,
 * reaches outside the plugin's folder, or the host may not do what preparing it takes
 * (run `deno`, write to its temp folder, read the plugin's modules), naming the flag that
 * grants it.
 *
 * @example A worker sandbox needs no preparation on disk
 * ```ts
 * import { prepareSandbox } from "./prepare_sandbox.ts";
 * import { equal } from "node:assert/strict";
 *
 * const prepared = await prepareSandbox("./x.ts", { isolation: "worker", root: "/p" });
 * equal(prepared.confined, false);
 * await prepared.cleanup();
 * ```
 */
export async function prepareSandbox(
  specifier: string,
  options: SandboxOptions,
  readGrant: readonly string[] = [],
): Promise<PreparedSandbox> {
  const url = moduleUrl(specifier, Deno.cwd());
  const label = `Cannot load plugin ${JSON.stringify(specifier)}`;
  const base = (grants: Required<PluginPermissions>) => ({
    specifier: url,
    options: options.options,
    read: grants.read === true ? true : Array.isArray(grants.read) ? [...grants.read] : [],
  });
  if (options.isolation === "worker") {
    const dir = await makeSandboxTempDir("tack-worker-", label);
    if (!hostMay({ name: "read", path: dir })) {
      // A worker's modules load with the host's read permission: its entry too.
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      const folder = hostTempFolder() ?? "/tmp";
      throw new Error(
        `${label}: isolation "worker" loads the sandbox's entry module from the host's temp folder ${
          JSON.stringify(folder)
        }, which the host may not read: add --allow-read=${folder} to the host's flags`,
      );
    }
    const entry = `${dir}/entry.js`;
    await Deno.writeTextFile(entry, entrySource(url, true));
    return {
      url,
      layer: "none",
      confined: false,
      dataFiles: [],
      spawnFor: (grants) =>
        spawnWorker(pathToFileURL(entry), { ...base(grants), confined: false }, grants),
      rememberManifest: () => Promise.resolve(),
      cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
    };
  }
  // Probing for bubblewrap spawns a process (once per host process): it runs while the
  // graphs are read.
  const layerChosen = chooseOsLayer(options.confine !== false, false);
  let graph: ModuleGraph;
  let runner: ModuleGraph;
  try {
    [graph, runner] = await Promise.all([
      prepareModuleGraph(url, undefined, undefined, options.startTimeoutMs),
      runnerModules(),
    ]);
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(`${label}: ${message}${loadFailureHint(message, moduleForCommand(url))}`);
  }
  // This version of the plugin, as far as its manifest goes (before its graph grows the runner's files).
  const fingerprints = [graphFingerprint(graph), graphFingerprint(runner)];
  const version = manifestKey(url, options.options, fingerprints);
  const folder = pluginFolder(url);
  const allowed = [
    ...(folder === undefined ? [] : [folder, realPath(folder)]),
    ...TACK_SOURCE_DIRS.flatMap((dir) => [dir, realPath(dir)]),
    ...(TACK_ROOT_MODULE === undefined ? [] : [TACK_ROOT_MODULE]),
    ...readGrant.flatMap((path) => [path, realPath(path)]),
  ];
  const outside = graph.localFiles.find((file) => !within(file, allowed));
  if (outside !== undefined) {
    throw new Error(
      `${label}: it imports ${JSON.stringify(outside)}, which is outside its folder ${
        JSON.stringify(folder ?? url)
      } and its read grant`,
    );
  }
  const where = folder ?? url;
  // Modules only imported dynamically are mounted when they are the plugin's own code (the
  // graph lists no data file among them: JSON, text, bytes; and not through a symlink out);
  // others stay hidden, and importing them is a denial at call time, not a load error.
  const dynamic = graph.dynamicFiles.filter((file) =>
    within(file, allowed) && within(realPath(file), allowed)
  );
  graph = {
    ...graph,
    localFiles: [
      ...confinedFiles(graph.localFiles, allowed, label, where),
      ...confinedFiles(dynamic, allowed, label, where),
      ...runner.localFiles.flatMap((file) => [file, realPath(file)]),
    ],
    cacheFiles: [...new Set([...graph.cacheFiles, ...runner.cacheFiles])],
    npmPackages: [...new Set([...graph.npmPackages, ...runner.npmPackages])],
    remoteHosts: [...new Set([...graph.remoteHosts, ...runner.remoteHosts])],
    directNpmImports: [
      ...new Set([...graph.directNpmImports ?? [], ...runner.directNpmImports ?? []]),
    ],
    npmDependedOn: [...new Set([...graph.npmDependedOn ?? [], ...runner.npmDependedOn ?? []])],
    importMap: {
      imports: {},
      scopes: { ...runner.importMap.scopes, ...graph.importMap.scopes },
    },
  };
  const [denoDir, dir] = await Promise.all([
    denoCacheDir(),
    makeSandboxTempDir("tack-sandbox-", label),
  ]);
  // TypeBox's ~370 modules load from one prebuilt bundle when nothing else could hold a
  // second copy (~40 ms of each start).
  const plain = graph; // without the bundle: TypeBox from npm
  const bundle = await npmBundleFor(graph, denoDir);
  if (bundle !== undefined) graph = withNpmBundle(graph, bundle);
  const importMapPath = `${dir}/import_map.json`;
  let plainImportMapPath: string | undefined;
  // A restart checks the bundle is still there (another host's housekeeping may have
  // removed it) and runs without it, from npm, when it is not.
  const current = (): { graph: ModuleGraph; importMapPath: string } => {
    if (bundle === undefined || bundleIntact(bundle.files)) return { graph, importMapPath };
    if (plainImportMapPath === undefined) {
      plainImportMapPath = `${dir}/import_map_npm.json`;
      Deno.writeTextFileSync(plainImportMapPath, JSON.stringify(plain.importMap));
    }
    return { graph: plain, importMapPath: plainImportMapPath };
  };
  // JavaScript, not TypeScript: a .ts entry is new to the cache every time, and Deno, failing
  // to write its transpiled copy into the read-only cache, retries for ~150 ms on each start.
  const entryPath = `${dir}/entry.js`;
  await Deno.writeTextFile(importMapPath, JSON.stringify(graph.importMap));
  await Deno.writeTextFile(entryPath, entrySource(url, false));
  const lockPath = graph.lockFile === undefined ? undefined : `${dir}/deno.lock`;
  if (lockPath !== undefined) {
    // Only the graph's npm packages (Deno sets up every package a lock names), and no
    // workspace section (the child's import map is not the project's config).
    const text = await Deno.readTextFile(graph.lockFile!);
    await Deno.writeTextFile(lockPath, childLock(pruneLock(text, new Set(graph.npmPackages))));
  }
  const layer = await layerChosen;
  // Under bubblewrap the child gets its own Deno cache (the host's is not mounted), so it
  // does not transpile its graph again on every start.
  const cacheDir = layer === "bwrap" ? await childCacheDir(url, denoDir, dir) : undefined;
  // Its code caches are a tmpfs: a seed of them is mounted in at each start.
  const fill = (out: string) =>
    sandboxCommand({
      ...{ label: specifier, graph, importMapPath, lockPath, entryPath, layer, denoDir, cacheDir },
      grants: NO_GRANTS,
      seed: { dir: out, fill: true },
      limits: { ...DEFAULT_LIMITS },
      config: { ...base(NO_GRANTS), confined: true },
    });
  // Its seed holds its code whatever its options (Deno caches code by its source; options must
  // not empty each other's seed), and TypeBox from its bundle or from npm, as the starts load it.
  const code = manifestKey(url, undefined, [...fingerprints, ...bundle?.files ?? []]);
  const seedDir = cacheDir && code !== undefined &&
    await readySeed(cacheDir, code, fill, bwrapCapsTmpfs(), CHILD_CACHE_BYTES);
  return {
    url,
    layer,
    confined: layer === "bwrap",
    dataFiles: graph.dataFiles,
    knownManifest: version === undefined ? undefined : await knownManifest(denoDir, version),
    rememberManifest: (manifest) =>
      version === undefined ? Promise.resolve() : rememberManifest(denoDir, version, manifest),
    spawnFor(grants, limits = { ...DEFAULT_LIMITS }) {
      const netLayer = layer === "unshare" && grants.net !== false ? "none" : layer;
      // Each start (the first and every restart) looks at the stores as they are now.
      return (handlers) => {
        if (cacheDir !== undefined) keepChildCache(cacheDir);
        const now = current();
        const files = seedDir ? seedFiles(seedDir) : undefined;
        return spawnProcess(sandboxCommand({
          label: specifier,
          grants,
          graph: now.graph,
          importMapPath: now.importMapPath,
          lockPath,
          entryPath,
          layer: netLayer,
          denoDir,
          cacheDir,
          seed: seedDir && files ? { dir: seedDir, fill: false, files } : undefined,
          stderr: options.stderr,
          limits,
          config: { ...base(grants), confined: layer === "bwrap" },
        }))(handlers);
      };
    },
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}
