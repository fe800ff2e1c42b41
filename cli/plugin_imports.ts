/**
 * What trusting a `tack.jsonc` covers beyond its plugin files: every local (`file:`) module
 * those files reach through static imports, and the Deno config their imports resolve with.
 * The graph is found with `deno info` (Deno's own resolver: the CLI's import map, no network)
 * only when a file is asked about or trusted; each start after that hashes the files the
 * trusted record lists, and runs no subprocess. The same files with the same bytes and the same
 * config import the same modules, so an unchanged list is an unchanged graph; a new import is
 * an edit to a listed file.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DenoInfo } from "../sdk/sandbox/deno_info.ts";
import { pathWithin } from "../sdk/sandbox/path_within.ts";
import { PreparationTimeoutError, runDeno } from "../sdk/sandbox/run_deno.ts";
import { denoCacheDir } from "../sdk/sandbox/deno_dir.ts";
import { boundedHash, isUnhashed } from "./bounded_file_hash.ts";
import { resolvingConfigFiles, sandboxResolvingFiles } from "./resolving_config.ts";

/** What a config's local plugins import, as it was trusted. */
export interface PluginImports {
  /**
   * Each local module the plugin files reach through static imports (not the plugin files,
   * not the CLI's own modules), by its path as imported: its hash (`"missing"` for one that is
   * not there, a marker for one past the bounds).
   */
  modules: Record<string, string>;
  /**
   * The Deno config the imports resolve with, and the import map it names: their hashes (for a
   * sandboxed plugin, every config that could resolve them, `"missing"` where there is none).
   */
  configs: Record<string, string>;
  /** Why the imports are not covered (too many, not listed): asked about at every start. */
  problem?: string;
}

/** The most local modules the plugins of one config may import and still be trusted. */
const MAX_IMPORTED_MODULES = 1000;

/** How long `deno info` may take to list the plugins' imports. */
const DESCRIBE_TIMEOUT_MS = 15_000;

/**
 * The CLI's own source folder: its modules (`@tack/agent/plugin`) run whether or not a config
 * is trusted, so they are not hashed, unless they lie in the workspace folder.
 */
const OWN_ROOT = import.meta.url.startsWith("file:")
  ? fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "")
  : undefined;

/**
 * The local modules `root` reaches through static imports in `info`, itself included (the
 * walk stops once past {@linkcode MAX_IMPORTED_MODULES}).
 */
function staticLocalModules(info: DenoInfo, root: string, workspace: string): string[] {
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const found: string[] = [];
  const queue = [root];
  // The root and one past the bound are enough to know it is past.
  while (queue.length > 0 && found.length <= MAX_IMPORTED_MODULES + 1) {
    const url = queue.pop()!;
    if (seen.has(url) || !url.startsWith("file:")) continue;
    seen.add(url);
    const path = fileURLToPath(url);
    if (OWN_ROOT && pathWithin(path, OWN_ROOT) && !pathWithin(path, workspace)) continue;
    found.push(path);
    for (const dependency of modules.get(url)?.dependencies ?? []) {
      const next = dependency.code?.specifier;
      if (next === undefined || dependency.isDynamic) continue;
      queue.push(info.redirects?.[next] ?? next);
    }
  }
  return found;
}

/** The first static import of `modules` (paths) that `info` lists as unresolved, if any. */
function unresolvedImport(info: DenoInfo, modules: string[]): string | undefined {
  const urls = new Set(modules.map((path) => pathToFileURL(path).href));
  for (const module of info.modules) {
    if (!urls.has(module.specifier)) continue;
    for (const dependency of module.dependencies ?? []) {
      const code = dependency.code;
      if (dependency.isDynamic || code === undefined || code.specifier !== undefined) continue;
      return JSON.stringify(dependency.specifier);
    }
  }
  return undefined;
}

function hashes(paths: Iterable<string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const path of paths) result[path] = boundedHash(path);
  return result;
}

