/**
 * The confinement of the fs tools: every path a model gives is resolved inside one root
 * directory, or refused.
 *
 * @module
 */

import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path resolved inside the root. */
export interface ResolvedPath {
  /** The absolute path, symlinks followed as far as the file system has them. */
  readonly real: string;
  /** The path relative to the root (`"."` for the root itself), for messages. */
  readonly display: string;
}

function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function displayOf(root: string, path: string): string {
  return relative(root, path) || ".";
}

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw error;
  }
}

async function realPathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
      error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied ||
      (error instanceof Error && /too many levels of symbolic links|ELOOP/i.test(error.message))
    ) {
      return undefined;
    }
    throw error;
  }
}

/**
 * Resolves a path a model gave inside `root`, the real path of the root. Relative paths
 * are taken from the root; absolute ones must lie inside it. The check is made twice:
 * on the path as written (`..` segments are resolved first) and on the real path of its
 * deepest existing ancestor, so neither a symlink nor a symlinked directory on the way
 * can lead out of the root, not even for a file that does not exist yet.
 *
 * @param root The real, absolute path of the root (see `Deno.realPath`).
 * @param path The path as the model wrote it.
 * @returns The resolved path and its form relative to the root.
 * @throws {Error} With a message for the model when the path is empty, contains a NUL
 * character, lies outside the root, or leads out of it through a symlink.
 *
 * @example Refusing a path out of the root
 * ```ts
 * import { resolveInRoot } from "@tack/agent/plugins/fs";
 * import { equal, rejects } from "node:assert/strict";
 *
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * equal((await resolveInRoot(root, "a/b.txt")).display, "a/b.txt");
 * await rejects(resolveInRoot(root, "../x"), { message: `Path ../x is outside the root ${root}` });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function resolveInRoot(root: string, path: string): Promise<ResolvedPath> {
  if (path.includes("\0")) throw new Error(`Path ${JSON.stringify(path)} contains a NUL character`);
  const lexical = isAbsolute(path) ? resolve(path) : resolve(root, path === "" ? "." : path);
  if (!isInside(root, lexical)) {
    // An absolute path may name the root through a symlink (macOS's /tmp, a linked home).
    const aliased = isAbsolute(path)
      ? await realLocation(root, path, lexical).catch(() => undefined)
      : undefined;
    if (aliased && isInside(root, aliased.real)) {
      return { real: aliased.real, display: displayOf(root, aliased.real) };
    }
    throw new Error(`Path ${path} is outside the root ${root}`);
  }
  const { real } = await realLocation(root, path, lexical);
  if (!isInside(root, real)) {
    throw new Error(`Path ${path} leads through a symlink to ${real}, outside the root ${root}`);
  }
  return { real, display: displayOf(root, lexical) };
}

/** The real path of `lexical`: its deepest existing ancestor's real path, plus the rest. */
async function realLocation(
  root: string,
  path: string,
  lexical: string,
): Promise<{ real: string }> {
  const missing: string[] = [];
  let existing = lexical;
  while (true) {
    const info = await lstatOrUndefined(existing);
    if (info) {
      const real = await realPathOrUndefined(existing);
      if (real === undefined) {
        const target = info.isSymlink ? await Deno.readLink(existing).catch(() => "?") : "?";
        throw new Error(
          `Path ${path} leads through the symlink ${
            displayOf(root, existing)
          } -> ${target}, which cannot be resolved inside the root ${root}`,
        );
      }
      if (!isInside(root, real)) return { real };
      return { real: missing.length === 0 ? real : join(real, ...missing.reverse()) };
    }
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.push(existing.slice(parent.length).replace(/^[/\\]+/, ""));
    existing = parent;
  }
  throw new Error(`Cannot resolve ${path}: the root ${root} does not exist`);
}
