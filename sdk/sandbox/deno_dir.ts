/**
 * Where this host's Deno keeps its cache (`DENO_DIR`), found the way Deno finds it, so a
 * new process does not pay a `deno info` subprocess (~12 ms) before its first sandbox.
 *
 * @module
 */

import { hostMay } from "./host_may.ts";
import { isAbsolute, resolve } from "node:path";
import { runDeno } from "./run_deno.ts";

/** Reads an environment variable only when the host may: never a permission prompt. */
function grantedEnv(name: string): string | undefined | null {
  if (!hostMay({ name: "env", variable: name })) return null;
  return Deno.env.get(name);
}

/** Whether `path` is a folder; `false` when the host may not read it (no permission prompt). */
function isDirectory(path: string): boolean {
  if (!hostMay({ name: "read", path })) return false;
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Deno's own rule (deno_dir's resolution): `DENO_DIR` (relative to the cwd), else the
 * platform's cache folder plus `deno` (`$XDG_CACHE_HOME` when set, relative to the cwd,
 * else `$HOME/.cache` on Linux; `$HOME/Library/Caches` on macOS). `undefined` when a variable
 * it needs or the folder may not be read, on other systems, or when the folder does not
 * exist: the caller then asks `deno info`, which is always right.
 *
 * @returns The cache folder's absolute path, or `undefined`.
 *
 * @example The folder `deno info` names
 * ```ts
 * import { denoDirFromEnvironment } from "./deno_dir.ts";
 * import { equal } from "node:assert/strict";
 *
 * const found = denoDirFromEnvironment();
 * equal(found === undefined || found.startsWith("/"), true);
 * ```
 */
export function denoDirFromEnvironment(): string | undefined {
  const explicit = grantedEnv("DENO_DIR");
  if (explicit === null) return undefined;
  let dir: string | undefined;
  if (explicit !== undefined && explicit !== "") {
    dir = isAbsolute(explicit) ? explicit : resolve(Deno.cwd(), explicit);
  } else if (Deno.build.os === "linux") {
    const xdg = grantedEnv("XDG_CACHE_HOME");
    if (xdg === null) return undefined;
    if (xdg !== undefined && xdg !== "") dir = `${resolve(Deno.cwd(), xdg)}/deno`;
    else {
      const home = grantedEnv("HOME");
      if (home === null || home === undefined || home === "") return undefined;
      dir = `${home}/.cache/deno`;
    }
  } else if (Deno.build.os === "darwin") {
    const home = grantedEnv("HOME");
    if (home === null || home === undefined) return undefined;
    dir = `${home}/Library/Caches/deno`;
  }
  return dir !== undefined && isDirectory(dir) ? dir : undefined;
}

async function askDeno(): Promise<string> {
  return JSON.parse(await runDeno(["info", "--json"], Deno.cwd())).denoDir;
}

let denoDir: Promise<string> | undefined;

/**
 * The Deno cache directory of this host, found once per process: from the environment
 * as Deno does ({@linkcode denoDirFromEnvironment}), else from `deno info --json`.
 *
 * @returns Its absolute path.
 * @throws {Error} `Cannot prepare plugin: deno info failed: …` when it has to ask and `deno info` fails.
 *
 * @example The cache directory
 * ```ts
 * import { denoCacheDir } from "./deno_dir.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal((await denoCacheDir()).startsWith("/"), true);
 * ```
 */
export function denoCacheDir(): Promise<string> {
  if (denoDir === undefined) {
    const found = denoDirFromEnvironment();
    denoDir = found === undefined ? askDeno() : Promise.resolve(found);
  }
  denoDir.catch(() => (denoDir = undefined));
  return denoDir;
}