/**
 * Lists and hashes what the given plugin files import: `deno info` on each (with the CLI's
 * config, `--no-remote --no-npm --no-lock`: nothing is fetched, no lockfile written), twice
 * (before and after the hashes, so that the hashes are of the files that import what is listed). A plugin
 * file that is missing or past the bounds is not described (its own hash already keeps it
 * untrusted; a FIFO would stall `deno info`).
 *
 * @param roots The local plugin files, as absolute paths.
 * @param workspace The folder the config is in (the CLI's own modules there are hashed too).
 * @param configFiles The Deno config the imports resolve with, and its import map
 * (default: the CLI's, {@linkcode resolvingConfigFiles}).
 * @param sandboxed The roots loaded with `"sandbox": true`: their imports resolve with the
 * config at or above their own folder ({@linkcode sandboxResolvingFiles}), and are listed so.
 * @returns The imported modules' and configs' hashes, or the problem.
 *
 * @example A plugin file importing another
 * ```ts
 * import { describePluginImports } from "./plugin_imports.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/lib.ts`, "export const x = 1;\n");
 * await Deno.writeTextFile(`${dir}/p.ts`, 'import { x } from "./lib.ts";\nexport default x;\n');
 * const imports = await describePluginImports([`${dir}/p.ts`], dir);
 * deepEqual(Object.keys(imports.modules), [`${dir}/lib.ts`]);
 * ```
 */
export async function describePluginImports(
  roots: string[],
  workspace: string,
  configFiles?: string[],
  sandboxed: readonly string[] = [],
): Promise<PluginImports> {
  configFiles ??= await resolvingConfigFiles();
  const resolving = await importResolving(roots, workspace, configFiles, sandboxed);
  const configs = hashes(resolving.files);
  if (resolving.problem !== undefined) {
    return { modules: {}, configs, problem: resolving.problem };
  }
  const listed = await listImports(roots, workspace, configFiles, resolving.cwds);
  if (typeof listed === "string") return { modules: {}, configs, problem: listed };
  const modules = hashes(listed);
  // Listed again once hashed: an import added between the listing and the hash would leave its
  // module out of the record for good (the importing file's new bytes would be the trusted ones).
  const again = await listImports(roots, workspace, configFiles, resolving.cwds);
  if (typeof again === "string") return { modules: {}, configs, problem: again };
  if (again.join("\n") !== listed.join("\n")) {
    return { modules: {}, configs, problem: "its plugins' imports changed while they were listed" };
  }
  return { modules, configs };
}

/**
 * The files whose edit can change what the roots' imports resolve to, in a fixed order: the
 * CLI's config for roots it imports in its own process, and for each sandboxed root the
 * configs at and above its folder, and the folder Deno finds its config from (where it is
 * listed); and why they cannot be covered, if they cannot.
 */
async function importResolving(
  roots: string[],
  workspace: string,
  configFiles: string[],
  sandboxed: readonly string[],
): Promise<{ files: string[]; cwds: Map<string, string>; problem?: string }> {
  const files = roots.some((root) => !sandboxed.includes(root)) ? [...configFiles] : [];
  const cwds = new Map<string, string>();
  let problem: string | undefined;
  for (const root of roots.filter((root) => sandboxed.includes(root))) {
    const resolving = await sandboxResolvingFiles(root, workspace);
    files.push(...resolving.files.filter((file) => !files.includes(file)));
    cwds.set(root, resolving.cwd);
    problem ??= resolving.problem;
  }
  return problem === undefined ? { files, cwds } : { files, cwds, problem };
}

/**
 * The sorted local modules the roots import (the roots left out), or the problem. A sandboxed
 * root (one `cwds` has) is listed from its folder, as the sandbox resolves it.
 */
async function listImports(
  roots: string[],
  workspace: string,
  configFiles: string[],
  cwds: ReadonlyMap<string, string>,
): Promise<string[] | string> {
  const base = ["info", "--json", "--no-remote", "--no-npm", "--no-lock"];
  const found = new Set<string>();
  for (const root of roots) {
    const hash = boundedHash(root);
    if (hash === "missing" || isUnhashed(hash)) continue;
    const url = pathToFileURL(root).href;
    let args = [...base, configFiles.length > 0 ? `--config=${configFiles[0]}` : "--no-config"];
    // Run beside the config, not in the repository the file came from (nothing there is read
    // but the modules).
    let cwd = configFiles.length > 0 ? dirname(configFiles[0]) : workspace;
    let foreign: { denoDir: string } | undefined;
    const sandboxCwd = cwds.get(root);
    if (sandboxCwd !== undefined) {
      // As the sandbox resolves it: Deno finds the plugin's project's config from there, and
      // runs with only the preparation's environment.
      args = base;
      cwd = sandboxCwd;
      foreign = { denoDir: await denoCacheDir() };
    }
    let info: DenoInfo;
    try {
      info = JSON.parse(await runDeno([...args, url], cwd, foreign, DESCRIBE_TIMEOUT_MS));
    } catch (error) {
      const why = error instanceof PreparationTimeoutError
        ? `deno info did not finish within ${DESCRIBE_TIMEOUT_MS} ms`
        : (error as Error).message.replace(/^Cannot prepare plugin: /, "");
      return `what ${root} imports could not be listed (${why})`;
    }
    const modules = staticLocalModules(info, url, workspace);
    // The sandbox prepares it with npm on: a bare import listed here as unresolved may be a
    // package in the project's node_modules, local code that would not be hashed.
    const unresolved = sandboxCwd !== undefined && unresolvedImport(info, modules);
    if (unresolved) {
      return `what ${root} imports could not be listed (${unresolved} resolves only with npm)`;
    }
    for (const path of modules) found.add(path);
    if (found.size > MAX_IMPORTED_MODULES + roots.length) break;
  }
  for (const root of roots) found.delete(root);
  if (found.size > MAX_IMPORTED_MODULES) {
    return `its plugins import more than ${MAX_IMPORTED_MODULES} local modules, not hashed`;
  }
  return [...found].sort();
}

