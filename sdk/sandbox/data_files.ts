/**
 * Data files (JSON, text, bytes: any module that is not JavaScript, TypeScript or Wasm) that a
 * sandboxed plugin imports statically are part of its module graph: mounted, and read at load
 * without a read grant (Deno's read permission does not gate module loading). Both
 * `inspectPlugin` and `loadPlugin` warn about the ones its read grant does not cover.
 *
 * @module
 */

import { hostRealPath } from "./host_may.ts";
import { pathWithin } from "./path_within.ts";

/**
 * The data files a plugin imports statically that its read grant does not cover, in order.
 *
 * @param dataFiles The absolute paths of the data files in its graph.
 * @param read Its resolved read grant (`true`: everything; paths: those and what is under them).
 * @returns The files it reads without a grant.
 *
 * @example A JSON file granted, a `.env` not
 * ```ts
 * import { ungrantedDataFiles } from "./data_files.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(ungrantedDataFiles(["/p/settings.json", "/p/.env"], ["/p/settings.json"]), ["/p/.env"]);
 * deepEqual(ungrantedDataFiles(["/p/.env"], true), []);
 * ```
 */
export function ungrantedDataFiles(
  dataFiles: readonly string[],
  read: boolean | readonly string[],
): string[] {
  if (read === true) return [];
  const granted = Array.isArray(read) ? read : [];
  if (granted.length === 0) return [...dataFiles];
  // A grant and the graph may name one file by different paths (a root reached through a
  // symlink, the plugin by its real path): compared by real paths too, as the sandbox mounts.
  const real = granted.map((root) => hostRealPath(root) ?? root);
  return dataFiles.filter((file) => {
    if (granted.some((root) => pathWithin(file, root))) return false;
    const realFile = hostRealPath(file) ?? file;
    return !real.some((root) => pathWithin(realFile, root));
  });
}

/**
 * The warning about data files read without a grant, after its subject (`it …`, `plugin "x": …`).
 *
 * @param files The files ({@linkcode ungrantedDataFiles}).
 * @returns The warning's text.
 *
 * @example
 * ```ts
 * import { dataFilesWarning } from "./data_files.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   dataFilesWarning(["/p/.env"]),
 *   'imports data files (JSON, text or bytes), readable to it without a read grant: "/p/.env"',
 * );
 * ```
 */
export function dataFilesWarning(files: readonly string[]): string {
  // Quoted: a file's name is the plugin's to choose, and may hold a terminal's escapes.
  return `imports data files (JSON, text or bytes), readable to it without a read grant: ${
    files.map((file) => JSON.stringify(file)).join(", ")
  }`;
}
