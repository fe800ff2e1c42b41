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
  /** Absolute paths of local modules reached only through dynamic imports. */
  dynamicFiles: string[];
  /** `host[:port]` of every remote module (e.g. `jsr.io`). */
  remoteHosts: string[];
  /** Scoped mappings of every bare specifier in the graph, as the host resolved them. */
  importMap: { imports: Record<string, string>; scopes: Record<string, Record<string, string>> };
}

interface InfoModule {
  specifier: string;
  dependencies?: { specifier: string; code?: { specifier?: string }; isDynamic?: boolean }[];
}

async function deno(args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(
      `Cannot prepare plugin: deno ${args[0]} failed: ${decoder.decode(output.stderr).trim()}`,
    );
  }
  return decoder.decode(output.stdout);
}

function isBare(specifier: string): boolean {
  return !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(specifier) && !/^\.{0,2}\//.test(specifier);
}

let denoDir: Promise<string> | undefined;

/**
 * The Deno cache directory of this host (`deno info --json`), asked once.
 *
 * @returns Its absolute path.
 * @throws {Error} When `deno info` fails.
 *
 * @example The cache directory
 * ```ts
 * import { denoCacheDir } from "./module_graph.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal((await denoCacheDir()).startsWith("/"), true);
 * ```
 */
export function denoCacheDir(): Promise<string> {
  denoDir ??= deno(["info", "--json"], Deno.cwd()).then((out) => JSON.parse(out).denoDir);
  return denoDir;
}

/**
 * Caches a module's graph (with the host's own permissions and config) and describes it.
 *
 * @param specifier A `file:`, `https:`, `jsr:` or `npm:` specifier.
 * @param cwd Where the host's `deno.json` is found (default `Deno.cwd()`).
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
 * ```
 */
export async function prepareModuleGraph(
  specifier: string,
  cwd: string = Deno.cwd(),
): Promise<ModuleGraph> {
  await deno(["cache", "--quiet", specifier], cwd);
  const info = JSON.parse(await deno(["info", "--json", specifier], cwd)) as {
    roots: string[];
    modules: InfoModule[];
    redirects?: Record<string, string>;
  };
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
  for (const module of info.modules) {
    if (/^https?:/.test(module.specifier)) remoteHosts.add(new URL(module.specifier).host);
    for (const dependency of module.dependencies ?? []) {
      const resolved = dependency.code?.specifier;
      if (resolved === undefined || !isBare(dependency.specifier)) continue;
      (scopes[module.specifier] ??= {})[dependency.specifier] = resolved;
    }
  }
  const local = (urls: Set<string>) =>
    [...urls].filter((url) => url.startsWith("file:")).map((url) =>
      decodeURIComponent(new URL(url).pathname)
    );
  return {
    root: follow(info.roots[0]),
    localFiles: local(staticUrls),
    dynamicFiles: local(dynamicUrls),
    remoteHosts: [...remoteHosts],
    importMap: { imports: {}, scopes },
  };
}
