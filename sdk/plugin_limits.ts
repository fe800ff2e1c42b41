/**
 * The resource limits of a sandboxed plugin: declared by the plugin next to its
 * permissions, replaceable by the user when loading it.
 *
 * @module
 */

/** What a sandboxed plugin may use; anything left out gets the default. */
export interface PluginLimits {
  /**
   * Memory, in MB: the V8 heap of its sandbox (`--max-old-space-size`) and, where
   * `prlimit` exists, the process's data segment (`RLIMIT_DATA`, this plus what Deno
   * reserves at start). Default {@linkcode DEFAULT_LIMITS}`.memoryMb`.
   */
  memoryMb?: number;
  /** The largest message its sandbox may send (a result, a hook's answer), in MB. */
  frameMb?: number;
}

/** The limits of a plugin that declares none: 512 MB of memory, 16 MB messages. */
export const DEFAULT_LIMITS: Readonly<Required<PluginLimits>> = Object.freeze({
  memoryMb: 512,
  frameMb: 16,
});

/**
 * The limits a sandbox runs with: the user's where given, else the plugin's, else the
 * defaults.
 *
 * @param declared What the plugin declares.
 * @param given What the user passed to `loadPlugin` (replaces the declared ones).
 * @returns Every limit, as a positive whole number of MB.
 * @throws {TypeError} `Cannot apply limits: …` when a limit is not a positive whole number.
 *
 * @example The user's cap wins
 * ```ts
 * import { resolveLimits } from "./plugin_limits.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(resolveLimits({ memoryMb: 2048 }, { memoryMb: 256 }), { memoryMb: 256, frameMb: 16 });
 * ```
 */
export function resolveLimits(
  declared: PluginLimits | undefined,
  given: PluginLimits | undefined,
): Required<PluginLimits> {
  const out = { ...DEFAULT_LIMITS };
  for (const name of ["memoryMb", "frameMb"] as const) {
    const value = given?.[name] ?? declared?.[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) {
      throw new TypeError(
        `Cannot apply limits: ${name} must be a positive whole number of MB, got ${
          JSON.stringify(value)
        }`,
      );
    }
    out[name] = value;
  }
  return out;
}
