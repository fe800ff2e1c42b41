/**
 * The grants that let a plugin escape every sandbox, said once for the loader (which refuses
 * them unless `allowRunEscape`) and for `inspectPlugin` (which warns of them).
 *
 * @module
 */

import type { PluginPermissions } from "../permissions.ts";
import { CACHE_WRITE_NOTE, cacheWriteGrants } from "./cache_write_grant.ts";
import { escapingFfiGrants, FFI_ESCAPE_NOTE } from "./ffi_grants.ts";
import { describeRunGrants, type RunGrantFinding } from "./grant_warnings.ts";
import { describeWritableRunGrants, writableRunGrants } from "./writable_run_grants.ts";

/**
 * What in `grants` escapes every sandbox, each as `it asks for … access to …`, in this
 * order: an escaping `run` grant, any `ffi` grant, a `run` grant the plugin may replace
 * through a write grant, a write grant that holds the host's Deno cache.
 *
 * @param grants Resolved grants.
 * @param escapingRun The escaping `run` entries (`runGrantFindings(grants).escaping`).
 * @param hostCache The host's Deno cache folder, when known.
 * @param quote Quote the `run` and `ffi` entries (as JSON).
 * @returns One sentence each, empty when nothing escapes.
 *
 * @example An ffi grant
 * ```ts
 * import { escapingGrants } from "./escaping_grants.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(escapingGrants({ ffi: ["/lib/x.so"] }, [], undefined, true), [
 *   'it asks for ffi access to "/lib/x.so", which escapes every sandbox (native code runs ' +
 *   "outside Deno's flags (libc's system() runs any program))",
 * ]);
 * ```
 */
export function escapingGrants(
  grants: PluginPermissions,
  escapingRun: RunGrantFinding[],
  hostCache: string | undefined,
  quote: boolean,
): string[] {
  const found: string[] = [];
  if (escapingRun.length > 0) {
    found.push(
      `it asks for run access to ${
        describeRunGrants(escapingRun, quote)
      }, which escapes every sandbox`,
    );
  }
  const ffi = escapingFfiGrants(grants);
  if (ffi.length > 0) {
    found.push(
      `it asks for ffi access to ${
        describeRunGrants(ffi, quote)
      }, which escapes every sandbox (${FFI_ESCAPE_NOTE})`,
    );
  }
  const replaceable = writableRunGrants(grants);
  if (replaceable.length > 0) {
    found.push(
      `it asks for run access to ${
        describeWritableRunGrants(replaceable)
      }, and escapes every sandbox`,
    );
  }
  const cache = cacheWriteGrants(grants, hostCache);
  if (cache.length > 0) {
    found.push(
      `it asks for write access to ${
        cache.map((path) => JSON.stringify(path)).join(", ")
      }, which holds ${CACHE_WRITE_NOTE}, and escapes every sandbox`,
    );
  }
  return found;
}
