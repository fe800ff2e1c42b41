/**
 * Where in Deno's cache a module graph's remote and npm code lives: the entries a sandbox
 * must see to load it.
 *
 * @module
 */

import { sha256Hex } from "./sha256_hex.ts";
import type { InfoModule, InfoNpmPackage } from "./deno_info.ts";

/**
 * Where Deno's HTTP cache keeps a remote URL: `remote/<scheme>/<host[_PORT]>/<sha256 of
 * path and query>` (deno_cache_dir's layout).
 */
async function remoteCachePath(denoDir: string, url: URL): Promise<string> {
  const host = url.port === "" ? url.hostname : `${url.hostname}_PORT${url.port}`;
  const rest = url.pathname + (url.search === "" ? "" : url.search);
  return `${denoDir}/remote/${url.protocol.replace(/:$/, "")}/${host}/${await sha256Hex(rest)}`;
}

/**
 * Where a package is in Deno's global npm cache, which the child (run without a config)
 * loads from: its `localPath`, unless the project has a `node_modules` folder
 * (`"nodeModulesDir": "auto"`), where Deno describes its copy there; then
 * `npm/<registry host>/<name>/<version>`, where Deno put it first.
 */
function globalNpmPath(found: InfoNpmPackage, denoDir: string): string | undefined {
  if (found.localPath?.startsWith(`${denoDir}/npm/`)) return found.localPath;
  if (found.name === undefined || found.version === undefined) return found.localPath;
  const host = new URL(found.registryUrl ?? "https://registry.npmjs.org/").host;
  return `${denoDir}/npm/${host}/${found.name}/${found.version}`;
}

/**
 * The cache entries a graph needs: npm package folders (transitively), remote module
 * files, and for jsr packages their `meta.json` and `<version>_meta.json`.
 *
 * @param modules The graph's modules, as `deno info` describes them.
 * @param npmPackages `deno info`'s npm packages, by id.
 * @param denoDir The Deno cache folder.
 * @param withRegistryJson Also each package's cached `registry.json` (no lockfile).
 * @returns The files and folders to mount, and the npm package ids reached.
 *
 * @example A graph with no remote or npm module needs nothing from the cache
 * ```ts
 * import { cacheFilesOf } from "./cache_files.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await cacheFilesOf([], {}, "/deno", false), { files: [], npm: [] });
 * ```
 */
export async function cacheFilesOf(
  modules: InfoModule[],
  npmPackages: Record<string, InfoNpmPackage>,
  denoDir: string,
  withRegistryJson: boolean,
): Promise<{ files: string[]; npm: string[] }> {
  const files = new Set<string>();
  const pending = modules.flatMap((module) => module.npmPackage ? [module.npmPackage] : []);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const found = npmPackages[id];
    const path = found === undefined ? undefined : globalNpmPath(found, denoDir);
    if (path !== undefined) {
      files.add(path);
      // Without a lockfile Deno resolves versions from the package's cached registry data.
      if (withRegistryJson) files.add(`${path.replace(/\/[^/]+$/, "")}/registry.json`);
    }
    pending.push(...(found?.dependencies ?? []));
  }
  for (const module of modules) {
    if (!/^https?:/.test(module.specifier)) continue;
    if (module.local !== undefined) files.add(module.local);
    const jsr = /^(https:\/\/jsr\.io\/@[^/]+\/[^/]+)\/([^/]+)\//.exec(module.specifier);
    if (jsr !== null) {
      files.add(await remoteCachePath(denoDir, new URL(`${jsr[1]}/meta.json`)));
      files.add(await remoteCachePath(denoDir, new URL(`${jsr[1]}/${jsr[2]}_meta.json`)));
    }
  }
  return { files: [...files], npm: [...seen] };
}
