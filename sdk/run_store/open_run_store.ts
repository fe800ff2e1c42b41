/**
 * Opening the default run store by path, asking Deno first for what it needs (a prompt on a
 * terminal would otherwise stop the process).
 *
 * @module
 */

import { resolve } from "node:path";
import { hostMay, netHostOf } from "../sandbox/host_may.ts";
import { kvRunStore, type KvRunStoreOptions } from "./kv_run_store.ts";
import type { RunStore } from "./run_store.ts";
import { retryLocked } from "./retry_locked.ts";

/**
 * Opens the default run store: Deno KV on a local SQLite file (or `:memory:`, or a
 * remote KV URL such as a self-hosted `denokv`'s; set `DENO_KV_ACCESS_TOKEN` for those).
 * Needs `--unstable-kv` or `"unstable": ["kv"]` in deno.json, and read and write on the file
 * (net to a remote KV's host and `--allow-env=DENO_KV_ACCESS_TOKEN`): asked first, a host
 * without them gets an error naming the flags, never a prompt.
 *
 * @param path The SQLite file, `:memory:`, or a URL; default: Deno's per-project KV.
 * @param options Lease.
 * @returns The store; `close()` closes the KV.
 * @throws {Error} `Cannot open run store "<path>": this process may not use it; add
 * --allow-read=<file> --allow-write=<file> to the host's flags` (the flags it lacks).
 * `Cannot open run store "<path>": <why>` when Deno KV cannot open it (e.g. `database disk
 * image is malformed` for a damaged SQLite file).
 *
 * @example
 * ```ts
 * import { openRunStore } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const store = await openRunStore(":memory:");
 * deepEqual(await store.list(), []);
 * store.close();
 * ```
 */
export async function openRunStore(
  path?: string,
  options: Omit<KvRunStoreOptions, "closeKv"> = {},
): Promise<RunStore> {
  if (typeof Deno.openKv !== "function") {
    throw new Error(
      "Cannot open run store: Deno KV is unstable in this Deno; run with --unstable-kv " +
        'or add "unstable": ["kv"] to deno.json',
    );
  }
  const missing = missingGrants(path);
  if (missing.length > 0) {
    throw new Error(
      `Cannot open run store ${JSON.stringify(path)}: this process may not use it; add ${
        missing.join(" ")
      } to the host's flags`,
    );
  }
  let kv: Deno.Kv;
  try {
    // Two processes opening one new file at once: the one that does not create it may find it
    // locked while the other sets it up.
    kv = await retryLocked(() => Deno.openKv(path));
  } catch (error) {
    throw new Error(`Cannot open run store ${JSON.stringify(path)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return kvRunStore(kv, { ...options, closeKv: true });
}

/**
 * The flags a store at `path` needs that this process lacks, asked of Deno first: opening
 * it would prompt on a terminal. A file needs read and write; a remote KV, net to its host
 * and the env variable of its token. Deno's own per-project store is left to Deno.
 */
function missingGrants(path: string | undefined): string[] {
  if (path === undefined || path === ":memory:") return [];
  if (/^https?:\/\//.test(path)) {
    const missing: string[] = [];
    const host = netHostOf(new URL(path));
    if (!hostMay({ name: "net", host })) missing.push(`--allow-net=${host}`);
    if (!hostMay({ name: "env", variable: "DENO_KV_ACCESS_TOKEN" })) {
      missing.push("--allow-env=DENO_KV_ACCESS_TOKEN");
    }
    return missing;
  }
  const file = resolve(path);
  const missing: string[] = [];
  if (!hostMay({ name: "read", path: file })) missing.push(`--allow-read=${file}`);
  if (!hostMay({ name: "write", path: file })) missing.push(`--allow-write=${file}`);
  return missing;
}
