/**
 * What the fs tools share: the root, the write locks and the limits.
 *
 * @module
 */

import { requireHostMay } from "../../sdk/sandbox/host_may.ts";
import { pluginRoot } from "../../sdk/plugin_root.ts";
import { createFileLocks, type FileLocks } from "./file_lock.ts";

/** Options of the `fs` plugin. Every limit has a default suited to a coding agent. */
export interface FsOptions {
  /** The directory the tools are confined to (default `"."`, the working directory). */
  root?: string;
  /** Lines `read` returns at most per call (default 2000). */
  maxReadLines?: number;
  /** Bytes of text `read` returns at most per call (default 50 KiB). */
  maxReadBytes?: number;
  /** Largest image `read` returns as image content (default 5 MiB). */
  maxImageBytes?: number;
  /** Entries `ls` lists when the call gives no `limit` (default 500). */
  maxEntries?: number;
  /** Paths `find` returns when the call gives no `limit` (default 1000). */
  maxFindResults?: number;
  /** Matches `grep` returns when the call gives no `limit` (default 100). */
  maxGrepMatches?: number;
  /** Directory names `find` and `grep` do not descend into (default `.git`, `node_modules`, `.tack`: the CLI's sessions and history). */
  skipDirs?: readonly string[];
  /**
   * Open files with more than one hard link (default `false`: refused, since another link
   * may lie outside the root and reading or writing would reach it).
   */
  allowHardLinks?: boolean;
}

/** The resolved options and shared state of one `fs` plugin instance. */
export interface FsContext {
  /** The root as given, made absolute (what the permissions name). */
  readonly root: string;
  /**
   * The real path of the root (symlinks resolved), once it could be read: at creation,
   * or at the first call when the plugin was created without read access (a sandbox
   * discovering its permissions).
   *
   * @throws {Error} When the root does not exist or is not a directory.
   */
  realRoot(): Promise<string>;
  /**
   * {@linkcode FsContext.realRoot}, synchronously (for `prepareArguments`, which cannot wait).
   *
   * @throws {Error} When the root does not exist, is not a directory, or may not be read.
   */
  realRootSync(): string;
  /** The real path of the root if it is known already. */
  readonly knownRealRoot: string | undefined;
  /** Serializes writes to the same file. */
  readonly locks: FileLocks;
  /** Lines `read` returns at most. */
  readonly maxReadLines: number;
  /** Bytes of text `read` returns at most. */
  readonly maxReadBytes: number;
  /** Largest image `read` returns. */
  readonly maxImageBytes: number;
  /** `ls` entries without a `limit`. */
  readonly maxEntries: number;
  /** `find` paths without a `limit`. */
  readonly maxFindResults: number;
  /** `grep` matches without a `limit`. */
  readonly maxGrepMatches: number;
  /** Directory names `find` and `grep` do not enter. */
  readonly skipDirs: ReadonlySet<string>;
  /** Whether files with more than one hard link may be opened. */
  readonly allowHardLinks: boolean;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0)) {
    throw new TypeError(`Cannot create fs plugin: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

/**
 * Resolves the options: the root (it must be an existing directory; its real path is
 * taken now if it can be read, else at the first call) and every limit, defaulted.
 *
 * @param options The plugin's options.
 * @returns The context the tools run with.
 * @throws {TypeError} When a limit is not a positive number.
 * @throws {Error} When the root does not exist or is not a directory.
 *
 * @example Defaults
 * ```ts
 * import { createFsContext } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * const context = createFsContext({ root: "." });
 * equal(await context.realRoot(), Deno.realPathSync("."));
 * equal(context.maxReadLines, 2000);
 * ```
 */
export function createFsContext(options: FsOptions = {}): FsContext {
  const found = pluginRoot("fs", options.root ?? ".");
  const root = found.path;
  // Without read access yet, it is resolved at the first call (see `realRoot`).
  let real = found.real;
  function realRootSync(): string {
    if (real !== undefined) return real;
    // Every tool starts here: a host that may not read the root gets Deno's denial (which
    // the model reads), not a prompt. Synchronous, as `prepareArguments` needs it (once).
    requireHostMay({ name: "read", path: root });
    let path: string;
    try {
      path = Deno.realPathSync(root);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new Error(`The root ${root} does not exist`, { cause: error });
      }
      throw error;
    }
    requireHostMay({ name: "read", path }); // a root reached through a symlink
    if (!Deno.statSync(path).isDirectory) {
      throw new Error(`The root ${root} is not a directory`);
    }
    return (real = path);
  }
  return {
    root,
    get knownRealRoot() {
      return real;
    },
    realRoot(): Promise<string> {
      try {
        return Promise.resolve(realRootSync());
      } catch (error) {
        return Promise.reject(error);
      }
    },
    realRootSync,
    locks: createFileLocks(),
    maxReadLines: positive("maxReadLines", options.maxReadLines, 2000),
    maxReadBytes: positive("maxReadBytes", options.maxReadBytes, 50 * 1024),
    maxImageBytes: positive("maxImageBytes", options.maxImageBytes, 5 * 1024 * 1024),
    maxEntries: positive("maxEntries", options.maxEntries, 500),
    maxFindResults: positive("maxFindResults", options.maxFindResults, 1000),
    maxGrepMatches: positive("maxGrepMatches", options.maxGrepMatches, 100),
    skipDirs: new Set(options.skipDirs ?? [".git", "node_modules", ".tack"]),
    allowHardLinks: options.allowHardLinks === true,
  };
}

/**
 * Formats a byte count for messages: `512 B`, `50 KB`, `1.5 MB`.
 *
 * @param bytes The count.
 * @returns The count in the largest fitting unit (1 KB = 1024 B).
 *
 * @example Formatting sizes
 * ```ts
 * import { formatBytes } from "./fs_context.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(formatBytes(51200), "50 KB");
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${Number.isInteger(kb) ? kb : kb.toFixed(1)} KB`;
  const mb = kb / 1024;
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
