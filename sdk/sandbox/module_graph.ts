/**
 * A plugin's module graph, cached by the host before its sandbox starts: the local files
 * to mount, the remote hosts it loads from, and an import map that resolves its bare
 * specifiers the way the host's config does (the child runs with `--no-config`).
 *
 * @module
 */

/** What the host learned about a plugin's module graph. */
export interface ModuleGraph {
  /** The root module's URL. */
  root: string;
  /** Absolute paths of the local modules the root imports statically (transitively). */
  localFiles: string[];
  /** Absolute paths of local code modules reached only through dynamic imports (never data files). */
  dynamicFiles: string[];
  /**
   * The local data modules among `localFiles`: every module that is not JavaScript,
   * TypeScript or Wasm (JSON, text, bytes, any import attribute), which the plugin reads at
   * load without a read grant; `inspect` lists them.
   */
  dataFiles: string[];
  /**
   * What the child needs from the Deno cache, and nothing more: the folders of the npm
   * packages the graph uses (with their dependencies), and the cache files of its remote
   * modules. The rest of the cache (the `gen/` emit cache holds transpiled copies of
   * every TypeScript file the user ran) is never mounted.
   */
  cacheFiles: string[];
  /** The npm package ids the graph uses, with their dependencies (`openai@7.59.0_zod@4.6.7`). */
  npmPackages: string[];
  /** `host[:port]` of every remote module (e.g. `jsr.io`). */
  remoteHosts: string[];
  /** Scoped mappings of every bare specifier in the graph, as the host resolved them. */
  importMap: { imports: Record<string, string>; scopes: Record<string, Record<string, string>> };
  /**
   * The lockfile the graph was cached with (the plugin's project's, else the host's), if
   * any: the child runs with it frozen, so it never re-resolves a package the host did not
   * fetch.
   */
  lockFile?: string;
  /**
   * npm modules a module of the graph imports by their `npm:` specifier rather than a bare
   * one (which no import map entry covers).
   */
  directNpmImports?: string[];
  /** The npm packages among `npmPackages` that other npm packages of the graph depend on. */
  npmDependedOn?: string[];
}

import { hostMay } from "./host_may.ts";
import { sha256Hex } from "./sha256_hex.ts";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { denoCacheDir } from "./deno_dir.ts";
import { configPathsIn, findConfig, isFile, lockFileOf, parseDenoConfig } from "./deno_config.ts";
import { refuseUnsafeProject } from "./foreign_project.ts";
import { denoInfo } from "./deno_info.ts";
import { readStoredGraph, type StoredGraph, writeStoredGraph } from "./graph_store.ts";
import { cacheFilesOf } from "./cache_files.ts";

function isBare(specifier: string): boolean {
  return !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(specifier) && !/^\.{0,2}\//.test(specifier);
}

/**
 * Caches a module's graph (with the host's own permissions and config) and describes it.
 * The description is kept for the process and reused while the graph's local files (size
 * and mtime), its config and its lockfile are unchanged: no `deno info`
 * runs then.
 *
 * @param specifier A `file:`, `https:`, `jsr:` or `npm:` specifier.
 * @param cwd Where the host's `deno.json` is found (default `Deno.cwd()`).
 * @param project `false` passes over a config in the project the host may not read, as one
 * above it is ({@linkcode findConfig}); for the host's own code, whose lockfile it may skip.
 * @param timeoutMs How long each `deno` run describing it may take (see `runDeno`).
 * @returns The graph's local files, remote hosts and import map.
 * @throws {Error} `Cannot prepare plugin: …` when the graph cannot be resolved or fetched.
 *
 * @example The graph of the protocol module
 * ```ts
 * import { prepareModuleGraph } from "./module_graph.ts";
 * import { equal } from "node:assert/strict";
 *
 * const graph = await prepareModuleGraph(import.meta.resolve("./protocol.ts"));
 * equal(graph.localFiles.some((file) => file.endsWith("/protocol.ts")), true);
 * equal(await prepareModuleGraph(import.meta.resolve("./protocol.ts")), graph); // reused
 * ```
 */
export async function prepareModuleGraph(
  specifier: string,
  cwd: string = Deno.cwd(),
  project = true,
  timeoutMs?: number,
): Promise<ModuleGraph> {
  const key = `${specifier}\0${cwd}`;
  const denoDir = await denoCacheDir();
  const cached = graphs.get(key) ?? await readStoredGraph(denoDir, key);
  const own = project ? cwd : undefined;
  if (
    cached !== undefined && cached.fingerprint === await fingerprintOf(cached.graph, cwd, own)
  ) {
    graphs.set(key, cached);
    fingerprints.set(cached.graph, cached.fingerprint);
    return cached.graph;
  }
  const since = Date.now();
  const graph = await describeModuleGraph(specifier, cwd, denoDir, own, timeoutMs);
  const described = { graph, fingerprint: await fingerprintOf(graph, cwd, own) };
  // A file changed while it was described: the next load describes it again.
  if (await changedSince(graph, cwd, since)) return graph;
  graphs.set(key, described);
  fingerprints.set(graph, described.fingerprint);
  await writeStoredGraph(denoDir, key, described);
  return graph;
}

