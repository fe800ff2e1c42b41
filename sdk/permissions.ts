/**
 * The Deno permissions a plugin declares.
 *
 * @module
 */

/** One grant: everything (`true`), nothing (`false`), or a list of paths, hosts or names. */
export type PermissionGrant = boolean | readonly string[];

/** The Deno permissions a plugin's code needs; anything left out is denied. */
export interface PluginPermissions {
  read?: PermissionGrant;
  write?: PermissionGrant;
  net?: PermissionGrant;
  env?: PermissionGrant;
  run?: PermissionGrant;
  ffi?: PermissionGrant;
  sys?: PermissionGrant;
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
