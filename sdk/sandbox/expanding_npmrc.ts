/**
 * A plugin's own project must not have an `.npmrc` that expands environment variables.
 *
 * @module
 */

import { isFile, workspaceRootOf } from "./deno_config.ts";

/**
 * Refuses a plugin's own project whose `.npmrc` expands environment variables (`${…}`): Deno
 * would put what they hold (any the host passes to `deno info`, `DENO_AUTH_TOKENS`, a proxy's
 * password) into a token sent to a registry the file names.
 *
 * @param own The plugin project's config (folder and file).
 * @param project The host's project folder (where its workspace root is looked for).
 * @throws {Error} Naming the file, when it expands a variable.
 *
 * @example A project whose .npmrc names a token by a variable
 * ```ts
 * import { refuseExpandingNpmrc } from "./expanding_npmrc.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/deno.json`, "{}");
 * await refuseExpandingNpmrc({ dir, file: `${dir}/deno.json` }, undefined);
 * await Deno.writeTextFile(`${dir}/.npmrc`, "//r/:_authToken=${TOKEN}");
 * await rejects(refuseExpandingNpmrc({ dir, file: `${dir}/deno.json` }, undefined));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function refuseExpandingNpmrc(
  own: { dir: string; file: string },
  project: string | undefined,
): Promise<void> {
  const root = await workspaceRootOf(own, project);
  for (const dir of new Set([own.dir, root.dir])) {
    const path = `${dir === "/" ? "" : dir}/.npmrc`;
    if (!isFile(path)) continue;
    if ((await Deno.readTextFile(path)).includes("${")) {
      throw new Error(
        `its project's ${
          JSON.stringify(path)
        } expands environment variables (\${…}), which could send the host's to a registry it names: write the values into it, or load the plugin from the host's own project`,
      );
    }
  }
}
