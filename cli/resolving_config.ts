/**
 * The Deno config a plugin the CLI imports in its own process resolves its bare specifiers
 * with: the CLI's own, not the plugin's folder's. Deno finds it from the main module's folder
 * (`deno task agent`, the installed `tack` and the tests name that same `deno.json` with
 * `--config`), or from the working folder when the main module is remote.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { configPathsIn, isFile, parseDenoConfig } from "../sdk/sandbox/deno_config.ts";

/**
 * The config the CLI's imports resolve with, and the import map file it names, if any: the
 * files whose edit can change what a plugin's import resolves to.
 *
 * @param mainModule The main module's URL (default `Deno.mainModule`).
 * @param cwd The working folder (default `Deno.cwd()`).
 * @returns `[]` without a config, `[config]` or `[config, importMap]`.
 *
 * @example The repository's own config
 * ```ts
 * import { resolvingConfigFiles } from "./resolving_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const [config] = await resolvingConfigFiles(import.meta.resolve("./main.ts"));
 * equal(config.endsWith("/deno.json"), true);
 * ```
 */
export async function resolvingConfigFiles(
  mainModule: string = Deno.mainModule,
  cwd: string = Deno.cwd(),
): Promise<string[]> {
  let dir = mainModule.startsWith("file:") ? dirname(fileURLToPath(mainModule)) : cwd;
  while (true) {
    const config = configPathsIn(dir).find(isFile);
    if (config !== undefined) return [config, ...await importMapOf(config)];
    if (dir === "/") return [];
    dir = dirname(dir);
  }
}

/** The import map file a config names (`"importMap": "./map.json"`), if it names a local one. */
async function importMapOf(config: string): Promise<string[]> {
  try {
    const parsed = await parseDenoConfig(await Deno.readTextFile(config));
    const importMap = (parsed as { importMap?: unknown } | null)?.importMap;
    if (typeof importMap !== "string") return [];
    if (importMap.startsWith("file:")) return [fileURLToPath(importMap)];
    if (/^[a-z][a-z0-9+.-]*:/i.test(importMap)) return [];
    return [resolve(dirname(config), importMap)];
  } catch {
    // Unreadable or not JSON: Deno fails to start with it; its hash still covers it.
    return [];
  }
}
