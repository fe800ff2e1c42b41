/**
 * What trusting a `tack.jsonc` is trust in: its path (its folder's real path: a link is not
 * followed, since what it says runs in the folder it is in), the SHA-256 of its bytes, and the
 * SHA-256 of each local plugin file it names, and of each local module those import statically
 * (`./plugin_imports.ts`). Any change to these asks again.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TackConfig } from "./config.ts";
import { builtinPluginName, resolvePluginSpecifier } from "./load_plugins.ts";
import { sha256Hex } from "../sdk/sandbox/sha256_hex.ts";
import { boundedFileHash, isUnhashed } from "./bounded_file_hash.ts";
import { describePluginImports, type PluginImports } from "./plugin_imports.ts";

/** A config file as it was trusted, or as it is now. */
export interface ConfigFingerprint {
  /**
   * The config file's path: its folder's real path and its name. A `tack.jsonc` that is a link
   * is not resolved: trusting the file it links to elsewhere is not trusting this folder's.
   */
  path: string;
  /** The SHA-256 of its bytes, in hex. */
  sha256: string;
  /** Each local plugin file it names, by path: its SHA-256, or why it has none (`"missing"`). */
  plugins: Record<string, string>;
  /**
   * What the local plugin files import (absent without local plugin files, and in a record
   * made before imports were covered).
   */
  imports?: PluginImports;
}

/**
 * The files of the config's plugins that are local modules (not built-ins, `jsr:`, `npm:` or
 * URLs), as absolute paths.
 *
 * @param config The parsed config.
 * @param sandboxedOnly Only those loaded with `"sandbox": true` (their imports resolve with
 * their own folder's Deno config).
 * @returns Their paths, in the config's order.
 *
 * @example
 * ```ts
 * import { localPluginFiles } from "./config_fingerprint.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const plugins = ["fs", "./tools/a.ts", "jsr:@x/y"].map((specifier) =>
 *   ({ specifier, baseDir: "/p", source: "tack.jsonc" }));
 * deepEqual(localPluginFiles({ plugins }), ["/p/tools/a.ts"]);
 * ```
 */
export function localPluginFiles(config: TackConfig, sandboxedOnly = false): string[] {
  const files: string[] = [];
  for (const entry of config.plugins ?? []) {
    if (builtinPluginName(entry.specifier) !== undefined) continue;
    if (sandboxedOnly && !entry.sandbox) continue;
    const resolved = resolvePluginSpecifier(entry.specifier, entry.baseDir);
    if (resolved.kind === "ok" && resolved.url.startsWith("file:")) {
      files.push(fileURLToPath(resolved.url));
    }
  }
  return files;
}

/**
 * The fingerprint of a config file from the bytes that were parsed (never read again, so what
 * is trusted is what is loaded), its local plugin files as they are now and, unless
 * `withImports` is `false`, what those import (a `deno info` run per plugin file: the gate
 * leaves it out until it asks).
 *
 * @param file The config file's path.
 * @param bytes Its bytes, as read.
 * @param config What they parsed to.
 * @param withImports Whether to list and hash what the plugin files import (default `true`).
 * @returns The fingerprint.
 *
 * @example
 * ```ts
 * import { fingerprintConfig } from "./config_fingerprint.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/tack.jsonc`, "{}");
 * const print = await fingerprintConfig(`${dir}/tack.jsonc`, new TextEncoder().encode("{}"), {});
 * equal(print.path, `${dir}/tack.jsonc`);
 * equal(print.sha256.slice(0, 8), "44136fa3");
 * ```
 */
export async function fingerprintConfig(
  file: string,
  bytes: Uint8Array,
  config: TackConfig,
  withImports = true,
): Promise<ConfigFingerprint> {
  const plugins: Record<string, string> = {};
  const roots = localPluginFiles(config);
  for (const path of roots) {
    const [key, hash] = await boundedFileHash(path);
    plugins[key] = hash;
  }
  // Not the link's target: a repository's link to a file trusted elsewhere would run that
  // file's relative commands and paths here.
  const folder = await Deno.realPath(dirname(file));
  const path = join(folder, basename(file));
  const print: ConfigFingerprint = { path, sha256: await sha256Hex(bytes), plugins };
  if (withImports && roots.length > 0) {
    const sandboxed = localPluginFiles(config, true);
    print.imports = await describePluginImports(roots, folder, undefined, sandboxed);
  }
  return print;
}

/**
 * What differs between a trusted fingerprint and the current one, in words; `undefined` when
 * they are the same.
 *
 * @param trusted The fingerprint the user trusted.
 * @param now The file's fingerprint now.
 * @returns `undefined`, or what changed (`"tack.jsonc changed"`, `"./a.ts changed"`).
 *
 * @example
 * ```ts
 * import { fingerprintChange } from "./config_fingerprint.ts";
 * import { TOO_LARGE_TO_HASH } from "./bounded_file_hash.ts";
 * import { equal } from "node:assert/strict";
 *
 * const trusted = { path: "/p/tack.jsonc", sha256: "a", plugins: { "/p/x.ts": "1" } };
 * equal(fingerprintChange(trusted, trusted), undefined);
 * equal(fingerprintChange(trusted, { ...trusted, plugins: { "/p/x.ts": "2" } }),
 *   "the plugin file /p/x.ts changed");
 * // A file too large to hash is never the one that was trusted.
 * const large = { ...trusted, plugins: { "/p/x.ts": TOO_LARGE_TO_HASH } };
 * equal(fingerprintChange(large, large), "the plugin file /p/x.ts is over 67108864 bytes, not hashed");
 * ```
 */
export function fingerprintChange(
  trusted: ConfigFingerprint,
  now: ConfigFingerprint,
): string | undefined {
  if (trusted.sha256 !== now.sha256) return "the file changed";
  for (const [path, hash] of Object.entries(now.plugins)) {
    if (isUnhashed(hash)) {
      return `the plugin file ${path} is ${hash}`;
    }
    if (trusted.plugins[path] === undefined) return `it now loads the plugin file ${path}`;
    if (trusted.plugins[path] !== hash) return `the plugin file ${path} changed`;
  }
  return undefined;
}
