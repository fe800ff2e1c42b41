/**
 * Deno's configuration as the sandbox's preparation reads it: which `deno.json(c)` resolves
 * a module, and which lockfile it uses.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { hostMay } from "./host_may.ts";
import { isWorkspaceMember, workspaceMembers } from "./workspace_member.ts";
import { thrownText } from "../../core/thrown_text.ts";
import { pathWithin } from "./path_within.ts";

/** The names Deno looks for a config under, in its order. */
const CONFIG_NAMES: readonly string[] = ["deno.json", "deno.jsonc"];

/**
 * The paths a Deno config may have in a folder, in Deno's order.
 *
 * @param dir An absolute folder.
 * @returns `<dir>/deno.json`, `<dir>/deno.jsonc`.
 *
 * @example
 * ```ts
 * import { configPathsIn } from "./deno_config.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(configPathsIn("/"), ["/deno.json", "/deno.jsonc"]);
 * ```
 */
export function configPathsIn(dir: string): string[] {
  return CONFIG_NAMES.map((name) => `${dir === "/" ? "" : dir}/${name}`);
}

/**
 * Whether `path` is a file (a missing or unreadable path is not). A path the host may not
 * read is not looked at: a host on a terminal gets no permission prompt.
 *
 * @param path A path.
 * @returns `true` for a file the host may read.
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
  if (!hostMay({ name: "read", path })) return false;
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * The folder whose Deno config resolves a module: the nearest folder at or above `start`
 * with a `deno.json(c)`. Inside a `node_modules` folder Deno looks from the folder above
 * it (a package's own config is not the project's), and so does this. A folder above the
 * `project` whose config the host may not read is passed over (no permission prompt); in
 * the project it is an error, since the config it may hold would set the sandbox's lockfile.
 *
 * @param start An absolute folder.
 * @param project The host's project folder (its cwd, or the `root` it was given).
 * @returns The folder and its config file, or `undefined` when none is found.
 * @throws {Error} When a config in the project may be there, unreadable to the host
 * ({@linkcode unreadableConfigText}).
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
export function findConfig(
  start: string,
  project?: string,
): { dir: string; file: string } | undefined {
  let dir = start.replace(/\/+$/, "").replace(/\/node_modules(\/.*)?$/, "") || "/";
  while (true) {
    requireReadableConfig(dir, project);
    const file = configPathsIn(dir).find(isFile);
    if (file !== undefined) return { dir, file };
    if (dir === "/") return undefined;
    dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
  }
}

/**
 * Why a folder's Deno config cannot be looked for: the host may not read its `deno.json`
 * or `deno.jsonc`, and without it the sandbox would run with no lockfile.
 *
 * @param dir The folder.
 * @returns The error text, naming the flag.
 *
 * @example
 * ```ts
 * import { unreadableConfigText } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   unreadableConfigText("/p"),
 *   "the host may not read /p/deno.json, where a Deno config would set the plugin's import map and lockfile: add --allow-read=/p/deno.json,/p/deno.jsonc,/p/deno.lock (or --allow-read=/p) to the host's flags",
 * );
 * ```
 */
export function unreadableConfigText(dir: string): string {
  const [json, jsonc] = configPathsIn(dir);
  const lock = `${dir === "/" ? "" : dir}/deno.lock`;
  const unread = [json, jsonc].find((file) => !hostMay({ name: "read", path: file })) ?? json;
  return `the host may not read ${unread}, where a Deno config would set the plugin's import map and lockfile: add --allow-read=${json},${jsonc},${lock} (or --allow-read=${dir}) to the host's flags`;
}

/** Throws when `dir` is in the project and the host may not read a config there. */
function requireReadableConfig(dir: string, project: string | undefined): void {
  if (project === undefined || !pathWithin(dir, project)) return;
  if (configPathsIn(dir).some((path) => !hostMay({ name: "read", path }))) {
    throw new Error(unreadableConfigText(dir));
  }
}

/**
 * A config's text as an object: JSON first, JSONC (comments, trailing commas) only when
 * that fails, so the JSONC parser is loaded only by a host that needs it (never by a
 * sandbox child importing `@tack/agent`). Deno's own parser reads more (unquoted keys,
 * single-quoted strings); such text is an error here, never read as something else: the
 * JSONC parser alone would make `{ allowScripts: true }` an empty object.
 *
 * @param text A `deno.json` or `deno.jsonc` file's text.
 * @returns What it holds.
 * @throws {SyntaxError} When it is neither JSON nor JSONC.
 *
 * @example A config with a comment, and one with an unquoted key
 * ```ts
 * import { parseDenoConfig } from "./deno_config.ts";
 * import { deepEqual, rejects } from "node:assert/strict";
 *
 * deepEqual(await parseDenoConfig('{ "lock": false, // none\n }'), { lock: false });
 * await rejects(parseDenoConfig("{ allowScripts: true }"), SyntaxError);
 * ```
 */
