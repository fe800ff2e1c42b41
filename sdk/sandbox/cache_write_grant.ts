/**
 * Write grants over the host's Deno cache: it holds the code the host runs (its npm packages,
 * the emit of its TypeScript, Tack's stores), and a sandbox's own cache is mounted where it is,
 * so bubblewrap mounting a write grant that holds it puts the host's real cache back, writable.
 * Such a grant escapes every sandbox, as an escaping `run` grant does.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import { denoDirFromEnvironment } from "./deno_dir.ts";
import { hostRealPath } from "./host_may.ts";
import { pathWithin } from "./path_within.ts";

/** What loading says of such a grant (after "it asks for write access to …"). */
export const CACHE_WRITE_NOTE = "the host's Deno cache, where the code the host runs lives";

/**
 * The write grants that hold the host's Deno cache, or lie inside it (by their paths and
 * their real paths).
 *
 * @param grants The plugin's grants (paths absolute).
 * @param denoDir The host's Deno cache: pass `denoCacheDir()`'s, the one the sandbox mounts
 *   (by default the one the environment names, when the host may read it; none: no grant is
 *   flagged, so a host that may not read `HOME` would pass every grant).
 * @returns The grants, as given.
 *
 * @example A grant on the cache's parent
 * ```ts
 * import { cacheWriteGrants } from "./cache_write_grant.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(cacheWriteGrants({ write: ["/home/me/.cache"] }, "/home/me/.cache/deno"), [
 *   "/home/me/.cache",
 * ]);
 * deepEqual(cacheWriteGrants({ write: ["/home/me/notes"] }, "/home/me/.cache/deno"), []);
 * ```
 */
export function cacheWriteGrants(
  grants: PluginPermissions,
  denoDir: string | undefined = denoDirFromEnvironment(),
): string[] {
  if (denoDir === undefined || !Array.isArray(grants.write)) return [];
  const caches = [denoDir, hostRealPath(denoDir) ?? denoDir];
  return grants.write.filter((grant) => {
    const paths = [grant, hostRealPath(grant) ?? grant];
    return paths.some((path) =>
      caches.some((cache) => pathWithin(cache, path) || pathWithin(path, cache))
    );
  });
}
