/**
 * The OS layer on Linux: bubblewrap (`bwrap`), which confines what Deno's flags cannot
 * (module loading, symlinks pointing out of a grant), and `unshare -n` as a fallback
 * that at least takes the network away.
 *
 * @module
 */

import { hostMay } from "./host_may.ts";
import { SEED_MOUNT } from "./code_cache_seed.ts";

/** What the child sees of the file system and the network. */
export interface BwrapMounts {
  /** Files and folders mounted read-only at the same path (missing ones are skipped). */
  readOnly: readonly string[];
  /** Files and folders mounted read-write at the same path (missing ones are skipped). */
  readWrite: readonly string[];
  /** Empty folders mounted over parts of the read-only mounts (e.g. the cache's storage). */
  hidden?: readonly string[];
  /**
   * The child's own Deno cache at another path, before the other mounts, so they land
   * inside it (under the cache entries of its graph): a capped tmpfs, with only
   * `source`'s `gen/file` (the emit of the graph's files) mounted from the host: read-write
   * unless `emitReadOnly` (a start whose grants reach files beyond its graph).
   */
  underlay?: {
    source: string;
    target: string;
    seed?: CacheSeed;
    emitReadOnly?: boolean;
  };
  /** Share the host's network namespace (only when `net` is granted). */
  shareNet: boolean;
  /** The most bytes the sandbox's `/tmp` (memory) may hold; no cap when left out. */
  tmpBytes?: number;
}

/**
 * A seed of code caches (code_cache_seed.ts): its files, mounted read-only into the child's
 * Deno cache, or (`fill`) the folder a filling run copies the caches out to.
 */
export type CacheSeed =
  | { dir: string; fill: false; files: readonly string[] }
  | { dir: string; fill: true };

const SYSTEM_READ_ONLY = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"];

/**
 * The most what Deno writes in a child's cache during one start may take (its code caches,
 * the code emitted for `data:` and `blob:` modules, origin storage): 64 MiB, in memory.
 */
export const CHILD_CACHE_BYTES = 64 * 1024 * 1024;

/** The part of a child's cache kept on disk between starts: the emit of its graph's files. */
export const KEPT_EMIT = "gen/file";
const NET_READ_ONLY = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
];

const probes = new Map<string, Promise<boolean>>();

