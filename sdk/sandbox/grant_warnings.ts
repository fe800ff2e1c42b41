/**
 * Grants that defeat the sandbox, found before anything runs.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";

const ESCAPING_COMMANDS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "fish",
  "ksh",
  "csh",
  "tcsh",
  "busybox",
  "env",
  "deno",
  "node",
  "python",
  "python3",
  "perl",
  "ruby",
  "bwrap",
  "sudo",
  "su",
  "unshare",
  "nsenter",
]);

/**
 * The `run` grants that let a plugin escape its sandbox: `run: true`, a shell, an
 * interpreter, or the deno binary (a child process gets its own, unrestricted flags).
 *
 * @param grants Resolved grants.
 * @param denoPath The deno binary's path (default `Deno.execPath()`).
 * @returns The escaping entries (`"*"` for `run: true`), empty when there are none.
 *
 * @example A shell escapes
 * ```ts
 * import { escapingRunGrants } from "./grant_warnings.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(escapingRunGrants({ run: ["git", "sh"] }, "/usr/bin/deno"), ["sh"]);
 * ```
 */
export function escapingRunGrants(
  grants: PluginPermissions,
  denoPath: string = Deno.execPath(),
): string[] {
  const run = grants.run;
  if (run === true) return ["*"];
  if (!Array.isArray(run)) return [];
  return run.filter((entry) => {
    const base = entry.split("/").at(-1) ?? entry;
    return entry === denoPath || ESCAPING_COMMANDS.has(base);
  });
}
