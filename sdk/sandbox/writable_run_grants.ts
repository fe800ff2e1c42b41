/**
 * `run` grants the plugin can replace: a grant is judged by the file it runs when the plugin is
 * loaded, and Deno resolves a bare name when its process starts. A plugin that may write the
 * granted file, or a folder on the sandbox's `PATH` where a bare name is looked up, can put a
 * script there that its next process runs: a shell, running what it was never granted.
 *
 * @module
 */

import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { PluginPermissions } from "../permissions.ts";
import { hostPath, hostRealPath, isExecutableFile, pathFolders } from "./host_may.ts";
import { pathWithin } from "./path_within.ts";

/** A run grant the plugin can replace, and the write grant it can do it through. */
export interface WritableRunGrant {
  /** The `run` grant, as given. */
  entry: string;
  /** The write grant that holds its file, or a folder on `PATH` it is looked up in (`true`: all). */
  through: string | true;
}

/**
 * The `run` grants whose file the plugin may write: a path inside a write grant (by the path
 * and its real path, or its folder's when it is not there yet), or a bare name when a folder
 * on `PATH` before the one that holds it (any, when none does) lies inside one. With
 * `write: true`, every `run` grant.
 *
 * @param grants The plugin's grants (paths absolute).
 * @param path The sandbox's `PATH` (default the host's, as the sandbox gets it).
 * @returns The grants, with the write grant each can be replaced through.
 *
 * @example A folder on PATH that the plugin may write
 * ```ts
 * import { writableRunGrants } from "./writable_run_grants.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const grants = { write: ["/home/me/bin"], run: ["git", "/usr/bin/rg"] };
 * deepEqual(writableRunGrants(grants, "/home/me/bin:/usr/bin"), [
 *   { entry: "git", through: "/home/me/bin" },
 * ]);
 * deepEqual(writableRunGrants(grants, "/usr/bin"), []);
 * ```
 */
export function writableRunGrants(
  grants: PluginPermissions,
  path: string = hostPath(),
): WritableRunGrant[] {
  if (!Array.isArray(grants.run) || grants.write === false || grants.write === undefined) {
    return [];
  }
  if (grants.write === true) return grants.run.map((entry) => ({ entry, through: true }));
  const writes = grants.write.flatMap((grant) => [grant, hostRealPath(grant) ?? grant]);
  const writableBy = (file: string) => {
    // A file not there yet has no real path; its folder may (a PATH folder that is a link).
    const real = hostRealPath(file) ??
      join(hostRealPath(dirname(file)) ?? dirname(file), basename(file));
    const paths = [file, real];
    const index = writes.findIndex((grant) => paths.some((p) => pathWithin(p, grant)));
    return index < 0 ? undefined : (grants.write as readonly string[])[Math.floor(index / 2)];
  };
  const folders = pathFolders(path);
  const found: WritableRunGrant[] = [];
  for (const entry of grants.run) {
    if (entry.includes("/") || isAbsolute(entry)) {
      const through = writableBy(resolve(entry));
      if (through !== undefined) found.push({ entry, through });
      continue;
    }
    // The folders a bare name is looked up in, up to the one that holds it now: one of them
    // the plugin may write can shadow it.
    for (const folder of folders) {
      const through = writableBy(`${folder}/${entry}`);
      if (through !== undefined) {
        found.push({ entry, through });
        break;
      }
      if (isExecutableFile(`${folder}/${entry}`)) break;
    }
  }
  return found;
}

/**
 * How such grants read in a refusal or a warning (after "it asks for run access to ").
 *
 * @param found What {@linkcode writableRunGrants} found.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { describeWritableRunGrants } from "./writable_run_grants.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   describeWritableRunGrants([{ entry: "git", through: "/home/me/bin" }]),
 *   '"git", which it can replace through its write grant "/home/me/bin" (Deno resolves a name when its process starts)',
 * );
 * ```
 */
export function describeWritableRunGrants(found: readonly WritableRunGrant[]): string {
  return found.map(({ entry, through }) =>
    `${JSON.stringify(entry)}, which it can replace through its write grant ${
      through === true ? "(all files)" : JSON.stringify(through)
    }`
  ).join("; ") + " (Deno resolves a name when its process starts)";
}
