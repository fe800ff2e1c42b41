/**
 * Runs this host's `deno` for the sandbox's preparation (`deno cache`, `deno info`).
 *
 * @module
 */

import { stripBacktrace } from "./strip_backtrace.ts";

/**
 * Runs `deno <args>` in `cwd` and returns its stdout.
 *
 * @param args The subcommand and its arguments.
 * @param cwd Where it runs (its config is found from there).
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
export async function runDeno(args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
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
