/**
 * A plugin's declared `read`, `write` or `ffi` grant must name the real path: bubblewrap mounts
 * what a symlink leads to at the link's path, so a grant of `./plugins/x/cache` that is a link
 * to `.git/hooks` would let the plugin write there while `inspect` showed its own folder.
 *
 * @module
 */

import { relative, resolve } from "node:path";
import type { PluginPermissions } from "../permissions.ts";
import { hostMay, hostRealPath } from "./host_may.ts";
import { pathWithin } from "./path_within.ts";

const PATH_GRANTS = ["read", "write", "ffi"] as const;

/**
 * Why a plugin's resolved grants cannot be given, if they cannot: a path entry that goes
 * through a symlink, naming where it leads. Below one of `bases` (the root its grants resolve
 * from) only the part below it counts: a root reached through a link is the machine's. A path
 * elsewhere must be its own real path. A path that does not exist passes (nothing is behind
 * it), and so does one the host may not read (it cannot tell, and asks no prompt).
 *
 * @param grants Resolved grants (absolute paths).
 * @param bases Folders whose own path may go through links (the root).
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
 * equal(symlinkedGrantProblem(resolveGrants({ read: ["./real"] }, dir), [dir]), undefined);
 * equal(
 *   symlinkedGrantProblem(resolveGrants({ write: ["./link"] }, dir), [dir]),
 *   `write access to "${dir}/link", a symlink to "${dir}/real" (a grant must name the real path)`,
 * );
 * // The root itself reached through a link: only what lies below it counts.
 * equal(symlinkedGrantProblem(resolveGrants({ read: ["./real"] }, `${dir}/link`), [`${dir}/link`]), undefined);
 * // Outside the root, every part counts.
 * equal(symlinkedGrantProblem(resolveGrants({ read: [`${dir}/link`] }, "/elsewhere"), ["/elsewhere"])?.startsWith("read access"), true);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function symlinkedGrantProblem(
  grants: Required<PluginPermissions>,
  bases: readonly string[],
): string | undefined {
  for (const name of PATH_GRANTS) {
    const grant = grants[name];
    if (!Array.isArray(grant)) continue;
    for (const path of grant) {
      const within = bases.filter((base) => pathWithin(path, base));
      if (!hostMay({ name: "read", path })) continue;
      let real: string;
      try {
        real = Deno.realPathSync(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        throw error;
      }
      // Under a base only the part below it counts; elsewhere the whole path.
      const base = within[0];
      const expected = base === undefined
        ? path
        : resolve(hostRealPath(base) ?? base, relative(base, path));
      if (real !== expected) {
        return `${name} access to ${JSON.stringify(path)}, a symlink to ${
          JSON.stringify(real)
        } (a grant must name the real path)`;
      }
    }
  }
  return undefined;
}