/** Graphs already described in this process, with the fingerprint of what they came from. */
const graphs = new Map<string, StoredGraph>();

/** The fingerprint of each graph {@linkcode prepareModuleGraph} returned and kept. */
const fingerprints = new WeakMap<ModuleGraph, string>();

/**
 * The fingerprint of what a graph {@linkcode prepareModuleGraph} returned was described
 * from (its files' sizes and times, its configs, its lockfile): the same while they do not
 * change. `undefined` for a graph that was not kept (a file changed while it was
 * described).
 *
 * @param graph A graph `prepareModuleGraph` returned.
 * @returns Its fingerprint, or `undefined`.
 *
 * @example
 * ```ts
 * import { graphFingerprint, prepareModuleGraph } from "./module_graph.ts";
 * import { equal } from "node:assert/strict";
 *
 * const graph = await prepareModuleGraph(import.meta.resolve("./protocol.ts"));
 * equal(typeof graphFingerprint(graph), "string");
 * ```
 */
export function graphFingerprint(graph: ModuleGraph): string | undefined {
  return fingerprints.get(graph);
}

/** Whether the host may read `path` (asked, so that a host without the grant gets no prompt). */
const readable = (path: string): boolean => hostMay({ name: "read", path });

/**
 * A file's size and mtime; `unreadable` when the host may not read it (a host without read
 * access to `DENO_DIR`, as the CLI's permission set, notices no change in the cache entries).
 */
function stamp(path: string): string {
  if (!readable(path)) return `${path}:unreadable`;
  try {
    const info = Deno.statSync(path);
    return `${path}:${info.size}:${info.mtime?.getTime() ?? 0}`;
  } catch {
    return `${path}:missing`;
  }
}

/**
 * Every config that can change how the graph resolves: each `deno.json(c)` from the
 * resolving config's folder up to `/` (a workspace root above a member adds its `imports`),
 * and the import map file each names in `importMap`. One that appears later changes the
 * list. Those the host may not read are left out (no permission prompt).
 */
async function configFiles(
  graph: ModuleGraph,
  cwd: string,
  project: string | undefined,
): Promise<string[]> {
  const config = graph.root.startsWith("file:")
    ? findConfig(dirname(fileURLToPath(graph.root)), project) ?? findConfig(cwd, project)
    : findConfig(cwd, project);
  const files: string[] = [];
  let dir = config?.dir;
  while (dir !== undefined) {
    for (const file of configPathsIn(dir)) {
      if (!isFile(file)) continue; // asks first: one the host may not read is not a file here
      files.push(file);
      let importMap: unknown;
      try {
        importMap = ((await parseDenoConfig(await Deno.readTextFile(file))) as {
          importMap?: unknown;
        })?.importMap;
      } catch {
        importMap = undefined;
      }
      if (typeof importMap === "string") files.push(resolve(dir, importMap));
    }
    dir = dir === "/" ? undefined : dirname(dir);
  }
  return files;
}

/**
 * What a described graph depends on: the size and mtime of each of its local files (an
 * edit that adds an import changes the importing file), of its configs
 * ({@linkcode configFiles}) and of the cache entries it mounts, and the lockfile's content.
 */
async function fingerprintOf(
  graph: ModuleGraph,
  cwd: string,
  project: string | undefined,
): Promise<string> {
  let lock = "";
  if (graph.lockFile !== undefined && !readable(graph.lockFile)) lock = "unreadable";
  else if (graph.lockFile !== undefined) {
    try {
      lock = await sha256Hex(await Deno.readTextFile(graph.lockFile));
    } catch {
      lock = "missing";
    }
  }
  return [
    ...graph.localFiles.map(stamp),
    ...graph.dynamicFiles.map(stamp),
    // The cache entries it mounts: a cleared or re-extracted cache is described again.
    ...graph.cacheFiles.map(stamp),
    ...(await configFiles(graph, cwd, project)).map(stamp),
    lock,
  ].join("\n");
}

/**
 * How long before a description began a file's last change must lie for the description
 * to be kept: file times can trail the clock by a timer tick.
 */
const SETTLED_MS = 1000;

/**
 * Whether one of the graph's own files (modules, configs, lockfile) changed after
 * `since`, when its description began: `deno info` may have read it before the change and
 * the fingerprint after, so the description must not be kept.
 */
