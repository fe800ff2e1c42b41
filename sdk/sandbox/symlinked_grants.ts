/**
 * A plugin's declared `read`, `write` or `ffi` grant must name the real path: bubblewrap mounts
 * what a symlink leads to at the link's path, so a grant of `./plugins/x/cache` that is a link
 * to `.git/hooks` would let the plugin write there while `inspect` showed its own folder.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import { pluginFolder } from "./sandbox_command.ts";
import { hostMay, hostRealPath } from "./host_may.ts";

const PATH_GRANTS = ["read", "write", "ffi"] as const;

/**
 * Why a plugin's resolved grants cannot be given, if they cannot: a path entry that goes
 * through a symlink inside one of `bases` (the root its grants resolve from, its own folder:
 * where it or its project could have put one), naming where it leads. Links above them (a
 * machine's `/home` or `/tmp` pointing elsewhere) are the machine's and pass; so does a path
 * that does not exist (nothing is behind it) and one the host may not read (it cannot tell,
 * and asks no prompt).
 *
 * @param grants Resolved grants (absolute paths).
 * @param bases Folders inside which no part of a granted path may be a symlink.
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
      const within = bases.filter((base) => path === base || path.startsWith(base + "/"));
      if (within.length === 0 || !hostMay({ name: "read", path })) continue;
      let real: string;
      try {
        real = Deno.realPathSync(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        throw error;
      }
      for (const base of within) {
        const expected = (hostRealPath(base) ?? base) + path.slice(base.length);
        if (real !== expected) {
          return `${name} access to ${JSON.stringify(path)}, a symlink to ${
            JSON.stringify(real)
          } (a grant must name the real path)`;
        }
      }
    }
  }
  return undefined;
}

/**
 * A plugin's own folder, as a list (none for a remote plugin).
 *
 * @param url The plugin module's URL.
 * @returns Its folder, or nothing.
 *
 * @example
 * ```ts
 * import { folderOf } from "./symlinked_grants.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(folderOf("file:///p/x/mod.ts"), ["/p/x"]);
 * deepEqual(folderOf("jsr:@a/b"), []);
 * ```
 */
export function folderOf(url: string): string[] {
  const folder = pluginFolder(url);
  return folder === undefined ? [] : [folder];
}
