/**
 * `ffi` grants: every one escapes every sandbox, so they are refused at load unless the
 * caller opts in, and warned about.
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";

/**
 * The `ffi` grants, every one of which escapes every sandbox: a native library's code runs
 * outside Deno's flags (libc's `system()` runs any program, `open()` reads any file the
 * process can see), and Deno 2.9 lets `Deno.dlopen` run without `--unstable-ffi`. Refused
 * at load unless `allowRunEscape: true`, like an escaping `run` grant.
 *
 * @param grants Resolved grants.
 * @returns The granted libraries (`"*"` for `ffi: true`), empty when there are none.
 *
 * @example Any library escapes
 * ```ts
 * import { escapingFfiGrants } from "./ffi_grants.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(escapingFfiGrants({ ffi: ["/usr/lib/libc.so.6"] }), ["/usr/lib/libc.so.6"]);
 * deepEqual(escapingFfiGrants({ ffi: true }), ["*"]);
 * deepEqual(escapingFfiGrants({ ffi: false }), []);
 * ```
 */
export function escapingFfiGrants(grants: PluginPermissions): string[] {
  if (grants.ffi === true) return ["*"];
  return Array.isArray(grants.ffi) ? [...grants.ffi] : [];
}

/** Why an `ffi` grant escapes, after the list of libraries. */
export const FFI_ESCAPE_NOTE =
  "native code runs outside Deno's flags (libc's system() runs any program)";

/**
 * The granted libraries as a list for a message, quoted or not.
 *
 * @param libraries What {@linkcode escapingFfiGrants} found.
 * @param quote Whether to quote each (`"…"`).
 * @returns The list.
 *
 * @example
 * ```ts
 * import { describeFfiGrants } from "./ffi_grants.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(describeFfiGrants(["/lib/a.so", "/lib/b.so"], true), '"/lib/a.so", "/lib/b.so"');
 * ```
 */
export function describeFfiGrants(libraries: readonly string[], quote: boolean): string {
  return libraries.map((entry) => (quote ? JSON.stringify(entry) : entry)).join(", ");
}
