/**
 * Child processes that lead their own process group, so everything they start is stopped
 * with them (and they with the host): the shell plugin's commands, the sandbox's processes,
 * MCP stdio servers.
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

// The children of spawnGroup still running, killed (with their groups) at this process's exit.
const running = new Set<Deno.ChildProcess>();

function killAll(): void {
  for (const child of running) killProcessGroup(child);
  running.clear();
}

/**
 * Spawns a child that leads a process group of its own, in a session of its own
 * (`detached`: no controlling terminal, so a Ctrl-C in the host's terminal is the host's to
 * handle), and keeps that group from outliving it: what is left of the group when the child
 * exits is killed, and the whole group is killed when this process exits first (Deno's
 * `unload`: the end of the program, or `Deno.exit()`, as a CLI's second Ctrl-C does; not a
 * kill by a signal, which runs no code). Stop it with {@linkcode signalProcessGroup} or
 * {@linkcode killProcessGroup}. On Windows, an ordinary child.
 *
 * @param program The program.
 * @param options As for `Deno.Command` (`detached` is set here).
 * @returns The running child.
 *
 * @example What a command leaves running ends with it
 * ```ts
 * import { spawnGroup } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * // sh exits at once; the sleep it leaves holds stdout open until the group is killed.
 * const child = spawnGroup("sh", { args: ["-c", "sleep 30 & echo started"], stdout: "piped" });
 * const { stdout } = await child.output();
 * equal(new TextDecoder().decode(stdout), "started\n");
 * ```
 */
export function spawnGroup(
  program: string,
  options: Omit<Deno.CommandOptions, "detached">,
): Deno.ChildProcess {
  const child = new Deno.Command(program, {
    ...options,
    detached: Deno.build.os !== "windows",
  }).spawn();
  if (running.size === 0) addEventListener("unload", killAll);
  running.add(child);
  // Runs before the callers' own reactions to the exit (it was registered first).
  child.status.then(() => {
    running.delete(child);
    if (running.size === 0) removeEventListener("unload", killAll);
    killProcessGroup(child);
  });
  return child;
}

/**
 * After a child exits: waits for its pipes to be read to their end, but for at most `ms`,
 * then calls `stop` (a process it left, out of reach, may hold them open for ever) and waits
 * for `reading` to settle.
 *
 * @param reading The reading of the child's pipes; `stop` must make it settle.
 * @param ms How long the pipes may stay open after the exit.
 * @param stop Stops reading (cancels the readers).
 * @returns When reading has ended.
 *
 * @example A pipe held open
 * ```ts
 * import { drainWithin } from "./process_group.ts";
 * import { equal } from "node:assert/strict";
 *
 * let stop!: () => void;
 * const reading = new Promise<void>((resolve) => (stop = resolve));
 * let stopped = false;
 * await drainWithin(reading, 10, () => {
 *   stopped = true;
 *   stop();
 * });
 * equal(stopped, true);
 * ```
 */
export async function drainWithin(
  reading: Promise<unknown>,
  ms: number,
  stop: () => void,
): Promise<void> {
  const timer = setTimeout(stop, ms);
  try {
    await reading;
  } finally {
    clearTimeout(timer);
  }
}
