/**
 * What the host may do, asked of Deno before it is tried, so that a host without a grant
 * never sees a permission prompt (its preparation then takes the slower path).
 *
 * @module
 */

import { resolve } from "node:path";

/**
 * Whether this process holds `descriptor` already (a grant it would have to be prompted
 * for counts as not held).
 *
 * @param descriptor What to ask about.
 * @returns `true` when granted.
 *
 * @example Asking before reading
 * ```ts
 * import { hostMay } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof hostMay({ name: "read", path: "/" }), "boolean");
 * ```
 */
export function hostMay(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/**
 * Throws Deno's own denial, in Deno's words, when this process does not hold `descriptor`:
 * for code that would otherwise have Deno prompt on a terminal. The caller's error path then
 * reads it as any denial (the model gets `Permission denied: …`).
 *
 * @param descriptor What is about to be used.
 * @throws {Deno.errors.NotCapable} `Requires <name> access to "<path, host, variable or
 * command>", run again with the --allow-<name> flag` (without the `to …` part when the
 * descriptor names nothing).
 *
 * @example A path this process may write passes
 * ```ts
 * import { requireHostMay } from "./host_may.ts";
 *
 * requireHostMay({ name: "write", path: Deno.makeTempFileSync() });
 * ```
 */
export function requireHostMay(descriptor: Deno.PermissionDescriptor): void {
  if (hostMay(descriptor)) return;
  const named = descriptor as {
    path?: string | URL;
    host?: string;
    variable?: string;
    command?: string | URL;
  };
  const value = named.path ?? named.host ?? named.variable ?? named.command;
  const to = value === undefined ? "" : ` to ${JSON.stringify(String(value))}`;
  throw new Deno.errors.NotCapable(
    `Requires ${descriptor.name} access${to}, run again with the --allow-${descriptor.name} flag`,
  );
}

/**
 * The host and port a connection to `url` goes to, as a net permission names them (the
 * scheme's default port filled in: Deno asks about `host:443`, and a bare host does not
 * answer for it).
 *
 * @param url An http(s) URL.
 * @returns `hostname:port`.
 *
 * @example
 * ```ts
 * import { netHostOf } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(netHostOf(new URL("https://kv.example.com/db")), "kv.example.com:443");
 * equal(netHostOf(new URL("http://127.0.0.1:8080/")), "127.0.0.1:8080");
 * ```
 */
export function netHostOf(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

/**
 * Whether the host may both read and write under `folder` (a store it keeps).
 *
 * @param folder An absolute folder.
 * @returns `true` when both are granted.
 *
 * @example A store folder
 * ```ts
 * import { hostMayUse } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof hostMayUse("/tmp/store"), "boolean");
 * ```
 */
export function hostMayUse(folder: string): boolean {
  return hostMay({ name: "read", path: folder }) && hostMay({ name: "write", path: folder });
}

/**
 * The `PATH` a sandbox process gets: the host's, or `/usr/bin:/bin` when the host may not
 * read it (asked first: no prompt). Its `run` grants' bare names resolve through it.
 *
 * @returns A `PATH` value.
 *
 * @example The sandbox's PATH
 * ```ts
 * import { hostPath } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(hostPath().length > 0, true);
 * ```
 */
export function hostPath(): string {
  if (!hostMay({ name: "env", variable: "PATH" })) return "/usr/bin:/bin";
  return Deno.env.get("PATH") ?? "/usr/bin:/bin";
}

/**
 * The folders a bare name is looked up in, in order: a `PATH` value split as the OS splits it,
 * each folder absolute (an empty one is the current folder).
 *
 * @param path A `PATH` value (default {@linkcode hostPath}'s).
 * @returns The folders.
 *
 * @example An empty entry is the current folder
 * ```ts
 * import { pathFolders } from "./host_may.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * if (Deno.build.os !== "windows") {
 *   deepEqual(pathFolders("/usr/bin::bin"), ["/usr/bin", Deno.cwd(), `${Deno.cwd()}/bin`]);
 * }
 * ```
 */
export function pathFolders(path: string = hostPath()): string[] {
  return path.split(Deno.build.os === "windows" ? ";" : ":")
    .map((folder) => resolve(folder === "" ? "." : folder));
}

/**
 * A path with its symlinks resolved, as far as the host may look (asked first: no prompt).
 *
 * @param path A path.
 * @returns Its real path; `undefined` when the host may not read it or it does not exist.
 *
 * @example The current folder
 * ```ts
 * import { hostRealPath } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(hostRealPath("."), Deno.realPathSync("."));
 * equal(hostRealPath("./no such file"), undefined);
 * ```
 */
export function hostRealPath(path: string): string | undefined {
  if (!hostMay({ name: "read", path })) return undefined;
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether a path is an executable file, as far as the host may look (asked first: no
 * prompt). Where the OS has no mode bits (Windows), every file counts.
 *
 * @param path A path.
 * @returns `false` for a folder, a missing path, a file without an execute bit, or a path
 * the host may not read.
 *
 * @example The deno binary
 * ```ts
 * import { isExecutableFile } from "./host_may.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isExecutableFile(Deno.execPath()), true);
 * equal(isExecutableFile("."), false);
 * ```
 */
export function isExecutableFile(path: string): boolean {
  if (!hostMay({ name: "read", path })) return false;
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}
