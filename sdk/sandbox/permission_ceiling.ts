/**
 * The ceiling: a plugin never gets more than the host process has.
 *
 * @module
 */

import { PERMISSION_NAMES, type PluginPermissions } from "../permissions.ts";
import { allowFlags, describeGrants } from "./permission_flags.ts";

type Descriptor = Deno.PermissionDescriptor;

function descriptor(name: string, entry?: string): Descriptor {
  if (entry === undefined) return { name } as Descriptor;
  switch (name) {
    case "read":
    case "write":
    case "ffi":
      return { name, path: entry } as Descriptor;
    case "net":
    case "import":
      return { name, host: entry } as Descriptor;
    case "env":
      return { name, variable: entry } as Descriptor;
    case "run":
      return { name, command: entry } as Descriptor;
    default:
      return { name, kind: entry } as Descriptor;
  }
}

function granted(name: string, entry?: string): boolean {
  try {
    return Deno.permissions.querySync(descriptor(name, entry)).state === "granted";
  } catch {
    return false;
  }
}

/**
 * What a plugin asks for that the host process does not have (`Deno.permissions.query`).
 *
 * @param grants Resolved grants (absolute paths).
 * @returns The missing part, in the same shape; empty when the plugin fits.
 *
 * @example Asking for nothing always fits
 * ```ts
 * import { missingPermissions } from "./permission_ceiling.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(missingPermissions({}), {});
 * ```
 */
export function missingPermissions(grants: PluginPermissions): PluginPermissions {
  const missing: Record<string, boolean | string[]> = {};
  for (const name of PERMISSION_NAMES) {
    const grant = grants[name];
    if (grant === true) {
      if (!granted(name)) missing[name] = true;
    } else if (Array.isArray(grant)) {
      const lacking = grant.filter((entry) => !granted(name, entry));
      if (lacking.length > 0) missing[name] = lacking;
    }
  }
  return missing as PluginPermissions;
}

/**
 * Refuses grants above the host's own permissions.
 *
 * @param plugin The plugin's name or specifier, for the message.
 * @param grants Resolved grants.
 * @throws {Error} `Cannot load plugin "<plugin>": it asks for <asked>; the host process
 * lacks <missing> (add <the flags that grant it> to the host's flags)` when any grant
 * exceeds the host's.
 *
 * @example A plugin that fits
 * ```ts
 * import { assertWithinCeiling } from "./permission_ceiling.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(assertWithinCeiling("weather", {}), undefined);
 * ```
 */
export function assertWithinCeiling(plugin: string, grants: PluginPermissions): void {
  const missing = missingPermissions(grants);
  if (Object.keys(missing).length === 0) return;
  throw new Error(
    `Cannot load plugin ${JSON.stringify(plugin)}: it asks for ${
      describeGrants(grants)
    }; the host process lacks ${describeGrants(missing)} (add ${
      allowFlags(missing).join(" ")
    } to the host's flags)`,
  );
}
