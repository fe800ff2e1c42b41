/**
 * The path an fs call names, resolved when the tool runs: inside the root, and leading where
 * it says, with no symlink on the way (the policies saw the path as the call names it).
 *
 * @module
 */

import { isAbsolute, relative, resolve } from "node:path";
import type { FsContext } from "./fs_context.ts";
import { type ResolvedPath, resolveInRoot } from "./resolve_in_root.ts";

/**
 * Resolves a call's `path` inside the root (see {@linkcode resolveInRoot}) and refuses it when
 * its real location is not the path as written: a symlink lies on the way. The tools'
 * `prepareArguments` rewrites such a path to its real one before any policy sees it, so a link
 * found here was made or changed after that (another call of the same batch, a process running
 * beside it), or the call never passed `prepareArguments` (a sandboxed plugin, a hook that
 * rewrote the arguments): the policies saw one path, and the call would reach another.
 *
 * @param context The plugin's shared state (its root).
 * @param path The path as the call names it.
 * @returns The resolved path.
 * @throws {Error} With a message for the model: those of `resolveInRoot`, or that the path
 * leads through a symlink, naming the real path to call again with.
 *
 * @example A link in the root is refused at run time
 * ```ts
 * import { createFsContext } from "./fs_context.ts";
 * import { resolveCalledPath } from "./called_path.ts";
 * import { equal, rejects } from "node:assert/strict";
 *
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${root}/.git`);
 * await Deno.symlink(".git", `${root}/g`);
 * const context = createFsContext({ root });
 * equal((await resolveCalledPath(context, ".git/config")).display, ".git/config");
 * await rejects(resolveCalledPath(context, "g/config"), {
 *   message: "Path g/config leads through a symlink to .git/config, not the path the call " +
 *     "was checked with; call again with .git/config",
 * });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function resolveCalledPath(context: FsContext, path: string): Promise<ResolvedPath> {
  const root = await context.realRoot();
  const target = await resolveInRoot(root, path);
  const lexical = isAbsolute(path) ? resolve(path) : resolve(root, path === "" ? "." : path);
  if (target.real !== lexical) {
    const real = relative(root, target.real) || ".";
    throw new Error(
      `Path ${path} leads through a symlink to ${real}, not the path the call was checked ` +
        `with; call again with ${real}`,
    );
  }
  return target;
}
