/**
 * Runs this host's `deno` for the sandbox's preparation (`deno cache`, `deno info`).
 *
 * @module
 */

import { hostMay } from "./host_may.ts";
import { joinBytes } from "../join_bytes.ts";
import { DEFAULT_START_TIMEOUT_MS } from "./sandbox_connection.ts";
import { stripBacktrace } from "./strip_backtrace.ts";
import { printable } from "./strip_control_sequences.ts";
import { drainWithin, killProcessGroup, spawnGroup } from "../process_group.ts";

/**
 * The host's environment variables `deno info` and `deno cache` get when they run in a plugin's
 * own project (its own `deno.json`, not the host's): where Deno's cache and the user's own config
 * are, how to reach the network and which certificates to trust, Deno's own registry tokens (sent
 * only to the hosts they name). No other: that project's `.npmrc` expands `${ANY_VARIABLE}` into a
 * token sent to a registry it names, so an API key the host holds would leave before any sandbox
 * starts.
 */
export const PREPARATION_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USERPROFILE",
  "XDG_CACHE_HOME",
  "LOCALAPPDATA",
  "APPDATA",
  "SystemRoot",
  "TMPDIR",
  "TEMP",
  "TMP",
  "DENO_DIR",
  "DENO_AUTH_TOKENS",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NPM_CONFIG_REGISTRY",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
];

/** {@linkcode PREPARATION_ENV} as this host has them (those it may read; no prompt). */
function preparationEnv(denoDir: string): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const variable of PREPARATION_ENV) {
    if (!hostMay({ name: "env", variable })) continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  // The host's cache, found as Deno finds it, also where the host may not read DENO_DIR.
  env.DENO_DIR = denoDir;
  return env;
}

/**
 * A `deno` run that did not finish within its time and was stopped: what stalled it would
 * stall the next run too.
 *
 * @example Telling a stalled run from a failed one
 * ```ts
 * import { PreparationTimeoutError, runDeno } from "./run_deno.ts";
 * import { rejects } from "node:assert/strict";
 *
 * await rejects(runDeno(["info", "--json", import.meta.url], Deno.cwd(), undefined, 1),
 *   PreparationTimeoutError);
 * ```
 */
export class PreparationTimeoutError extends Error {
  /**
   * Creates the error.
   *
   * @param message What stalled, for how long, and what it printed last.
   */
  constructor(message: string) {
    super(message);
    this.name = "PreparationTimeoutError";
  }
}

/** A stream read to its end, or until `stop`. */
function collect(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  const done = (async () => {
    while (true) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done || value === undefined) return;
      chunks.push(value);
    }
  })();
  const text = () => {
    const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    return new TextDecoder().decode(joinBytes(chunks, size));
  };
  return { done, text, stop: () => void reader.cancel().catch(() => {}) };
}

/**
 * Runs `deno <args>` in `cwd` and returns its stdout. It leads a process group of its own,
 * killed whole when it runs past `timeoutMs`.
 *
 * @param args The subcommand and its arguments.
 * @param cwd Where it runs (its config is found from there).
 * @param foreign For a plugin's own project: the host's Deno cache folder. It then gets only
 * {@linkcode PREPARATION_ENV} of the host's environment, and `DENO_DIR`.
 * @param timeoutMs How long it may run (default {@linkcode DEFAULT_START_TIMEOUT_MS}; anything
 * but a positive finite number means the default).
 * @returns What it printed on stdout.
 * @throws {Error} `Cannot prepare plugin: deno <subcommand> failed: <its stderr>` when it fails
 * (without the Rust backtrace `RUST_BACKTRACE` adds).
 * @throws {PreparationTimeoutError}
 * `Cannot prepare plugin: deno <subcommand> did not finish within <timeoutMs> ms (startTimeoutMs); it was stopped …`.
 *
 * @example The Deno version
 * ```ts
 * import { runDeno } from "./run_deno.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal((await runDeno(["--version"], Deno.cwd())).startsWith("deno "), true);
 * ```
 */
export async function runDeno(
  args: string[],
  cwd: string,
  foreign?: { denoDir: string },
  timeoutMs?: number,
): Promise<string> {
  const limit = timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)
    ? timeoutMs
    : DEFAULT_START_TIMEOUT_MS;
  const child = spawnGroup(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // The host's whole environment for its own project; only PREPARATION_ENV for another's.
    clearEnv: foreign !== undefined,
    env: foreign === undefined ? { NO_COLOR: "1" } : preparationEnv(foreign.denoDir),
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<"stalled">((resolve) => {
    timer = setTimeout(() => resolve("stalled"), limit);
  });
  const status = await Promise.race([child.status, stalled]);
  clearTimeout(timer);
  if (status === "stalled") killProcessGroup(child);
  await child.status;
  // Its pipes end with its group; whatever left the group may not hold them up.
  await drainWithin(Promise.all([stdout.done, stderr.done]), 1000, () => {
    stdout.stop();
    stderr.stop();
  });
  if (status === "stalled") {
    const last = stderr.text().trim().split("\n").at(-1) ?? "";
    throw new PreparationTimeoutError(
      `Cannot prepare plugin: deno ${
        args[0]
      } did not finish within ${limit} ms (startTimeoutMs); it was stopped${
        last === "" ? "" : `; what it printed last: ${JSON.stringify(printable(last.slice(-300)))}`
      }`,
    );
  }
  if (!status.success) {
    throw new Error(
      `Cannot prepare plugin: deno ${args[0]} failed: ${stripBacktrace(stderr.text())}`,
    );
  }
  return stdout.text();
}
