/**
 * `ffi` grants: every one escapes every sandbox, so they are refused at load unless the
 * caller opts in, and warned about.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import type { RunGrantFinding } from "./grant_warnings.ts";

/**
 * The `ffi` grants, every one of which escapes every sandbox: a native library's code runs
 * outside Deno's flags (libc's `system()` runs any program, `open()` reads any file the
 * process can see), and Deno 2.9 lets `Deno.dlopen` run without `--unstable-ffi`. Refused
 * at load unless `allowRunEscape: true`, like an escaping `run` grant.
 *
 * @param grants Resolved grants.
 * @returns The granted libraries (`"*"` for `ffi: true`), empty when there are none, as
 *   findings `describeRunGrants` lists.
 *
 * @example Any library escapes
 * ```ts
 * import { escapingFfiGrants } from "./ffi_grants.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(escapingFfiGrants({ ffi: ["/usr/lib/libc.so.6"] }), [{ entry: "/usr/lib/libc.so.6" }]);
 * deepEqual(escapingFfiGrants({ ffi: true }), [{ entry: "*" }]);
 * deepEqual(escapingFfiGrants({ ffi: false }), []);
 * ```
 */
export function escapingFfiGrants(grants: PluginPermissions): RunGrantFinding[] {
  if (grants.ffi === true) return [{ entry: "*" }];
  return Array.isArray(grants.ffi) ? grants.ffi.map((entry) => ({ entry })) : [];
}

/** Why an `ffi` grant escapes, after the list of libraries. */
export const FFI_ESCAPE_NOTE =
  "native code runs outside Deno's flags (libc's system() runs any program)";
