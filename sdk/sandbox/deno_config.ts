/**
 * Deno's configuration as the sandbox's preparation reads it: which `deno.json(c)` resolves
 * a module, and which lockfile it uses.
 *
 * @module
 */

import { resolve } from "node:path";

/** The names Deno looks for a config under, in its order. */
export const CONFIG_NAMES: readonly string[] = ["deno.json", "deno.jsonc"];

/**
 * Whether `path` is a file (a missing or unreadable path is not).
 *
 * @param path A path.
 * @returns `true` for a file.
 *
 * @example A folder is not a file
 * ```ts
 * import { isFile } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isFile("/"), false);
 * ```
 */
export function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * The folder whose Deno config resolves a module: the nearest folder at or above `start`
 * with a `deno.json(c)`.
 *
 * @param start An absolute folder.
 * @returns The folder and its config file, or `undefined` when none is found.
 *
 * @example The repository's own config
 * ```ts
 * import { findConfig } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const found = findConfig(new URL(".", import.meta.url).pathname);
 * equal(found?.file.endsWith("/deno.json"), true);
 * ```
 */
export function findConfig(start: string): { dir: string; file: string } | undefined {
  let dir = start.replace(/\/+$/, "") || "/";
  while (true) {
    for (const name of CONFIG_NAMES) {
      const file = `${dir === "/" ? "" : dir}/${name}`;
      if (isFile(file)) return { dir, file };
    }
    if (dir === "/") return undefined;
    dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
  }
}

/**
 * A config's text as an object: JSON first, JSONC (comments, trailing commas) only when
 * that fails, so the JSONC parser is loaded only by a host that needs it (never by a
 * sandbox child importing `@tack/agent`).
 *
 * @param text A `deno.json` or `deno.jsonc` file's text.
 * @returns What it holds.
 * @throws {Error} When it is neither JSON nor JSONC.
 *
 * @example A config with a comment
 * ```ts
 * import { parseDenoConfig } from "./deno_config.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(await parseDenoConfig('{ "lock": false, // none\n }'), { lock: false });
 * ```
 */
export async function parseDenoConfig(text: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch {
    const { parse } = await import("@std/jsonc");
    return parse(text);
  }
}

/**
 * The lockfile a config uses: its `lock` field (a path or `{ path }`), `deno.lock` beside
 * it by default, none when `lock` is `false` or the file does not exist.
 *
 * @param config The config's folder and file.
 * @returns The lockfile's absolute path, or `undefined`.
 *
 * @example The repository's lockfile
 * ```ts
 * import { findConfig, lockFileOf } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const config = findConfig(new URL(".", import.meta.url).pathname)!;
 * equal((await lockFileOf(config))?.endsWith("/deno.lock"), true);
 * ```
 */
export async function lockFileOf(
  config: { dir: string; file: string },
): Promise<string | undefined> {
  let lock: unknown;
  try {
    lock = ((await parseDenoConfig(Deno.readTextFileSync(config.file))) as { lock?: unknown })
      ?.lock;
  } catch {
    lock = undefined;
  }
  if (lock === false) return undefined;
  const named = typeof lock === "string"
    ? lock
    : typeof (lock as { path?: unknown })?.path === "string"
    ? (lock as { path: string }).path
    : "deno.lock";
  const path = resolve(config.dir, named);
  return isFile(path) ? path : undefined;
}
