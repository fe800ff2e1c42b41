/**
 * A plugin's root folder (the `fs` and `shell` plugins'): its absolute path, and its real
 * path where this process may read both the path and where it leads. Asked first, so a host
 * without the grant is never prompted; Deno's grants do not follow symlinks, so a root
 * reached through one is asked about twice.
 *
 * @module
 */

import { resolve } from "node:path";
import { hostMay } from "./sandbox/host_may.ts";

/** A root as {@linkcode pluginRoot} found it. */
export interface PluginRoot {
  /** The root as given, made absolute. */
  path: string;
  /**
   * Its real path, checked to be a folder; absent when this process may not read it yet (a
   * sandbox asking for the declared permissions, a host granting less).
   */
  real?: string;
}

/**
 * Resolves a plugin's root.
 *
 * @param plugin The plugin's name, for the error text.
 * @param given The root as the user gave it.
 * @returns Its path, and its real path when it may be read.
 * @throws {Error} `Cannot create <plugin> plugin: root <given> does not exist` or `… is not a
 * directory`, when it may be read and is not a folder.
 *
 * @example The current folder
 * ```ts
 * import { pluginRoot } from "./plugin_root.ts";
 * import { equal, throws } from "node:assert/strict";
 *
 * equal(pluginRoot("fs", ".").real, Deno.realPathSync("."));
 * throws(() => pluginRoot("fs", "./no such folder"), /^Error: Cannot create fs plugin: root \.\/no such folder does not exist$/);
 * ```
 */
export function pluginRoot(plugin: string, given: string): PluginRoot {
  const path = resolve(given);
  if (!hostMay({ name: "read", path })) return { path };
  let real: string;
  try {
    real = Deno.realPathSync(path);
    if (!hostMay({ name: "read", path: real })) return { path };
    if (Deno.statSync(real).isDirectory) return { path, real };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`Cannot create ${plugin} plugin: root ${given} does not exist`, {
        cause: error,
      });
    }
    if (error instanceof Deno.errors.PermissionDenied) return { path }; // the OS refused
    throw error;
  }
  throw new Error(`Cannot create ${plugin} plugin: root ${given} is not a directory`);
}