async function succeeds(command: string, args: string[]): Promise<boolean> {
  // Asked first: a host that may not run it gets no permission prompt (and no OS layer).
  if (!hostMay({ name: "run", command })) return false;
  try {
    const { success } = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

function probe(key: string, command: string, args: string[]): Promise<boolean> {
  let result = probes.get(key);
  if (result === undefined) {
    result = Deno.build.os === "linux" ? succeeds(command, args) : Promise.resolve(false);
    probes.set(key, result);
  }
  return result;
}

/** What bubblewrap can do here: nothing, confine, or confine with a size cap on `/tmp`. */
type BwrapSupport = "none" | "confines" | "caps tmpfs";

let support: Promise<BwrapSupport> | undefined;
let supportKnown: BwrapSupport | undefined;

function bwrapSupport(): Promise<BwrapSupport> {
  return support ??= (async () => {
    if (Deno.build.os !== "linux") return supportKnown = "none";
    const base = ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"];
    // `--size` (bubblewrap 0.7 and later) first: the common case costs one spawn.
    if (await succeeds("bwrap", [...base, "--size", "1048576", "--tmpfs", "/tmp", "true"])) {
      return supportKnown = "caps tmpfs";
    }
    return supportKnown = await succeeds("bwrap", [...base, "true"]) ? "confines" : "none";
  })();
}

/**
 * Whether `bwrap --unshare-all --die-with-parent … true` works here (probed once per
 * process, then cached). False off Linux, without bwrap, or without `--allow-run=bwrap`.
 *
 * @returns Whether the bubblewrap layer is available.
 *
 * @example Probing bubblewrap
 * ```ts
 * import { bwrapAvailable } from "./bwrap.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof await bwrapAvailable(), "boolean");
 * ```
 */
export async function bwrapAvailable(): Promise<boolean> {
  return await bwrapSupport() !== "none";
}

/**
 * Whether this bubblewrap can cap the size of the sandbox's `/tmp` (`--size`, bubblewrap 0.7
 * and later), as far as known: `false` until {@linkcode bwrapAvailable} has resolved.
 *
 * @returns Whether `--size` works here.
 *
 * @example After the probe
 * ```ts
 * import { bwrapAvailable, bwrapCapsTmpfs } from "./bwrap.ts";
 * import { equal } from "node:assert/strict";
 *
 * if (!await bwrapAvailable()) equal(bwrapCapsTmpfs(), false);
 * ```
 */
export function bwrapCapsTmpfs(): boolean {
  return supportKnown === "caps tmpfs";
}

/**
 * Whether `unshare -n true` works here (root on Linux): a child without `net` then gets
 * an empty network namespace even without bubblewrap. Probed once, then cached.
 *
 * @returns Whether `unshare -n` is available.
 *
 * @example Probing unshare -n
 * ```ts
 * import { unshareNetAvailable } from "./bwrap.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof await unshareNetAvailable(), "boolean");
 * ```
 */
export function unshareNetAvailable(): Promise<boolean> {
  return probe("unshare", "unshare", ["-n", "true"]);
}

/**
 * The bubblewrap arguments that go before the command: a fresh namespace of every kind
 * (the network shared only when granted), the system libraries, and only the given mounts.
 *
 * @param mounts What the child may see.
 * @returns Arguments for `bwrap`, ending with `--`, to be followed by the command.
 *
 * @example No network unless granted
 * ```ts
 * import { bwrapArgs } from "./bwrap.ts";
 * import { equal } from "node:assert/strict";
 *
 * const args = bwrapArgs({ readOnly: ["/plugin.ts"], readWrite: [], shareNet: false });
 * equal(args.includes("--share-net"), false);
 * equal(args.at(-1), "--");
 * ```
 */
export function bwrapArgs(mounts: BwrapMounts): string[] {
  const args = [
    "--unshare-all",
    "--die-with-parent",
    // No `--new-session`: the host starts bubblewrap in a session of its own (detached),
    // so nothing in the sandbox has a controlling terminal, and the whole sandbox stays in
    // bubblewrap's process group, which the host kills as one (bubblewrap's own setsid
    // would take the sandbox out of it before `--die-with-parent` is armed).
    "--cap-drop",
    "ALL",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  ];
  // A tmpfs lives in memory: capped, it holds no more than the plugin's memory limit.
  if (mounts.tmpBytes !== undefined) args.push("--size", String(mounts.tmpBytes));
  args.push("--tmpfs", "/tmp");
  if (mounts.shareNet) args.push("--share-net");
  const system = mounts.shareNet ? [...SYSTEM_READ_ONLY, ...NET_READ_ONLY] : SYSTEM_READ_ONLY;
  for (const path of system) args.push("--ro-bind-try", path, path);
  if (mounts.underlay) {
    const { source, target } = mounts.underlay;
    // Deno writes there with no permission asked: code caches that grow with every module
    // (SQLite files), the code it emits for `data:` and `blob:` modules, origin storage
    // (localStorage, the Cache API). A plugin importing 1 MB ones filled 1.1 GB: all of it
    // goes to a capped tmpfs, gone with the sandbox. Only the emit of the graph's own files
    // (`gen/file`: bounded by what is mounted) is kept on disk, for later starts.
    if (mounts.tmpBytes !== undefined) {
      args.push("--size", String(Math.min(mounts.tmpBytes, CHILD_CACHE_BYTES)));
    }
    args.push("--tmpfs", target);
    // Deno writes there the emit of every TypeScript file the plugin imports (found by the
    // sandbox attack): one that can create files (write them, import them, delete them) grew
    // it without a bound (94 MB for ten 4 MiB modules), and one granted `read` left a copy
    // of what it read there, which a later load without the grant imported. Such a start reads
    // what starts that reach no more than their graph kept (Deno fails to add to it, ~150 ms
    // once, and emits in memory).
    const emit = mounts.underlay.emitReadOnly ? "--ro-bind" : "--bind";
    args.push(emit, `${source}/${KEPT_EMIT}`, `${target}/${KEPT_EMIT}`);
    // The code caches two filling starts of the plugin left (code_cache_seed.ts): read-only,
    // or, for a run that fills the seed, the folder it copies them out to.
    const seed = mounts.underlay.seed;
    if (seed?.fill) args.push("--bind", seed.dir, SEED_MOUNT);
    // `-try`: another host loading another version of the plugin may have just dropped it
    // (then Deno finds no cache, and compiles).
    for (const name of seed?.fill === false ? seed.files : []) {
      args.push("--ro-bind-try", `${seed!.dir}/${name}`, `${target}/${name}`);
    }
  }
  for (const path of mounts.readOnly) args.push("--ro-bind-try", path, path);
  for (const path of mounts.hidden ?? []) args.push("--tmpfs", path);
  for (const path of mounts.readWrite) args.push("--bind-try", path, path);
  args.push("--");
  return args;
}
