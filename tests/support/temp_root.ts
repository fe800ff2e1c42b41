// A temporary folder for one test, by its real path, removed afterwards.

/**
 * Runs `body` with a new temporary folder (its real path: `/tmp` may be a symlink), then
 * removes the folder and everything in it.
 *
 * @param prefix The folder name's prefix (`tack_fs_`).
 * @param body The test.
 *
 * @example
 * ```ts ignore
 * import { withTempRoot } from "./temp_root.ts";
 * await withTempRoot("tack_example_", async (root) => await Deno.writeTextFile(`${root}/a`, ""));
 * ```
 */
export async function withTempRoot(
  prefix: string,
  body: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  try {
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
