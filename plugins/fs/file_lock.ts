/**
 * Per-file serialization: writes to the same file wait for each other, writes to other
 * files (and every read) run in parallel.
 *
 * @module
 */

/** A set of locks keyed by path. */
export interface FileLocks {
  /**
   * Runs `task` once every earlier task on the same key has settled.
   *
   * @param key The file's real path.
   * @param task The work to do while holding the key.
   * @returns What `task` returns.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Keys with a task running or waiting (for tests and diagnostics). */
  readonly size: number;
}

/**
 * Creates a set of per-file locks. A failing task releases its key like a succeeding
 * one; keys are dropped once their last task settles, so the set does not grow.
 *
 * @returns The locks.
 *
 * @example Two writes to one file run one after the other
 * ```ts
 * import { createFileLocks } from "@tack/agent/plugins/fs";
 * import { deepEqual } from "node:assert/strict";
 *
 * const locks = createFileLocks();
 * const order: string[] = [];
 * const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 10));
 * await Promise.all([
 *   locks.run("/a", async () => { await slow(); order.push("first"); }),
 *   locks.run("/a", async () => { order.push("second"); }),
 * ]);
 * deepEqual(order, ["first", "second"]);
 * ```
 */
export function createFileLocks(): FileLocks {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(() => {}, () => {});
      tails.set(key, tail);
      tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    get size() {
      return tails.size;
    },
  };
}
