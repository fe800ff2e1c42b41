/**
 * What trusting a `tack.jsonc` is trust in: its path (its folder's real path: a link is not
 * followed, since what it says runs in the folder it is in), the SHA-256 of its bytes, and the
 * SHA-256 of each local plugin file it names (the file itself, not the files that one
 * imports). Any change to these asks again.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TackConfig } from "./config.ts";
import { builtinPluginName, resolvePluginSpecifier } from "./load_plugins.ts";
import { sha256Hex } from "../sdk/sandbox/sha256_hex.ts";

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
}

/**
 * The files of the config's plugins that are local modules (not built-ins, `jsr:`, `npm:` or
 * URLs), as absolute paths.
 *
 * @param config The parsed config.
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
export function localPluginFiles(config: TackConfig): string[] {
  const files: string[] = [];
  for (const entry of config.plugins ?? []) {
    if (builtinPluginName(entry.specifier) !== undefined) continue;
    const resolved = resolvePluginSpecifier(entry.specifier, entry.baseDir);
    if (resolved.kind === "ok" && resolved.url.startsWith("file:")) {
      files.push(fileURLToPath(resolved.url));
    }
  }
  return files;
}

/** The most of a plugin file that is read to hash it (no module is that large). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/**
 * What a plugin file past {@linkcode MAX_HASHED_BYTES} is recorded as: it has no hash, so it
 * is never the file that was trusted (every start asks again).
 *
 * @example
 * ```ts
 * import { TOO_LARGE_TO_HASH } from "./config_fingerprint.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(TOO_LARGE_TO_HASH, "over 67108864 bytes, not hashed");
 * ```
 */
export const TOO_LARGE_TO_HASH = `over ${MAX_HASHED_BYTES} bytes, not hashed`;

/**
 * What a plugin path that is not a regular file (a link to a device, a FIFO: `/dev/stdin`
 * imports whatever is piped in) is recorded as: never the file that was trusted.
 */
const NOT_A_FILE = "not a regular file, not hashed";

/**
 * The SHA-256 of a file read in chunks, or {@linkcode TOO_LARGE_TO_HASH} once more than
 * {@linkcode MAX_HASHED_BYTES} came (counted as read: a `/proc` file says it has 0 bytes and
 * never ends).
 */
async function boundedSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  const file = await Deno.open(path);
  let read = 0;
  // The readable closes the file at its end, on an error, or when the loop leaves it.
  for await (const chunk of file.readable) {
    read += chunk.length;
    if (read > MAX_HASHED_BYTES) return TOO_LARGE_TO_HASH;
    hash.update(chunk);
  }
  return hash.digest("hex");
}

async function fileHash(path: string): Promise<[string, string]> {
  try {
    const real = await Deno.realPath(path);
    // Read through the path, as the import reads it: Deno may grant a link in the project and
    // not the file it points to, which the import still reads.
    // The path is the untrusted file's choice: a device or a FIFO (/dev/zero) is not read.
    const info = await Deno.stat(path);
    if (!info.isFile) return [real, NOT_A_FILE];
    // Its size is not its hash: a large one would change unseen; it is never trusted instead.
    return [real, await boundedSha256(path)];
  } catch {
    // Not there (or not readable): loading it fails too; if it appears, that is a change.
    return [path, "missing"];
  }
}

/**
 * The fingerprint of a config file from the bytes that were parsed (never read again, so what
 * is trusted is what is loaded) and its local plugin files as they are now.
 *
 * @param file The config file's path.
 * @param bytes Its bytes, as read.
 * @param config What they parsed to.
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
): Promise<ConfigFingerprint> {
  const plugins: Record<string, string> = {};
  for (const path of localPluginFiles(config)) {
    const [key, hash] = await fileHash(path);
    plugins[key] = hash;
  }
  // Not the link's target: a repository's link to a file trusted elsewhere would run that
  // file's relative commands and paths here.
  const path = join(await Deno.realPath(dirname(file)), basename(file));
  return { path, sha256: await sha256Hex(bytes), plugins };
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
 * import { fingerprintChange, TOO_LARGE_TO_HASH } from "./config_fingerprint.ts";
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
    if (hash === TOO_LARGE_TO_HASH || hash === NOT_A_FILE) {
      return `the plugin file ${path} is ${hash}`;
    }
    if (trusted.plugins[path] === undefined) return `it now loads the plugin file ${path}`;
    if (trusted.plugins[path] !== hash) return `the plugin file ${path} changed`;
  }
  return undefined;
}
