/**
 * Retrying what a local SQLite KV refuses while another process writes it.
 *
 * @module
 */

/**
 * Runs a KV operation again while SQLite reports the file locked: on a local file shared
 * by processes, Deno KV surfaces SQLite's busy error ("database is locked") instead of
 * waiting, also when it opens the file. Each retry re-reads, so atomic checks stay exact.
 * Up to 100 retries, 5 to 25 ms apart; then the error.
 *
 * @param operation What to run (again).
 * @returns What it resolved with.
 * @throws {Error} Its error when that is not a lock, or the lock's after the last retry.
 *
 * @example
 * ```ts
 * import { retryLocked } from "./retry_locked.ts";
 * import { equal } from "node:assert/strict";
 *
 * let tries = 0;
 * const answer = await retryLocked(() => {
 *   if (++tries < 3) throw new Error("database is locked");
 *   return Promise.resolve(42);
 * });
 * equal(answer, 42);
 * equal(tries, 3);
 * ```
 */
export async function retryLocked<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await operation();
    } catch (error) {
      const locked = error instanceof Error && /database is locked/.test(error.message);
      if (!locked || attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }
}
