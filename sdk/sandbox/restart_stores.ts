/**
 * What a sandbox checks of the shared stores each time it starts a child: another host's
 * housekeeping may have removed its child cache or its TypeBox bundle since it was prepared
 * (a long-running host restarting a crashed child hours later).
 *
 * @module
 */

import { KEPT_EMIT } from "./bwrap.ts";

/**
 * Makes sure the child's cache folder exists (an empty one if housekeeping removed it: the
 * child then transpiles its modules again) and marks it used now, so that housekeeping,
 * which keeps the caches used in the last hour, keeps it. Failures are left to the spawn.
 *
 * @param dir The child's cache folder.
 *
 * @example A removed folder comes back
 * ```ts
 * import { keepChildCache } from "./restart_stores.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = `${await Deno.makeTempDir()}/cache`;
 * keepChildCache(dir);
 * equal(Deno.statSync(`${dir}/gen/file`).isDirectory, true);
 * ```
 */
export function keepChildCache(dir: string): void {
  try {
    // The part of it mounted in the sandbox: it must exist.
    Deno.mkdirSync(`${dir}/${KEPT_EMIT}`, { recursive: true });
    const now = new Date();
    Deno.utimeSync(dir, now, now);
  } catch {
    // The spawn reports what is wrong with the folder.
  }
}

/**
 * Whether every file of a bundle is still there.
 *
 * @param files The bundle's files.
 * @returns `false` when one is missing (or cannot be looked at).
 *
 * @example A missing file
 * ```ts
 * import { bundleIntact } from "./restart_stores.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(bundleIntact([]), true);
 * equal(bundleIntact(["/nowhere/e0.js"]), false);
 * ```
 */
export function bundleIntact(files: readonly string[]): boolean {
  return files.every((file) => {
    try {
      return Deno.statSync(file).isFile;
    } catch {
      return false;
    }
  });
}
