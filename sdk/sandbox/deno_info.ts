/**
 * A module graph as `deno info --json` describes it, fetched into Deno's cache on the way.
 *
 * @module
 */

import { hostMay } from "./host_may.ts";
import { PreparationTimeoutError, runDeno } from "./run_deno.ts";

/** One module of `deno info --json`. */
export interface InfoModule {
  specifier: string;
  kind?: string;
  local?: string;
  mediaType?: string;
  npmPackage?: string;
  error?: string;
  dependencies?: {
    specifier: string;
    code?: { specifier?: string; error?: string };
    type?: { error?: string };
    isDynamic?: boolean;
  }[];
}

/** One npm package of `deno info --json`. */
export interface InfoNpmPackage {
  dependencies?: string[];
  localPath?: string;
  name?: string;
  version?: string;
  registryUrl?: string;
}

/** What `deno info --json` prints. */
export interface DenoInfo {
  roots: string[];
  modules: InfoModule[];
  redirects?: Record<string, string>;
  npmPackages?: Record<string, InfoNpmPackage>;
}

/**
 * Whether an npm package the graph's modules import is not where `deno info` says: it
 * exits with 0 and reports nothing when a package cannot be installed (a tarball that
 * fails its checksum, a download that fails). Their dependencies are not looked at: the
 * list holds optional ones for other platforms, which are never installed. Those the host
 * may not read are not looked at either (no prompt).
 */
function missingNpmPackage(info: DenoInfo): boolean {
  const packages = info.npmPackages ?? {};
  return info.modules.some(({ npmPackage }) => {
    const localPath = npmPackage === undefined ? undefined : packages[npmPackage]?.localPath;
    if (localPath === undefined || !hostMay({ name: "read", path: localPath })) return false;
    try {
      Deno.statSync(localPath);
      return false;
    } catch {
      return true;
    }
  });
}

/** Whether `deno info` found something wrong in the graph (it reports it, exiting with 0). */
function hasErrors(info: DenoInfo): boolean {
  return missingNpmPackage(info) || info.modules.some((module) =>
    module.error !== undefined ||
    (module.dependencies ?? []).some((dependency) =>
      dependency.code?.error !== undefined || dependency.type?.error !== undefined
    )
  );
}

/**
 * Fetches `specifier`'s graph into Deno's cache and describes it: `deno info --json`, which
 * downloads what `deno cache` would (remote modules, npm packages) in one process. When
 * the graph is broken, or an npm package it imports is not installed (info says nothing of
 * a tarball that failed), `deno cache` runs too, to say what is wrong as Deno says it (with
 * where the bad import is); should it pass, the graph is described again after it.
 *
 * @param specifier The module.
 * @param cwd Where Deno resolves it from (its config and lock).
 * @param foreign For a plugin's own project: less of the host's environment (see `runDeno`).
 * @param timeoutMs How long each `deno` run may take (see `runDeno`); one that runs past it
 * fails the whole description (no `deno cache` after it): a `PreparationTimeoutError`.
 * @returns The description.
 * @throws {Error} `Cannot prepare plugin: deno cache failed: …` when the graph cannot be
 * resolved or fetched.
 *
 * @example The graph of this module
 * ```ts
 * import { denoInfo } from "./deno_info.ts";
 * import { equal } from "node:assert/strict";
 *
 * const info = await denoInfo(import.meta.resolve("./run_deno.ts"), Deno.cwd());
 * equal(info.modules.some((module) => module.specifier.endsWith("/run_deno.ts")), true);
 * ```
 */
export async function denoInfo(
  specifier: string,
  cwd: string,
  foreign?: { denoDir: string },
  timeoutMs?: number,
): Promise<DenoInfo> {
  const run = (args: string[]) => runDeno(args, cwd, foreign, timeoutMs);
  const describe = async () => JSON.parse(await run(["info", "--json", specifier])) as DenoInfo;
  let info: DenoInfo;
  try {
    info = await describe();
  } catch (error) {
    // What stalled info would stall cache too: its error says what stalled.
    if (error instanceof PreparationTimeoutError) throw error;
    await run(["cache", "--quiet", specifier]);
    throw error;
  }
  if (!hasErrors(info)) return info;
  await run(["cache", "--quiet", specifier]);
  return await describe();
}
