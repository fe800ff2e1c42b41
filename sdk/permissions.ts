/**
 * The Deno permissions a plugin declares.
 *
 * @module
 */

/** One grant: everything (`true`), nothing (`false`), or a list of paths, hosts or names. */
export type PermissionGrant = boolean | readonly string[];

/** The Deno permissions a plugin's code needs; anything left out is denied. */
export interface PluginPermissions {
  /** File system read access (`Deno.readFile`, …). */
  read?: PermissionGrant;
  /** File system write access. */
  write?: PermissionGrant;
  /** Network access (hosts, `host:port`). */
  net?: PermissionGrant;
  /** Environment variables. */
  env?: PermissionGrant;
  /** Subprocesses. A plugin that may run a shell or `deno` can escape every other limit. */
  run?: PermissionGrant;
  /** Foreign function interface (`Deno.dlopen`). */
  ffi?: PermissionGrant;
  /** System information (`Deno.hostname`, …). */
  sys?: PermissionGrant;
  /** Dynamic imports of remote modules. */
  import?: PermissionGrant;
}

/** The permission names a plugin may declare, in a fixed order. */
export const PERMISSION_NAMES: readonly (keyof PluginPermissions)[] = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "ffi",
  "sys",
  "import",
];