export async function parseDenoConfig(text: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch {
    const { parse, printParseErrorCode } = await import("@std/jsonc");
    // jsonc-parser (the stand-in for @std/jsonc) reports errors instead of throwing.
    const errors: import("@std/jsonc").ParseError[] = [];
    const value = parse(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) {
      const { error, offset } = errors[0];
      throw new SyntaxError(`${printParseErrorCode(error)} at offset ${offset}`);
    }
    return value;
  }
}

/**
 * A config's parsed text; `undefined` when there is no such file.
 *
 * @param file The config's path.
 * @returns Its parsed content.
 * @throws {Error} When it exists but cannot be read, or is not JSON or JSONC: what it asks
 * of the host (install scripts, a lockfile elsewhere, a workspace) cannot be checked.
 *
 * @example
 * ```ts
 * import { readConfig } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await readConfig("/no/such/deno.json"), undefined);
 * ```
 */
export async function readConfig(file: string): Promise<unknown> {
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`the config ${JSON.stringify(file)} cannot be read: ${thrownText(error)}`);
  }
  try {
    return await parseDenoConfig(text);
  } catch (error) {
    throw new Error(
      `the config ${JSON.stringify(file)} is not JSON or JSONC (${
        thrownText(error)
      }): Deno would read it, but what it asks of the host cannot be checked (quote its keys and strings)`,
    );
  }
}

/**
 * The config whose `lock` Deno uses for a config: the workspace root's when the config is
 * a member of one, else its own. Like Deno, it looks up from the config's parent folder
 * for the nearest config with a `workspace` field (one without goes on up): a config it
 * lists (a path, a glob) is its member; one it does not list is a project of its own
 * (Deno warns and ignores that parent). A config with a `workspace` field is a root
 * itself. A parent config the host may not read is passed over (no permission prompt),
 * above the `project`; in it, that is an error ({@linkcode findConfig}).
 *
 * @param config A config's folder and file.
 * @param project The host's project folder.
 * @returns The workspace root's folder and file, or `config`.
 *
 * @example Not in a workspace: the config itself
 * ```ts
 * import { findConfig, workspaceRootOf } from "./deno_config.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const config = findConfig(new URL(".", import.meta.url).pathname)!;
 * deepEqual(await workspaceRootOf(config), config);
 * ```
 */
export async function workspaceRootOf(
  config: { dir: string; file: string },
  project?: string,
): Promise<{ dir: string; file: string }> {
  if (workspaceMembers(await readConfig(config.file)) !== undefined) return config;
  for (let dir = config.dir; dir !== "/";) {
    dir = dirname(dir);
    requireReadableConfig(dir, project);
    const file = configPathsIn(dir).find(isFile);
    if (file === undefined) continue;
    const members = workspaceMembers(await readConfig(file));
    if (members === undefined) continue;
    return isWorkspaceMember(dir, members, config.dir) ? { dir, file } : config;
  }
  return config;
}

/**
 * Where a config's lockfile is, whether or not it exists: its workspace root's `lock` field
 * (a path or `{ path }`), `deno.lock` beside that root by default; `undefined` when `lock` is
 * `false`. Deno writes it there when it resolves something new.
 *
 * @param config The config's folder and file.
 * @param project The host's project folder ({@linkcode workspaceRootOf}).
 * @returns The workspace root and the lockfile's absolute path.
 *
 * @example The repository's lockfile
 * ```ts
 * import { findConfig, namedLockFile } from "./deno_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * const config = findConfig(new URL(".", import.meta.url).pathname)!;
 * equal((await namedLockFile(config))?.path.endsWith("/deno.lock"), true);
 * ```
 */
export async function namedLockFile(
  config: { dir: string; file: string },
  project?: string,
): Promise<{ root: { dir: string; file: string }; path: string } | undefined> {
  const root = await workspaceRootOf(config, project);
  const lock = (await readConfig(root.file) as { lock?: unknown } | undefined)?.lock;
  if (lock === false) return undefined;
  const named = typeof lock === "string"
    ? lock
    : typeof (lock as { path?: unknown })?.path === "string"
    ? (lock as { path: string }).path
    : "deno.lock";
  return { root, path: resolve(root.dir, named) };
}

/**
 * The lockfile Deno uses for a config: its workspace root's ({@linkcode workspaceRootOf};
 * a member's own `lock` is ignored) `lock` field (a path or `{ path }`), `deno.lock` beside
 * that root by default, none when `lock` is `false` or the file does not exist.
 *
 * @param config The config's folder and file.
 * @param project The host's project folder ({@linkcode workspaceRootOf}).
 * @returns The lockfile's absolute path, or `undefined`.
 * @throws {Error} When the host may not read the lockfile (the sandbox would run unlocked).
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
  project?: string,
): Promise<string | undefined> {
  const named = await namedLockFile(config, project);
  if (named === undefined) return undefined;
  const { root, path } = named;
  if (!hostMay({ name: "read", path })) {
    // Above the project (or for the host's own code: no project), passed over as before.
    if (project === undefined || !pathWithin(root.dir, project)) return undefined;
    throw new Error(
      `the host may not read ${path}, the lockfile of ${root.file} the sandbox runs frozen to: add --allow-read=${path} to the host's flags`,
    );
  }
  return isFile(path) ? path : undefined;
}
