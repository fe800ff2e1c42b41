/**
 * Grants to `deno run` flags: an explicit `--allow-*` for each grant and `--deny-*` for
 * the rest, with paths resolved against the workspace root.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { PERMISSION_NAMES, type PluginPermissions } from "../permissions.ts";

const PATH_PERMISSIONS = new Set(["read", "write", "ffi"]);

function resolveEntry(name: string, entry: string, root: string): string {
  if (PATH_PERMISSIONS.has(name)) return isAbsolute(entry) ? resolve(entry) : resolve(root, entry);
  if (name === "run" && entry.includes("/")) {
    return isAbsolute(entry) ? resolve(entry) : resolve(root, entry);
  }
  return entry;
}

/**
 * Resolves a plugin's grants: relative paths of `read`, `write`, `ffi` (and `run`
 * entries that are paths) become absolute against `root`; `[]` becomes `false`.
 *
 * @param permissions The declared grants.
 * @param root The workspace root relative paths are resolved against.
 * @returns The same grants, with absolute paths and every permission named.
 * @throws {TypeError} When an entry is not a non-empty string or contains a comma (Deno's
 * flag syntax cannot express one).
 *
 * @example A relative read grant
 * ```ts
 * import { resolveGrants } from "./permission_flags.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(resolveGrants({ read: ["./ws"], net: true }, "/home/me").read, ["/home/me/ws"]);
 * ```
 */
export function resolveGrants(
  permissions: PluginPermissions | undefined,
  root: string,
): Required<PluginPermissions> {
  const resolved: Record<string, boolean | string[]> = {};
  for (const name of PERMISSION_NAMES) {
    const grant = permissions?.[name];
    if (grant === true) resolved[name] = true;
    else if (Array.isArray(grant) && grant.length > 0) {
      resolved[name] = grant.map((entry) => {
        if (typeof entry !== "string" || entry === "" || entry.includes(",")) {
          throw new TypeError(
            `Cannot grant ${name} access to ${
              JSON.stringify(entry)
            }: an entry must be a non-empty string without commas`,
          );
        }
        return resolveEntry(name, entry, root);
      });
    } else resolved[name] = false;
  }
  return resolved as Required<PluginPermissions>;
}

/**
 * No grant at all, resolved: what a plugin's first start (its manifest read) and a seed's
 * filling starts run with.
 *
 * @example
 * ```ts
 * import { NO_GRANTS } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(NO_GRANTS.net, false);
 * ```
 */
export const NO_GRANTS: Required<PluginPermissions> = resolveGrants({}, "/");

/**
 * The `deno run` permission flags for resolved grants.
 *
 * @param grants Grants from {@linkcode resolveGrants}.
 * @param importHosts Hosts the plugin's cached module graph comes from, allowed even when
 * `import` is not granted (the code was cached by the host; nothing new can be fetched).
 * @returns `--allow-<name>[=<list>]` for each grant, `--deny-<name>` for the rest.
 *
 * @example Only a read grant
 * ```ts
 * import { permissionFlags, resolveGrants } from "./permission_flags.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(permissionFlags(resolveGrants({ read: ["/ws"] }, "/")), [
 *   "--allow-read=/ws", "--deny-write", "--deny-net", "--deny-env",
 *   "--deny-run", "--deny-ffi", "--deny-sys", "--deny-import",
 * ]);
 * ```
 */
export function permissionFlags(
  grants: Required<PluginPermissions>,
  importHosts: readonly string[] = [],
): string[] {
  const flags = PERMISSION_NAMES.map((name) => {
    const grant = grants[name];
    const withHosts = name === "import" && grant !== true
      ? [...new Set([...(Array.isArray(grant) ? grant : []), ...importHosts])]
      : grant;
    return allowFlag(name, withHosts) ?? `--deny-${name}`;
  });
  // Deno checks `net` against a URL's host, not the proxy `fetch` then connects to, which it
  // reads from these variables: a plugin that may set them reaches any address and port.
  if (grants.env !== false) flags.push(`--deny-env=${PROXY_VARIABLES.join(",")}`);
  return flags;
}

/** The variables Deno's `fetch` takes its proxy from: never the plugin's to set or read. */
export const PROXY_VARIABLES: readonly string[] = [
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
];

/** `--allow-<name>` for `true`, `--allow-<name>=<list>` for a list, nothing otherwise. */
function allowFlag(name: string, grant: boolean | readonly string[]): string | undefined {
  if (grant === true) return `--allow-${name}`;
  if (Array.isArray(grant) && grant.length > 0) return `--allow-${name}=${grant.join(",")}`;
  return undefined;
}

/**
 * The `--allow-*` flags that give a process these grants (what a host lacks, for the
 * message that says how to give it): one per granted permission, nothing for the rest.
 *
 * @param grants Grants (resolved or not).
 * @returns `--allow-<name>` for `true`, `--allow-<name>=<list>` for a list.
 *
 * @example What a host lacks, as flags
 * ```ts
 * import { allowFlags } from "./permission_flags.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(allowFlags({ read: ["/ws", "/etc/hosts"], net: true, env: false }), [
 *   "--allow-read=/ws,/etc/hosts",
 *   "--allow-net",
 * ]);
 * ```
 */
export function allowFlags(grants: PluginPermissions): string[] {
  return PERMISSION_NAMES.flatMap((name) => allowFlag(name, grants[name] ?? false) ?? []);
}

/**
 * Describes grants the way errors and `inspect` print them: `read: ["/ws"], net: true`.
 *
 * @param grants Grants (resolved or not).
 * @returns One `name: value` per granted permission, or `nothing` when none is granted.
 *
 * @example Describing grants
 * ```ts
 * import { describeGrants } from "./permission_flags.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(describeGrants({ read: ["/ws"], net: true, env: false }), 'read: ["/ws"], net: true');
 * ```
 */
export function describeGrants(grants: PluginPermissions | undefined): string {
  const parts: string[] = [];
  for (const name of PERMISSION_NAMES) {
    const grant = grants?.[name];
    if (grant === true) parts.push(`${name}: true`);
    else if (Array.isArray(grant) && grant.length > 0) {
      parts.push(`${name}: ${JSON.stringify(grant)}`);
    }
  }
  return parts.length === 0 ? "nothing" : parts.join(", ");
}
