/**
 * Child processes that lead their own process group, so everything they start is stopped
 * with them: the shell plugin's commands, the sandbox's processes, MCP stdio servers.
 *
 * @module
 */

import { hostMay } from "./sandbox/host_may.ts";

/**
 * Whether {@linkcode killProcessGroup} can reach a whole group here: not on Windows, and
 * only with an unrestricted `--allow-run` (Deno asks for all of `run` to signal a pid it
 * did not spawn, which a group id is). Asked without prompting.
 *
 * @returns `true` when a group kill is possible.
 *
 * @example Asking
 * ```ts
 * import { canKillGroups } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof canKillGroups(), "boolean");
 * ```
 */
export function canKillGroups(): boolean {
  return Deno.build.os !== "windows" && hostMay({ name: "run" });
}

/**
 * Sends a signal to the process group a child leads (spawned with `detached: true`, which is
 * `setsid` on Unix): the child and every process it started that did not leave the group.
 * Where a group cannot be signalled ({@linkcode canKillGroups}), only the child is. Never
 * throws: a child already gone is fine.
 *
 * @param child A child spawned with `detached: true`.
 * @param signal The signal.
 *
 * @example Asking a command and what it started to stop
 * ```ts
 * import { signalProcessGroup } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * signalProcessGroup(child, "SIGTERM");
 * equal((await child.status).signal, "SIGTERM");
 * ```
 */
export function signalProcessGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  if (canKillGroups()) {
    try {
      // A negative pid signals the whole group, which the child leads.
      Deno.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone (the child exited and nothing of it is left): signal the child
      // below in case it is still there.
    }
  }
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
}

/**
 * Sends SIGKILL to the process group a child leads: {@linkcode signalProcessGroup} with
 * SIGKILL.
 *
 * @param child A child spawned with `detached: true`.
 *
 * @example Stopping a command and what it left running
 * ```ts
 * import { killProcessGroup } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * killProcessGroup(child);
 * equal((await child.status).signal, "SIGKILL");
 * ```
 */
export function killProcessGroup(child: Deno.ChildProcess): void {
  signalProcessGroup(child, "SIGKILL");
}

const stopAtExit = new Set<Deno.ChildProcess>();

function stopAll(): void {
  for (const child of stopAtExit) killProcessGroup(child);
  stopAtExit.clear();
}

/**
 * Kills a child's process group when this process exits (Deno's `unload`: the end of the
 * program, or `Deno.exit()`, as a CLI's second Ctrl-C does), if it is still there: a child
 * spawned `detached` is out of reach of the terminal's hang-up that would otherwise end it
 * with its host. Not when this process is killed by a signal (no code runs then).
 *
 * @param child A child spawned with `detached: true`.
 * @returns Call once the child has exited, to forget it.
 *
 * @example A server that must not outlive its host
 * ```ts
 * import { stopWithHost } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * const forget = stopWithHost(child);
 * child.kill("SIGKILL");
 * await child.status;
 * forget();
 * equal(typeof forget, "function");
 * ```
 */
export function stopWithHost(child: Deno.ChildProcess): () => void {
  if (stopAtExit.size === 0) addEventListener("unload", stopAll);
  stopAtExit.add(child);
  return () => {
    stopAtExit.delete(child);
    if (stopAtExit.size === 0) removeEventListener("unload", stopAll);
  };
}
