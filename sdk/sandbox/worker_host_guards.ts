/**
 * What a worker sandbox may not touch of its host's process. A worker shares it, and Deno asks
 * no permission (or only `read`) for some of its process-wide state: what the plugin changes
 * there changes for the host (found by the sandbox attack). Only the plain route is guarded: a
 * worker the plugin starts (`node:worker_threads` cannot be taken away) has a fresh `Deno`.
 *
 * @module
 */

import process from "node:process";

const SHARED = "a worker sandbox shares its host's process";

/** Replaces `target[name]` for good (the plugin's code cannot put the original back). */
function replace(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: false, configurable: false });
}

/** A `kill` that refuses the host's own pid and its process group (0), else calls `kill`. */
function sparingHost<A extends unknown[]>(
  kill: (pid: number, ...rest: A) => unknown,
): (pid: number, ...rest: A) => unknown {
  return (pid, ...rest) => {
    if (Number(pid) === Deno.pid || Number(pid) === 0) {
      throw new Deno.errors.NotCapable(`Cannot signal the host's process: ${SHARED}`);
    }
    return kill(pid, ...rest);
  };
}

/**
 * Guards the host's process from the plugin's code, before it runs (the worker's runner calls
 * it first):
 * - signal listeners are the host's: a plugin listening for SIGTERM or SIGINT (no permission
 *   asked) kept the host from stopping on `kill` and Ctrl-C. `Deno.addSignalListener` throws
 *   (`node:process`'s `on("SIGINT")` goes through it);
 * - the working directory is the host's: `Deno.chdir`, which asks only `read` of its target,
 *   moved every relative path the host used after into the plugin's folder. It throws;
 * - the pid is the host's, and a process may signal itself with no permission: a plugin killed
 *   its host with `Deno.kill(Deno.pid, "SIGKILL")` (`Deno.exit()` ends only the worker).
 *   `Deno.kill` and `process.kill` refuse the host's pid and its process group.
 *
 * @example In a worker's runner, before the plugin's module
 * ```ts ignore
 * import { guardHostProcess } from "./worker_host_guards.ts";
 *
 * guardHostProcess();
 * Deno.chdir("/"); // throws NotCapable
 * ```
 */
export function guardHostProcess(): void {
  for (
    const [name, what] of [
      ["addSignalListener", "Cannot listen for signals"],
      ["chdir", "Cannot change the working directory"],
    ]
  ) {
    replace(Deno, name, () => {
      throw new Deno.errors.NotCapable(`${what}: ${SHARED}`);
    });
  }
  replace(Deno, "kill", sparingHost(Deno.kill));
  replace(process, "kill", sparingHost(process.kill.bind(process)));
}
