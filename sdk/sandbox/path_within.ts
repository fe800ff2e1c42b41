/**
 * Whether a path lies in a folder, by its text.
 *
 * @module
 */

/**
 * Whether `path` is `root` or lies below it, comparing absolute, normalized paths as text
 * (`/a/bc` is not below `/a/b`). Resolve links first where they matter.
 *
 * @param path An absolute, normalized path.
 * @param root An absolute, normalized folder (`/` included).
 * @returns Whether `path` is in `root`.
 *
 * @example
 * ```ts
 * import { pathWithin } from "./path_within.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(pathWithin("/a/b/c", "/a/b"), true);
 * equal(pathWithin("/a/bc", "/a/b"), false);
 * equal(pathWithin("/etc", "/"), true);
 * ```
 */
export function pathWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : root + "/");
}
