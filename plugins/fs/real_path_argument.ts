/**
 * The `path` a policy sees: where the call will really go inside the root.
 *
 * @module
 */

import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FsContext } from "./fs_context.ts";

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Where `path` really leads inside `root`, relative to it, when that differs from the path as
 * written because a symlink inside the root lies on the way; `undefined` when it does not
 * (or leads out of the root, or cannot be resolved: the tool refuses those itself).
 */
function realRelative(root: string, path: string): string | undefined {
  if (path.includes("\0")) return undefined;
  const lexical = isAbsolute(path) ? resolve(path) : resolve(root, path === "" ? "." : path);
  const missing: string[] = [];
  let existing = lexical;
  while (!lstatOrUndefined(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return undefined;
    missing.push(existing.slice(parent.length).replace(/^[/\\]+/, ""));
    existing = parent;
  }
  let real: string;
  try {
    real = join(Deno.realPathSync(existing), ...missing.reverse());
  } catch {
    return undefined;
  }
  if (real === lexical) return undefined;
  if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  return relative(root, real) || ".";
}

/**
 * The fs tools' `prepareArguments`: a `path` that goes through a symlink inside the root
 * becomes the path it leads to (relative to the root), so the policies that look at it see
 * where the call will read or write. A rule denying writes to `.git/**` then also blocks
 * `hooks/pre-commit` when `hooks` links to `.git/hooks` (a cloned repository may ship such a
 * link). Anything else is left as written, for the tool to resolve or refuse. The root is
 * resolved here when it was not yet; when it cannot be (it may not be read, it is gone) this
 * throws, and the call ends as an error result before any policy or the tool sees it.
 *
 * @param context The plugin's shared state (its root).
 * @returns The tools' `prepareArguments`.
 * @throws {Error} (from the returned function) When the root cannot be resolved.
 *
 * @example A link inside the root
 * ```ts
 * import { createFsContext } from "./fs_context.ts";
 * import { realPathArgument } from "./real_path_argument.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
 * await Deno.symlink(".git/hooks", `${root}/hooks`);
 * const prepare = realPathArgument(createFsContext({ root }));
 * deepEqual(prepare({ path: "hooks/pre-commit" }), { path: ".git/hooks/pre-commit" });
 * deepEqual(prepare({ path: "src/a.ts" }), { path: "src/a.ts" });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function realPathArgument(
  context: FsContext,
): (raw: Record<string, unknown>) => Record<string, unknown> {
  return function preparePath(raw) {
    if (typeof raw?.path !== "string") return raw;
    // A root not resolved yet (the plugin was made before the host could read it) is resolved
    // now: a call the policies would see unresolved is refused (the error becomes its result).
    const root = context.knownRealRoot ?? context.realRootSync();
    const real = realRelative(root, raw.path);
    return real === undefined ? raw : { ...raw, path: real };
  };
}
