/**
 * Housekeeping of the folders the sandbox keeps in `DENO_DIR` (child caches, graph
 * descriptions, TypeBox bundles): beyond the most recently used, old entries are removed.
 *
 * @module
 */

/** Which entries of a store go. */
export interface PruneRule {
  /** How many of the most recently used (newest mtime) are kept whatever their age. */
  keep: number;
  /** Beyond those, only entries unused for this long are removed (default: any). */
  unusedForMs?: number;
  /** An entry never removed (the one in use now; it counts toward `keep`). */
  except?: string;
  /** Which entries the rule looks at, by name (default: all). */
  only?: (name: string) => boolean;
}

/**
 * Removes the entries of `root` that `rule` lets go. Failures are ignored: this is
 * housekeeping, and another host may be pruning the same folder.
 *
 * @param root The store's folder.
 * @param rule What is kept.
 *
 * @example Keeping the newest of three
 * ```ts
 * import { pruneStore } from "./prune_store.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * for (const [name, age] of [["a", 3], ["b", 2], ["c", 1]] as const) {
 *   await Deno.writeTextFile(`${root}/${name}`, "");
 *   const then = new Date(Date.now() - age * 60_000);
 *   await Deno.utime(`${root}/${name}`, then, then);
 * }
 * await pruneStore(root, { keep: 1, except: `${root}/a` });
 * deepEqual((await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort(), ["a", "c"]);
 * ```
 */
export async function pruneStore(root: string, rule: PruneRule): Promise<void> {
  const entries: { path: string; used: number }[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (rule.only !== undefined && !rule.only(entry.name)) continue;
      const path = `${root}/${entry.name}`;
      const used = (await Deno.stat(path).catch(() => undefined))?.mtime?.getTime();
      if (used !== undefined) entries.push({ path, used });
    }
  } catch {
    return;
  }
  entries.sort((a, b) => b.used - a.used);
  const stale = rule.unusedForMs === undefined ? Infinity : Date.now() - rule.unusedForMs;
  for (const { path, used } of entries.slice(rule.keep)) {
    if (used < stale && path !== rule.except) {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  }
}
