/**
 * The fast, weaker isolation: the plugin runs in a Worker with `deno.permissions` (the
 * host needs `--unstable-worker-options`). Weaker because a worker's static imports are
 * checked against the host's permissions, not the worker's, there is no OS layer, and a
 * runaway tool shares the host's process (it is terminated, not killed).
 *
 * @module
 */

import { PERMISSION_NAMES, type PluginPermissions } from "../permissions.ts";
import { checkChildMessage } from "./protocol.ts";
import type { RunnerConfig } from "./serve_plugin.ts";
import type { SandboxChild, SpawnChild } from "./sandbox_connection.ts";
import { hostMay } from "./host_may.ts";

/** A worker's message as text, for the garbage error (a cycle or a bigint cannot be JSON). */
function shown(data: unknown): string {
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

/**
 * The `deno.permissions` of a worker for resolved grants: exactly them, nothing inherited.
 *
 * @param grants Resolved grants.
 * @returns The permissions object of `new Worker(…, { deno: { permissions } })`.
 *
 * @example Worker permissions
 * ```ts
 * import { workerPermissions } from "./worker_isolation.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(workerPermissions({ read: ["/ws"] }).net, false);
 * ```
 */
export function workerPermissions(grants: PluginPermissions): Deno.PermissionOptionsObject {
  const permissions: Record<string, boolean | string[]> = {};
  for (const name of PERMISSION_NAMES) {
    const grant = grants[name];
    permissions[name] = grant === true
      ? true
      : Array.isArray(grant) && grant.length > 0
      ? [...grant]
      : false;
  }
  return permissions as Deno.PermissionOptionsObject;
}

/**
 * Whether this process was started with `--unstable-worker-options`, read from
 * `/proc/self/cmdline` on Linux. Without the flag, Deno ends the whole process (exit 70)
 * at `new Worker(…, { deno: { permissions } })` instead of throwing, so `loadPlugin`
 * asks first (on Linux; elsewhere it is assumed on). Deno lets only a host with every
 * permission (`-A`) read its command line;
 * elsewhere the answer is `"unknown"`, and `TACK_WORKER_OPTIONS=1` (where the host may
 * read it) says the flag, or deno.json's `"unstable": ["worker-options"]`, is on.
 *
 * @returns `"on"`, `"off"`, or `"unknown"` when it cannot be told.
 *
 * @example Checking the flag
 * ```ts
 * import { workerOptionsState } from "./worker_isolation.ts";
 * import { ok } from "node:assert/strict";
 *
 * ok(["on", "off", "unknown"].includes(workerOptionsState()));
 * ```
 */
export function workerOptionsState(): "on" | "off" | "unknown" {
  // Elsewhere there is no /proc to read it from: assumed on, as the docs say.
  if (Deno.build.os !== "linux") return "on";
  try {
    const args = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
    return args.some((arg) => arg === "--unstable-worker-options" || arg === "--unstable")
      ? "on"
      : "off";
  } catch {
    return "unknown";
  }
}

/** Whether the host said, in `TACK_WORKER_OPTIONS=1`, that worker options are on. */
function saidWorkerOptionsOn(): boolean {
  return hostMay({ name: "env", variable: "TACK_WORKER_OPTIONS" }) &&
    Deno.env.get("TACK_WORKER_OPTIONS") === "1";
}

/**
 * Whether Deno may ask on this process's terminal for a permission: its stdin is a terminal,
 * `DENO_NO_PROMPT` is not set (where the host may read it), and it was not started with
 * `--no-prompt` (read from `/proc/self/cmdline`, which Deno lets only a host with every
 * permission read; where it cannot be read, the answer is `true`). A worker's permissions left out are "ask", not "deny", and Deno asks
 * the host's terminal: a plugin would be one keypress from what it was not granted.
 *
 * @returns Whether a prompt could appear.
 *
 * @example
 * ```ts
 * import { hostMayPrompt } from "./worker_isolation.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof hostMayPrompt(), "boolean");
 * ```
 */
export function hostMayPrompt(): boolean {
  if (!Deno.stdin.isTerminal()) return false;
  if (hostMay({ name: "env", variable: "DENO_NO_PROMPT" }) && Deno.env.get("DENO_NO_PROMPT")) {
    return false;
  }
  // Deno lets only a host with every permission read its command line; a permission's state
  // says "prompt" with --no-prompt too, so it cannot tell.
  try {
    return !Deno.readTextFileSync("/proc/self/cmdline").split("\0").includes("--no-prompt");
  } catch {
    return true;
  }
}

/**
 * A spawner of worker sandboxes for a {@linkcode SandboxConnection}.
 *
 * @param entry The entry module's URL (imports the worker runner and the plugin).
 * @param config What the worker serves.
 * @param grants Resolved grants (within the host's: a worker cannot have more).
 * @returns A function that starts one worker per call.
 * @throws {Error} From the returned function, when the host runs without
 * `--unstable-worker-options`.
 *
 * @example A worker spawner
 * ```ts
 * import { spawnWorker } from "./worker_isolation.ts";
 * import { equal } from "node:assert/strict";
 *
 * const config = { specifier: "file:///p.ts", read: [], confined: false };
 * equal(typeof spawnWorker(new URL("file:///entry.ts"), config, {}), "function");
 * ```
 */
export function spawnWorker(
  entry: URL,
  config: RunnerConfig,
  grants: PluginPermissions,
): SpawnChild {
  return function spawn(handlers): SandboxChild {
    const options = workerOptionsState();
    if (options === "off") {
      throw new Error(
        'Cannot start worker sandbox: isolation "worker" needs the host to run with --unstable-worker-options',
      );
    }
    if (options === "unknown" && !saidWorkerOptionsOn()) {
      // Trying would end this process (exit 70) if the flag is off.
      throw new Error(
        'Cannot start worker sandbox: isolation "worker" needs the host to run with --unstable-worker-options, and this host cannot tell whether it does (its command line is readable only with -A): run it with -A, or set TACK_WORKER_OPTIONS=1, with --allow-env=TACK_WORKER_OPTIONS so it may read it, when the flag (or deno.json\'s "unstable": ["worker-options"]) is on',
      );
    }
    if (hostMayPrompt()) {
      throw new Error(
        'Cannot start worker sandbox: isolation "worker" needs the host to run with --no-prompt on a terminal, or with DENO_NO_PROMPT=1 where it may read it (Deno would ask on the terminal for what the plugin was not granted)',
      );
    }
    let worker: Worker;
    try {
      worker = new Worker(entry, {
        type: "module",
        deno: { permissions: workerPermissions(grants) },
      } as WorkerOptions);
    } catch (error) {
      throw new Error(
        `Cannot start worker sandbox: ${
          (error as Error).message
        } (isolation "worker" needs the host to run with --unstable-worker-options)`,
      );
    }
    let alive = true;
    let closedResolve!: () => void;
    const closed = new Promise<void>((resolve) => (closedResolve = resolve));
    let tail = "";
    const stop = (reason: string) => {
      if (!alive) return;
      alive = false;
      worker.terminate();
      handlers.onExit(reason);
      closedResolve();
    };
    worker.onmessage = (event) => {
      // The runner's word that the plugin ended the worker (`Deno.exit()`, `close()`).
      if (event.data?.type === "exited") {
        const code = event.data.code;
        handlers.onFault(
          `ended itself (${typeof code === "number" ? `Deno.exit(${code})` : "close()"})`,
        );
        stop("exited");
        return;
      }
      const message = checkChildMessage(event.data);
      // A worker has no memory cap of its own: it shares the host's.
      if (message?.type === "out_of_memory") {
        handlers.onFault("ran out of memory");
        stop("out of memory");
      } else if (message === undefined) handlers.onGarbage(shown(event.data));
      else handlers.onMessage(message);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      tail = event.message ?? String(event);
      stop("an uncaught error");
    };
    worker.postMessage(config);
    return {
      send: (message) => alive && worker.postMessage(message),
      kill: () => stop("terminated"),
      closed,
      stderrTail: () => tail,
    };
  };
}
