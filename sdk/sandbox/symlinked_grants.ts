/**
 * A plugin's declared `read`, `write` or `ffi` grant must name the real path: bubblewrap mounts
 * what a symlink leads to at the link's path, so a grant of `./plugins/x/cache` that is a link
 * to `.git/hooks` would let the plugin write there while `inspect` showed its own folder.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import { hostMay } from "./host_may.ts";

const PATH_GRANTS = ["read", "write", "ffi"] as const;

/**
 * Why a plugin's resolved grants cannot be given, if they cannot: a path entry that is, or
 * goes through, a symlink (naming where it leads). A path that does not exist is fine (nothing
 * is behind it); one the host may not read is not looked at (it cannot tell, and asks no
 * prompt).
 *
 * @param grants Resolved grants (absolute paths).
 * @returns The problem (after `declares permissions that cannot be granted: `), or `undefined`.
 *
 * @example A link to another folder
 * ```ts
 * import { symlinkedGrantProblem } from "./symlinked_grants.ts";
 * import { resolveGrants } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${dir}/real`);
 * await Deno.symlink(`${dir}/real`, `${dir}/link`);
 * equal(symlinkedGrantProblem(resolveGrants({ read: ["./real"] }, dir)), undefined);
 * equal(
 *   symlinkedGrantProblem(resolveGrants({ write: ["./link"] }, dir)),
 *   `write access to "${dir}/link", a symlink to "${dir}/real" (a grant must name the real path)`,
 * );
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function symlinkedGrantProblem(
  grants: Required<PluginPermissions>,
): string | undefined {
  for (const name of PATH_GRANTS) {
    const grant = grants[name];
    if (!Array.isArray(grant)) continue;
    for (const path of grant) {
      if (!path.startsWith("/")) continue;
      // Where the host may not read it cannot tell (documented: not refused then).
      if (!hostMay({ name: "read", path })) continue;
      let real: string;
      try {
        real = Deno.realPathSync(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        throw error;
      }
      if (real !== path) {
        return `${name} access to ${JSON.stringify(path)}, a symlink to ${
          JSON.stringify(real)
        } (a grant must name the real path)`;
      }
    }
  }
  return undefined;
}
