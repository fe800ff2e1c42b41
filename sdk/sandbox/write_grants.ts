/**
 * A confined plugin's write grants must exist before it starts: bubblewrap mounts only what exists.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import { hostMay } from "./host_may.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a confined plugin cannot start with these grants: a write grant that does not exist,
 * or that the host may not read, so it cannot tell. bubblewrap mounts only what exists, and
 * an unmounted path left the plugin writing into the sandbox's own memory, its calls
 * succeeding while its files vanished. Tack does not create it: whether it names a folder
 * or a file to be is the plugin's to say.
 *
 * @param grants Resolved grants.
 * @returns The problem, or `undefined`.
 *
 * @example A write grant that does not exist
 * ```ts
 * import { writeGrantProblem } from "./write_grants.ts";
 * import { resolveGrants } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * equal(writeGrantProblem(resolveGrants({ write: ["./out"] }, dir))?.startsWith("its write grant"), true);
 * await Deno.mkdir(`${dir}/out`);
 * equal(writeGrantProblem(resolveGrants({ write: ["./out"] }, dir)), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function writeGrantProblem(grants: Required<PluginPermissions>): string | undefined {
  if (!Array.isArray(grants.write)) return undefined;
  for (const path of grants.write) {
    if (!hostMay({ name: "read", path })) {
      return `the host may not read its write grant ${
        JSON.stringify(path)
      }, so it cannot tell that it exists (bubblewrap mounts only what exists): add --allow-read=${path} to the host's flags`;
    }
    if (!exists(path)) {
      return `its write grant ${
        JSON.stringify(path)
      } does not exist, and bubblewrap mounts only what exists (writes there would vanish with the sandbox): create it (a folder, or the file), or grant a folder that exists`;
    }
  }
  return undefined;
}
