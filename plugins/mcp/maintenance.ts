/**
 * The maintenance of a connection (the ping after a call timed out or was aborted, retiring a
 * connection that failed), one task at a time. A task asked for while another runs waits its
 * turn and is never dropped: a connection ended while a ping runs is still retired after it.
 * Only a second ping of one connection, asked for while one is due, is left out.
 *
 * @module
 */

/** What {@linkcode maintenanceQueue} returns. */
export interface Maintenance {
  /** Runs `task` once every task asked for before it is done. */
  add(task: () => Promise<void>): void;
  /** As `add`, unless a task for `key` is waiting or running (a ping of that connection). */
  addOnce(key: object, task: () => Promise<void>): void;
  /** Resolves once no task is running or waiting, those asked for meanwhile included. */
  idle(): Promise<void>;
}

/**
 * Tasks run one after another, in the order asked for. A task that fails (none should: each
 * handles its own errors) keeps neither the tasks after it from running nor `idle()` from
 * resolving.
 *
 * @returns The queue.
 *
 * @example A retire asked for while a ping runs runs after it; `idle()` waits for both
 * ```ts
 * import { maintenanceQueue } from "./maintenance.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const maintenance = maintenanceQueue();
 * const connection = {};
 * const answered = Promise.withResolvers<void>();
 * const done: string[] = [];
 * const ping = async () => {
 *   await answered.promise;
 *   done.push("ping");
 * };
 * maintenance.addOnce(connection, ping);
 * const idle = maintenance.idle();
 * maintenance.addOnce(connection, ping); // one is due: left out
 * maintenance.add(async () => {
 *   done.push("retire");
 * });
 * answered.resolve();
 * await idle;
 * deepEqual(done, ["ping", "retire"]);
 * ```
 */
export function maintenanceQueue(): Maintenance {
  let last: Promise<void> | undefined;
  const due = new Set<object>();
  const add = (task: () => Promise<void>) => {
    const next: Promise<void> = (last ?? Promise.resolve()).then(task).catch(() => {})
      .finally(() => {
        if (last === next) last = undefined;
      });
    last = next;
  };
  return {
    add,
    addOnce(key, task) {
      if (due.has(key)) return;
      due.add(key);
      add(() => task().finally(() => due.delete(key)));
    },
    async idle() {
      while (last) await last;
    },
  };
}
