/**
 * The temp folder each sandbox starts from (its entry module, import map and lockfile),
 * made with the host's permissions. Deno's own denial names no folder (`Requires write
 * access to <TMP>`); a host that may not write there is told which folder and which flag.
 *
 * @module
 */

import { hostMay } from "./host_may.ts";

/**
 * Where Deno makes temp folders, `$TMPDIR` (else `/tmp`), when the host may read
 * `TMPDIR` (asked first: no permission prompt).
 *
 * @returns The folder, or `undefined` when the host may not read `TMPDIR`.
 *
 * @example Known or not
 * ```ts
 * import { hostTempFolder } from "./sandbox_temp_dir.ts";
 * import { equal } from "node:assert/strict";
 *
 * const folder = hostTempFolder();
 * equal(folder === undefined || folder.length > 0, true);
 * ```
 */
export function hostTempFolder(): string | undefined {
  if (!hostMay({ name: "env", variable: "TMPDIR" })) return undefined;
  const set = Deno.env.get("TMPDIR");
  return set === undefined || set === "" ? "/tmp" : set;
}

/**
 * Makes a sandbox's temp folder.
 *
 * @param prefix The folder name's prefix (`tack-sandbox-`).
 * @param label The load error's start, `Cannot load plugin "<specifier>"`.
 * @returns The new folder's path.
 * @throws {Error} `<label>: the host may not write to its temp folder "<folder>", … add
 * --allow-write=<folder> to the host's flags` when the host may not write there (with
 * `($TMPDIR, else /tmp)` for the folder when it may not read `TMPDIR`).
 *
 * @example A folder made and removed
 * ```ts
 * import { makeSandboxTempDir } from "./sandbox_temp_dir.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await makeSandboxTempDir("tack-example-", 'Cannot load plugin "./p.ts"');
 * equal((await Deno.stat(dir)).isDirectory, true);
 * await Deno.remove(dir);
 * ```
 */
export async function makeSandboxTempDir(prefix: string, label: string): Promise<string> {
  try {
    return await Deno.makeTempDir({ prefix });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    const folder = hostTempFolder();
    const where = folder === undefined ? "($TMPDIR, else /tmp)" : JSON.stringify(folder);
    const flag = folder === undefined
      ? "--allow-write=/tmp (or the folder $TMPDIR names)"
      : `--allow-write=${folder}`;
    throw new Error(
      `${label}: the host may not write to its temp folder ${where}, where each sandbox's entry module, import map and lockfile are written: add ${flag} to the host's flags`,
    );
  }
}
