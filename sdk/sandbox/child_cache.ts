/**
 * A sandboxed plugin's own Deno cache: where the child's Deno keeps its transpiled modules
 * (`gen/file`) between starts; the rest of what it writes there is a capped tmpfs in the
 * sandbox (see `bwrap.ts`). The host's cache stays hidden from the child (its
 * `gen/` folder holds transpiled copies of every TypeScript file the user ever ran); this
 * folder holds only what the child itself wrote, for this plugin alone.
 *
 * @module
 */

import { hostMayUse } from "./host_may.ts";
import { sha256Hex } from "./sha256_hex.ts";
import { pruneStore } from "./prune_store.ts";

/** The first 16 hex digits of the SHA-256 of `text`. */
async function shortHash(text: string): Promise<string> {
  return (await sha256Hex(text)).slice(0, 16);
}

/** Removes what a child cache holds beside `gen/file` and its seed (left by earlier versions of Tack, or a fill cut short). */
async function dropUnkept(dir: string): Promise<void> {
  for (const [folder, keep] of [[dir, "gen"], [`${dir}/gen`, "file"]]) {
    for (const entry of await Array.fromAsync(Deno.readDir(folder)).catch(() => [])) {
      // Seeds, a failed one's mark and one being filled stay (code_cache_seed.ts drops earlier
      // versions').
      if (entry.name === keep || entry.name.startsWith("seed-")) continue;
      await Deno.remove(`${folder}/${entry.name}`, { recursive: true }).catch(() => {});
    }
  }
}

/** How many plugins' caches are kept whatever their age, and how long the others stay. */
const KEEP_NEWEST = 16;
const KEEP_FOR_MS = 60 * 60 * 1000;

/**
 * The cache folder for a plugin's sandbox: `<DENO_DIR>/tack_sandbox/<hash of its URL>` when
 * the host may create and list it (later starts, in this process or another, reuse it), else a
 * folder in the sandbox's temporary folder (its restarts reuse it).
 *
 * Only Deno itself writes there: the plugin's code has no write permission on it, and
 * each plugin (by module URL) gets its own folder, so one plugin never sees another's.
 * Beyond the 16 most recently used, folders unused for an hour are removed.
 *
 * @param url The plugin's module URL.
 * @param denoDir The host's Deno cache.
 * @param temp The sandbox's temporary folder (removed with the sandbox).
 * @returns The folder, created.
 *
 * @example One folder per plugin
 * ```ts
 * import { childCacheDir } from "./child_cache.ts";
 * import { notEqual } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const a = await childCacheDir("file:///a.ts", root, root);
 * const b = await childCacheDir("file:///b.ts", root, root);
 * notEqual(a, b);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function childCacheDir(url: string, denoDir: string, temp: string): Promise<string> {
  const root = `${denoDir}/tack_sandbox`;
  const shared = `${root}/${await shortHash(url)}`;
  try {
    // Asked first, so a host without the grants gets no permission prompt (the prune lists
    // the folder: read).
    if (!hostMayUse(root)) throw new Deno.errors.NotCapable(root);
    await Deno.mkdir(root, { recursive: true });
    const created = await Deno.mkdir(shared).then(() => true, (error) => {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    });
    const now = new Date();
    await Deno.utime(shared, now, now);
    // Only a new cache can take the count over the bound. An older one may hold what earlier
    // versions kept on disk (code caches, emitted blob: modules): only gen/file is kept now.
    if (!created) await dropUnkept(shared);
    else {
      await pruneStore(root, { keep: KEEP_NEWEST, unusedForMs: KEEP_FOR_MS, except: shared });
    }
    return shared;
  } catch {
    const own = `${temp}/deno_dir`;
    await Deno.mkdir(own, { recursive: true });
    return own;
  }
}
