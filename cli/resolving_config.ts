/**
 * The Deno config a plugin the CLI imports in its own process resolves its bare specifiers
 * with: the CLI's own, not the plugin's folder's. Deno finds it from the main module's folder
 * (`deno task agent`, the installed `tack` and the tests name that same `deno.json` with
 * `--config`), or from the working folder when the main module is remote.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { configPathsIn, findConfig, isFile, parseDenoConfig } from "../sdk/sandbox/deno_config.ts";

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

/** What the files a sandboxed plugin's imports resolve with are, and why they cannot be covered. */
export interface SandboxResolving {
  /** The folder `deno info` runs in to resolve as the sandbox does (its config found from there). */
  cwd: string;
  /**
   * Every file whose appearance or edit can change what its imports resolve to: `deno.json`,
   * `deno.jsonc` and `package.json` in each folder from the plugin's up to `/`, and from the
   * workspace folder up (where Deno looks when the plugin's folders have none), present or
   * not, and the import map each config names.
   */
  files: string[];
  /** Set when a config there links or groups other folders (`workspace`, `links`, `patch`). */
  problem?: string;
}

/**
 * The Deno config a plugin loaded with `"sandbox": true` resolves its imports with: the one at
 * or above its own folder (the repository's, not the CLI's), else the one at or above the
 * folder `tack` runs in, as `sdk/sandbox` prepares it; and the files trust hashes for it.
 *
 * @param root The plugin file.
 * @param workspace The folder `tack` runs in.
 * @returns Where to resolve it, and what to hash.
 *
 * @example A plugin folder with a config of its own
 * ```ts
 * import { sandboxResolvingFiles } from "./resolving_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/deno.json`, "{}");
 * const resolving = await sandboxResolvingFiles(`${dir}/p.ts`, dir);
 * equal(resolving.cwd, dir);
 * equal(resolving.files.includes(`${dir}/deno.json`), true);
 * equal(resolving.files.includes(`${dir}/package.json`), true);
 * ```
 */
export async function sandboxResolvingFiles(
  root: string,
  workspace: string,
): Promise<SandboxResolving> {
  const files: string[] = [];
  let problem: string | undefined;
  for (let dir of [dirname(root), workspace]) {
    while (true) {
      for (const file of [...configPathsIn(dir), join(dir, "package.json")]) {
        if (files.includes(file)) continue;
        files.push(file);
        if (!isFile(file)) continue;
        const fields = await configFields(file);
        if (typeof fields.importMap === "string") {
          files.push(...await importMapOf(file));
        }
        const grouping = ["workspace", "workspaces", "links", "patch"].find((key) =>
          fields[key] !== undefined
        );
        problem ??= grouping && `${file} sets "${grouping}", whose folders are not hashed`;
      }
      if (dir === "/") break;
      dir = dirname(dir);
    }
  }
  const cwd = (findConfig(dirname(root)) ?? findConfig(workspace))?.dir ?? workspace;
  return problem === undefined ? { cwd, files } : { cwd, files, problem };
}

/** A config's top-level fields (none when it cannot be read or parsed). */
async function configFields(file: string): Promise<Record<string, unknown>> {
  try {
    const parsed = await parseDenoConfig(await Deno.readTextFile(file));
    return typeof parsed === "object" && parsed !== null ? parsed as Record<string, unknown> : {};
  } catch {
    return {};
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
