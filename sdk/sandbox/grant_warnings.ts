/**
 * Grants that defeat the sandbox, found before anything runs.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";

// Shells, interpreters, and launchers (whose job is to run the program named in their
// arguments). Not every program that can run another is here: git (aliases, hooks), find
// (-exec), make, ssh and many more can too; docs/sandbox.md says so.
const ESCAPING_COMMANDS = new Set([
  // Shells
  "sh",
  "bash",
  "dash",
  "zsh",
  "fish",
  "ksh",
  "csh",
  "tcsh",
  "busybox",
  "pwsh",
  // Interpreters
  "deno",
  "node",
  "bun",
  "python",
  "python3",
  "perl",
  "ruby",
  "php",
  "lua",
  "tclsh",
  "expect",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  // Launchers
  "env",
  "setsid",
  "nohup",
  "timeout",
  "nice",
  "ionice",
  "chrt",
  "taskset",
  "stdbuf",
  "xargs",
  "flock",
  "script",
  "watch",
  "strace",
  "ltrace",
  "gdb",
  "chroot",
  "setpriv",
  "capsh",
  "runuser",
  "systemd-run",
  "bwrap",
  "unshare",
  "nsenter",
  "sudo",
  "su",
  "doas",
  "pkexec",
]);

/**
 * The `run` grants that let a plugin escape its sandbox: `run: true`, a shell, an
 * interpreter, a launcher (`env`, `setsid`, `xargs`, `timeout`, …) or the deno binary (a
 * child process gets its own, unrestricted flags).
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
