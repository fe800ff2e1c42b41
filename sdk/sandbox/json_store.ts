/**
 * A folder of JSON files in `DENO_DIR` that the host keeps between processes, one file a
 * key (named by a hash of the key, the store's format and Deno's version), the newest few
 * hundred kept. Used for described module graphs and remembered manifests. A sandbox
 * never sees these folders (a child gets its own cache mounted where `DENO_DIR` is).
 *
 * @module
 */

import { hostMayUse } from "./host_may.ts";
import { pruneStore } from "./prune_store.ts";
import { sha256Hex } from "./sha256_hex.ts";

/** A store of values of type `T`. */
export interface JsonStore<T> {
  /**
   * The value stored for `key`, if there is one the host may read, of the right shape, in a
   * regular file (never a symlink, a FIFO, a device: reading one could block the host).
   */
  read(denoDir: string, key: string): Promise<T | undefined>;
  /** Where the value for `key` is stored. */
  pathOf(denoDir: string, key: string): Promise<string>;
  /**
   * Stores `value` for `key` (written whole, then renamed into place, so a process reading
   * at the same time sees the old one or the new one) and keeps the folder to the newest
   * entries. Failures are ignored: a store only saves time.
   */
  write(denoDir: string, key: string, value: T): Promise<void>;
}

/**
 * A store in `DENO_DIR/<folder>`.
 *
 * @param folder Its folder's name in `DENO_DIR`.
 * @param format Bumped when the stored shape changes (older entries are then never read).
 * @param isValue Whether a parsed file has the right shape.
 * @param keep How many entries are kept (the most recently written).
 * @returns The store.
 *
 * @example Stored, then read back
 * ```ts
 * import { jsonStore } from "./json_store.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const store = jsonStore("tack_example", 1, (v): v is number[] => Array.isArray(v));
 * const dir = await Deno.makeTempDir();
 * equal(await store.read(dir, "k"), undefined);
 * await store.write(dir, "k", [1, 2]);
 * deepEqual(await store.read(dir, "k"), [1, 2]);
 * ```
 */
export function jsonStore<T>(
  folder: string,
  format: number,
  isValue: (value: unknown) => value is T,
  keep = 256,
): JsonStore<T> {
  const fileFor = async (denoDir: string, key: string) =>
    `${denoDir}/${folder}/${await sha256Hex(`${format}\0${Deno.version.deno}\0${key}`)}.json`;
  return {
    pathOf: fileFor,
    async read(denoDir, key) {
      if (!hostMayUse(`${denoDir}/${folder}`)) return undefined;
      try {
        const file = await fileFor(denoDir, key);
        if (!(await Deno.lstat(file)).isFile) return undefined;
        const stored: unknown = JSON.parse(await Deno.readTextFile(file));
        return isValue(stored) ? stored : undefined;
      } catch {
        return undefined;
      }
    },
    async write(denoDir, key, value) {
      const dir = `${denoDir}/${folder}`;
      if (!hostMayUse(dir)) return;
      try {
        await Deno.mkdir(dir, { recursive: true });
        const file = await fileFor(denoDir, key);
        const temp = `${file}.${crypto.randomUUID()}.tmp`;
        await Deno.writeTextFile(temp, JSON.stringify(value));
        await Deno.rename(temp, file);
        await pruneStore(dir, { keep, except: file });
      } catch {
        // Housekeeping only: the next process does the work again.
      }
    },
  };
}
