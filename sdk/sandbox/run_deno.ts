/**
 * Runs this host's `deno` for the sandbox's preparation (`deno cache`, `deno info`).
 *
 * @module
 */

import { hostMay } from "./host_may.ts";
import { stripBacktrace } from "./strip_backtrace.ts";

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
 * Runs `deno <args>` in `cwd` and returns its stdout.
 *
 * @param args The subcommand and its arguments.
 * @param cwd Where it runs (its config is found from there).
 * @param foreign For a plugin's own project: the host's Deno cache folder. It then gets only
 * {@linkcode PREPARATION_ENV} of the host's environment, and `DENO_DIR`.
 * @returns What it printed on stdout.
 * @throws {Error} `Cannot prepare plugin: deno <subcommand> failed: <its stderr>` when it fails
 * (without the Rust backtrace `RUST_BACKTRACE` adds).
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
): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // The host's whole environment for its own project; only PREPARATION_ENV for another's.
    clearEnv: foreign !== undefined,
    env: foreign === undefined ? { NO_COLOR: "1" } : preparationEnv(foreign.denoDir),
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(
      `Cannot prepare plugin: deno ${args[0]} failed: ${
        stripBacktrace(decoder.decode(output.stderr))
      }`,
    );
  }
  return decoder.decode(output.stdout);
}
