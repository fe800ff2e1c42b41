/**
 * A sorted, depth-first walk of a directory that never follows symlinks.
 *
 * @module
 */

import { join } from "node:path";

/** One entry the walk yields. */
export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the directory walked, `/`-separated. */
  relative: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/**
 * Walks `dir` depth-first in name order. Symlinks are yielded but never followed (so the
 * walk cannot leave the root or loop); directories named in `skip` are neither yielded
 * nor entered; unreadable directories are skipped.
 *
 * @param dir The directory to walk.
 * @param skip Directory names not to enter.
 * @param signal Stops the walk when aborted.
 * @param prefix Put before each relative path (used when descending).
 * @returns The entries, lazily.
 *
 * @example Listing a tree
 * ```ts
 * import { walk } from "./walk.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/src`);
 * await Deno.writeTextFile(`${root}/src/a.ts`, "");
 * const seen = [];
 * for await (const entry of walk(root, new Set())) seen.push(entry.relative);
 * deepEqual(seen, ["src", "src/a.ts"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function* walk(
  dir: string,
  skip: ReadonlySet<string>,
  signal?: AbortSignal,
  prefix = "",
): AsyncGenerator<WalkEntry> {
  signal?.throwIfAborted();
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isDirectory && skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    yield {
      path,
      relative,
      isFile: entry.isFile,
      isDirectory: entry.isDirectory,
      isSymlink: entry.isSymlink,
    };
    if (entry.isDirectory) yield* walk(path, skip, signal, relative);
  }
}