/**
 * What differs between the imports that were trusted and the files as they are now, in words
 * (naming the file); `undefined` when nothing does. Only the listed files are hashed: no
 * subprocess runs.
 *
 * @param trusted The imports recorded with the trust (absent in a record made before imports
 * were covered).
 * @param hasLocalPlugins Whether the config lists local plugin files.
 * @param configFiles The Deno config the imports resolve with now, and its import map
 * (default: the CLI's, {@linkcode resolvingConfigFiles}).
 * @param roots The local plugin files now, and of those, the ones loaded with `"sandbox": true`
 * (their configs are found as {@linkcode describePluginImports} found them).
 * @returns `undefined`, or what changed.
 *
 * @example
 * ```ts
 * import { describePluginImports, importsChange } from "./plugin_imports.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/lib.ts`, "export const x = 1;\n");
 * await Deno.writeTextFile(`${dir}/p.ts`, 'import { x } from "./lib.ts";\nexport default x;\n');
 * const trusted = await describePluginImports([`${dir}/p.ts`], dir);
 * equal(await importsChange(trusted, true), undefined);
 * await Deno.writeTextFile(`${dir}/lib.ts`, "export const x = 2;\n");
 * equal(await importsChange(trusted, true),
 *   `the module ${dir}/lib.ts, which a plugin imports, changed`);
 * ```
 */
export async function importsChange(
  trusted: PluginImports | undefined,
  hasLocalPlugins: boolean,
  configFiles?: string[],
  roots: { all: string[]; sandboxed: readonly string[]; workspace: string } = {
    all: [],
    sandboxed: [],
    workspace: "/",
  },
): Promise<string | undefined> {
  if (!hasLocalPlugins) return undefined;
  if (trusted === undefined) return "what its plugins import was not recorded when you trusted it";
  if (trusted.problem !== undefined) return trusted.problem;
  const cli = configFiles ?? await resolvingConfigFiles();
  const resolving: { files: string[]; problem?: string } = roots.sandboxed.length === 0
    ? { files: cli }
    : await importResolving(roots.all, roots.workspace, cli, roots.sandboxed);
  if (resolving.problem !== undefined) return resolving.problem;
  const configs = resolving.files;
  if (configs.join("\n") !== Object.keys(trusted.configs).join("\n")) {
    return `its plugins' imports now resolve with ${configs[0] ?? "no Deno config"}`;
  }
  for (const [path, hash] of Object.entries(trusted.configs)) {
    if (boundedHash(path) !== hash) {
      return `the Deno config ${path}, which its plugins' imports resolve with, changed`;
    }
  }
  for (const [path, hash] of Object.entries(trusted.modules)) {
    if (isUnhashed(hash)) return `the module ${path}, which a plugin imports, is ${hash}`;
    if (boundedHash(path) !== hash) {
      return `the module ${path}, which a plugin imports, changed`;
    }
  }
  return undefined;
}

/**
 * What is said, next to the question and after `tack trust`, of imports that could not be
 * covered: trusting the file does not last.
 *
 * @param problem The imports' {@linkcode PluginImports.problem}.
 * @returns The warning line (no newline).
 *
 * @example
 * ```ts
 * import { unstableTrust } from "./plugin_imports.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(unstableTrust("x"),
 *   "⚠ x: trusted, it is asked about again at every start (pass --config ./tack.jsonc instead)");
 * ```
 */
export function unstableTrust(problem: string): string {
  return `⚠ ${problem}: trusted, it is asked about again at every start ` +
    "(pass --config ./tack.jsonc instead)";
}