async function changedSince(graph: ModuleGraph, cwd: string, since: number): Promise<boolean> {
  const files = [
    ...graph.localFiles,
    ...graph.dynamicFiles,
    ...(graph.lockFile === undefined ? [] : [graph.lockFile]),
    ...await configFiles(graph, cwd, undefined),
  ];
  return files.some((file) => {
    if (!readable(file)) return false;
    try {
      return (Deno.statSync(file).mtime?.getTime() ?? 0) > since - SETTLED_MS;
    } catch {
      return false;
    }
  });
}

// The media types of code: any other module (JSON, an `external` text import, a bytes
// import deno info cannot describe) is a file's contents handed to the plugin.
const CODE = new Set([
  "JavaScript",
  "Mjs",
  "Cjs",
  "JSX",
  "TypeScript",
  "Mts",
  "Cts",
  "Dts",
  "Dmts",
  "Dcts",
  "TSX",
  "Wasm",
]);

async function describeModuleGraph(
  specifier: string,
  cwd: string,
  denoDir: string,
  project: string | undefined,
  timeoutMs: number | undefined,
): Promise<ModuleGraph> {
  // A local plugin with its own project (a deno.json at or above its folder) is cached
  // and resolved by that project's config and lock; anything else by the host's.
  const own = specifier.startsWith("file:")
    ? findConfig(dirname(fileURLToPath(specifier)), project)
    : undefined;
  const hosts = findConfig(cwd, project);
  const config = own ?? hosts;
  if (own !== undefined) cwd = own.dir;
  // Another project's config (its `.npmrc` too) is the plugin's: Deno runs there with less of
  // the host's environment (PREPARATION_ENV).
  const foreign = own !== undefined && own.dir !== hosts?.dir ? { denoDir } : undefined;
  if (foreign !== undefined) await refuseUnsafeProject(own!, project);
  const info = await denoInfo(specifier, cwd, foreign, timeoutMs);
  const redirects = info.redirects ?? {};
  const follow = (url: string) => redirects[url] ?? url;
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const staticUrls = new Set<string>();
  const dynamicUrls = new Set<string>();
  const walk = (url: string, viaDynamic: boolean) => {
    const target = viaDynamic ? dynamicUrls : staticUrls;
    if (staticUrls.has(url) || target.has(url)) return;
    target.add(url);
    if (!viaDynamic) dynamicUrls.delete(url);
    for (const dependency of modules.get(url)?.dependencies ?? []) {
      const next = dependency.code?.specifier;
      if (next !== undefined) walk(follow(next), viaDynamic || dependency.isDynamic === true);
    }
  };
  for (const root of info.roots) walk(follow(root), false);
  const remoteHosts = new Set<string>();
  const scopes: Record<string, Record<string, string>> = {};
  const directNpmImports = new Set<string>();
  for (const module of info.modules) {
    if (/^https?:/.test(module.specifier)) remoteHosts.add(new URL(module.specifier).host);
    for (const dependency of module.dependencies ?? []) {
      const resolved = dependency.code?.specifier;
      if (resolved === undefined) continue;
      if (isBare(dependency.specifier)) {
        (scopes[module.specifier] ??= {})[dependency.specifier] = resolved;
      } else if (resolved.startsWith("npm:")) directNpmImports.add(resolved);
    }
  }
  const local = (urls: Iterable<string>) =>
    [...urls].filter((url) => url.startsWith("file:")).map((url) =>
      decodeURIComponent(new URL(url).pathname)
    );
  const lockFile = config === undefined ? undefined : await lockFileOf(config, project);
  const reached = info.modules.filter((module) =>
    staticUrls.has(module.specifier) || dynamicUrls.has(module.specifier)
  );
  const data = new Set(
    info.modules.filter((module) => !CODE.has(module.mediaType ?? "")).map((module) =>
      module.specifier
    ),
  );
  const cache = await cacheFilesOf(
    reached,
    info.npmPackages ?? {},
    denoDir,
    lockFile === undefined,
  );
  return {
    root: follow(info.roots[0]),
    localFiles: local(staticUrls),
    // Data imported only dynamically is never mounted: reading it needs a read grant.
    dynamicFiles: local([...dynamicUrls].filter((url) => !data.has(url))),
    dataFiles: local([...staticUrls].filter((url) => data.has(url))),
    cacheFiles: cache.files,
    npmPackages: cache.npm,
    remoteHosts: [...remoteHosts],
    importMap: { imports: {}, scopes },
    lockFile,
    directNpmImports: [...directNpmImports],
    npmDependedOn: [
      ...new Set(cache.npm.flatMap((id) => info.npmPackages?.[id]?.dependencies ?? [])),
    ],
  };
}
